"""Keep N CPU cores busy while a command runs; exit with the command's status.

    python tests/load/cpu_hog.py --cores 2 -- .venv/bin/python -m pytest
    python tests/load/cpu_hog.py --cores 2 --max-seconds 60      # just load for 60 s

The hog always stops:

* when the wrapped command ends, whatever its status, and on Ctrl-C or SIGTERM
  (``finally`` stops the spinners; SIGTERM and SIGHUP are passed on to the command);
* when this process dies without cleaning up (even SIGKILL): each spinner asks Linux to
  send it SIGKILL when its parent dies (``PR_SET_PDEATHSIG``) and also checks its parent;
* after ``--max-seconds`` (a hard bound, default 2 hours): each spinner checks its own
  deadline and exits, even if nothing else stops it. The command itself keeps running.

The command sees ``TFLAB_HOG_PIDS`` (the spinners' process ids, comma-separated), so a
test can check that they run while it runs and are gone afterwards.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import signal
import subprocess
import sys
import time
from typing import Optional, Sequence

PR_SET_PDEATHSIG = 1
DEFAULT_MAX_SECONDS = 7200.0
GRACE_SECONDS = 5.0       # after Ctrl-C, before passing SIGINT on to the command
CLEANUP_SECONDS = 120.0   # then, before killing the command


def _die_with_parent() -> None:
    """Ask Linux to SIGKILL this process when its parent dies (no-op elsewhere)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def spin(deadline: float, parent: int) -> None:
    """Burn one core until ``deadline`` (monotonic clock) or until ``parent`` is gone."""
    _die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)   # the parent decides when spinners stop
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    x = 0
    while time.monotonic() < deadline and os.getppid() == parent:
        for i in range(200_000):                   # about 10 ms of work between checks
            x = (x * 31 + i) % 1_000_003


def start_spinners(cores: int, max_seconds: float) -> list[subprocess.Popen]:
    """Start ``cores`` spinner processes that end by themselves after ``max_seconds``."""
    deadline_s = max(0.0, float(max_seconds))
    procs = []
    for _ in range(cores):
        procs.append(subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--spinner", str(deadline_s),
             str(os.getpid())],
            stdin=subprocess.DEVNULL))
    return procs


def stop_spinners(procs: Sequence[subprocess.Popen]) -> None:
    """Kill the spinners and reap them."""
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
    for proc in procs:
        proc.wait()


def _status(code: int) -> int:
    """A shell-style exit status: a command killed by signal N gives 128 + N."""
    return 128 - code if code < 0 else code


def _interrupted(child: subprocess.Popen) -> int:
    """Ctrl-C: let the command finish its own cleanup (a terminal's Ctrl-C reached it
    too; a ``kill -INT`` of this process alone is passed on), then return its status.
    A second Ctrl-C, or a command that will not stop, is killed."""
    try:
        try:
            return _status(child.wait(timeout=GRACE_SECONDS))
        except subprocess.TimeoutExpired:
            child.send_signal(signal.SIGINT)
        try:
            return _status(child.wait(timeout=CLEANUP_SECONDS))
        except subprocess.TimeoutExpired:
            pass
    except KeyboardInterrupt:
        pass
    child.kill()
    child.wait()
    return 130


def run(cores: int, max_seconds: float, command: Sequence[str]) -> int:
    """Run ``command`` (or only load, for ``max_seconds``, when it is empty) under load."""
    spinners = start_spinners(cores, max_seconds)
    child: Optional[subprocess.Popen] = None

    def _forward(signum, _frame) -> None:
        if child is not None and child.poll() is None:
            child.send_signal(signum)
        else:
            raise KeyboardInterrupt

    old = {s: signal.signal(s, _forward) for s in (signal.SIGTERM, signal.SIGHUP)}
    print(f"cpu_hog: {cores} spinner(s) for at most {max_seconds:g} s: "
          f"{', '.join(str(p.pid) for p in spinners)}", file=sys.stderr, flush=True)
    try:
        if not command:
            for proc in spinners:
                proc.wait()
            return 0
        env = dict(os.environ, TFLAB_HOG_PIDS=",".join(str(p.pid) for p in spinners))
        child = subprocess.Popen(list(command), env=env)
        try:
            return _status(child.wait())
        except KeyboardInterrupt:
            return _interrupted(child)
    except KeyboardInterrupt:
        return 130
    finally:
        stop_spinners(spinners)
        for signum, handler in old.items():
            signal.signal(signum, handler)


def main(argv: Optional[Sequence[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--spinner"]:
        spin(time.monotonic() + float(argv[1]), int(argv[2]))
        return 0
    command: list[str] = []
    if "--" in argv:
        cut = argv.index("--")
        argv, command = argv[:cut], argv[cut + 1:]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cores", type=int, default=os.cpu_count() or 1,
                        help="spinner processes to start (default: every core)")
    parser.add_argument("--max-seconds", type=float, default=DEFAULT_MAX_SECONDS,
                        help="hard bound on the load, in seconds (default: %(default)s)")
    args = parser.parse_args(argv)
    if args.cores < 0 or args.max_seconds <= 0:
        parser.error("--cores must be >= 0 and --max-seconds > 0")
    return run(args.cores, args.max_seconds, command)


if __name__ == "__main__":
    sys.exit(main())
