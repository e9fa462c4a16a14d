"""The CPU hog behind ``make test-load``: it loads the cores while the command runs, passes
the command's exit status on, and its spinners always end: with the command, when the hog
is killed with SIGKILL, and at the hard time bound."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

HOG = [sys.executable, str(ROOT / "tests" / "load" / "cpu_hog.py")]
WAIT_S = 60.0  # generous: the machine may be busy


def _alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie counts as dead)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _wait_gone(pid: int) -> None:
    """Block until ``pid`` has exited (a pidfd turns readable), or fail after WAIT_S."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return
    try:
        ready, _, _ = select.select([fd], [], [], WAIT_S)
    finally:
        os.close(fd)
    assert ready, f"process {pid} still runs after {WAIT_S} s"


def _report_pids(exit_code: int) -> str:
    """A command that checks the spinners run and are spinners, prints them, exits."""
    return ("import os, sys; pids = os.environ['TFLAB_HOG_PIDS'].split(','); "
            "cmd = [open(f'/proc/{p}/cmdline').read() for p in pids]; "
            "assert all('--spinner' in c for c in cmd), cmd; "
            f"print(','.join(pids)); sys.exit({exit_code})")


def test_passes_the_exit_status_on_and_stops_the_spinners() -> None:
    for code in (0, 7):
        done = subprocess.run([*HOG, "--cores", "2", "--", sys.executable, "-c",
                               _report_pids(code)],
                              capture_output=True, text=True, timeout=WAIT_S, check=False)
        assert done.returncode == code, done.stderr
        pids = [int(p) for p in done.stdout.strip().split(",")]
        assert len(pids) == 2
        assert not any(_alive(pid) for pid in pids)


def test_a_command_killed_by_a_signal_gives_128_plus_n() -> None:
    done = subprocess.run([*HOG, "--cores", "1", "--", sys.executable, "-c",
                           "import os, signal; os.kill(os.getpid(), signal.SIGTERM)"],
                          capture_output=True, text=True, timeout=WAIT_S, check=False)
    assert done.returncode == 128 + signal.SIGTERM


def test_spinners_die_with_a_killed_hog() -> None:
    # the command blocks on stdin after reporting, so only SIGKILL ends the hog
    command = _report_pids(0).replace("sys.exit(0)", "sys.stdout.flush(); sys.stdin.read()")
    hog = subprocess.Popen([*HOG, "--cores", "2", "--", sys.executable, "-c", command],
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True)
    try:
        pids = [int(p) for p in hog.stdout.readline().strip().split(",")]
        assert len(pids) == 2 and all(_alive(pid) for pid in pids)
        hog.kill()
        hog.wait(timeout=WAIT_S)
        for pid in pids:
            _wait_gone(pid)
    finally:
        hog.kill()
        hog.stdin.close()  # ends the orphaned command
        hog.wait(timeout=WAIT_S)


def test_the_load_ends_at_the_hard_time_bound() -> None:
    command = ("import os, sys; print(os.environ['TFLAB_HOG_PIDS'], flush=True); "
               "sys.stdin.read()")
    hog = subprocess.Popen([*HOG, "--cores", "1", "--max-seconds", "0.5", "--",
                            sys.executable, "-c", command],
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True)
    try:
        (pid,) = [int(p) for p in hog.stdout.readline().strip().split(",")]
        _wait_gone(pid)                      # while the command still runs
        assert hog.poll() is None
        hog.stdin.close()
        assert hog.wait(timeout=WAIT_S) == 0
    finally:
        if hog.poll() is None:
            hog.kill()
            hog.wait()


def test_without_a_command_it_loads_for_max_seconds() -> None:
    done = subprocess.run([*HOG, "--cores", "1", "--max-seconds", "0.2"],
                          capture_output=True, text=True, timeout=WAIT_S, check=False)
    assert done.returncode == 0
    assert "1 spinner(s) for at most 0.2 s" in done.stderr
