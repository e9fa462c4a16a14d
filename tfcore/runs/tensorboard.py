"""The real TensorBoard for a runs folder, one per folder for every server process that
shows it (scenario T4).

:func:`open_tensorboard` starts ``tensorboard --logdir <folder>/.tensorboard-runs --host
127.0.0.1 --port 0`` or reuses the one that already reads that folder, whichever server
process started it. ``.tensorboard-runs`` holds one link per run, named by the run's name
(:mod:`tfcore.runs.tb_names`), so TensorBoard lists ``lesson_net/train`` and
``lesson_net/validation``, not run ids. The links are brought up to date under the lock
before TensorBoard is started or reused and, while it runs, every :data:`SYNC_S` s by
TensorBoard's own process; TensorBoard notices on its next reload (``--reload_interval``
5 s), so a run added, renamed or deleted later shows, changes or goes without a restart.
The decision is made under a cross-process lock (``<folder>/.tensorboard.lock``,
``fcntl.flock``) and recorded atomically in ``<folder>/.tensorboard.json``: the
TensorBoard's process, port, URL and the servers that use it. TensorBoard binds its port
itself (port 0) and reports it, so no other process can take the port between choosing
and binding it. A request for another folder leaves the previous one.

TensorBoard lives while a server uses it: a server that exits takes itself off the list
(``atexit``) and stops TensorBoard when it was the last; the TensorBoard process also
watches the list and ends when every server on it has died, so a killed server leaves no
TensorBoard behind. :func:`run_url` links to one run (TensorBoard's ``runFilter``).

``python -m tfcore.runs.tensorboard PARENT_PID FOLDER TENSORBOARD_ARGS...`` is that
process: it serves TensorBoard in a thread, reports its URL, then watches its users. It
runs on TensorBoard's own TensorFlow stub (:data:`NO_TF_MODULE`), not TensorFlow: what our
runs write (scalars, histograms, the Keras graph) is served the same, and the process
starts about 2.5 s of CPU sooner and some 400 MB smaller.
"""

from __future__ import annotations

import atexit
import fcntl
import json
import os
import signal
import subprocess
import sys
import threading
import time
import types
import urllib.error
import urllib.request
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Iterator
from urllib.parse import quote, urlsplit

from tfcore.errors import RunError
from tfcore.jsonio import atomic_write_json, read_json
from tfcore.runs.tb_names import board_names, run_filter, sync_view, view_dir

HOST = "127.0.0.1"
START_TIMEOUT_S = 180.0
RELEASE_TIMEOUT_S = 10.0        # a server leaving waits this long for the lock, then lets
WATCH_S = 1.0                   # the TensorBoard's own watch (every WATCH_S) prune it
SYNC_S = 2.0                    # the TensorBoard's process renews the run links this often
LOCK_NAME, STATE_NAME, LOG_NAME = ".tensorboard.lock", ".tensorboard.json", ".tensorboard.log"
READY_PREFIX = ".tensorboard-ready-"
NO_TF_MODULE = "tensorboard.compat.notf"   # present: TensorBoard uses its TF stub
_LOCK = threading.Lock()        # this process's sessions
_CURRENT: dict = {}             # "info", "token" of the TensorBoard this process uses; "proc"
                                # when this process started it


@dataclass(frozen=True)
class TensorBoardInfo:
    """A running TensorBoard: where it listens, its process and the folder it reads;
    ``reused``: it was already running when asked for."""

    url: str
    port: int
    pid: int
    logdir: Path
    reused: bool = False


def process_token(pid: int) -> str | None:
    """``"pid:start time"`` of a live process (None when gone or a zombie), so a pid the
    system has reused for another process does not count as the same process."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return None
    except OSError:                                    # no /proc: trust kill(0)
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return None
        except PermissionError:
            pass
        return f"{pid}:"
    fields = stat.rsplit(")", 1)[-1].split()
    return None if fields[0] in ("Z", "X") else f"{pid}:{fields[19]}"


def _alive(token: object) -> bool:
    if not isinstance(token, str) or ":" not in token:
        return False
    pid = token.split(":", 1)[0]
    return pid.isdigit() and process_token(int(pid)) == token


def fetch_json(url: str, timeout: float = 2.0):
    """GET ``url`` and parse the JSON answer; None when nothing answers."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return json.loads(response.read().decode("utf-8"))
    except (urllib.error.URLError, OSError, ValueError):
        return None


def _answers(info: TensorBoardInfo, timeout: float = 2.0) -> bool:
    """Whether the TensorBoard at ``info.url`` answers and reads ``info.logdir``'s run
    links (one started on the folder itself, by an older version, does not count)."""
    answer = fetch_json(f"{info.url}/data/logdir", timeout=timeout)
    return isinstance(answer, dict) and answer.get("logdir") == str(view_dir(info.logdir))


def _log_tail(path: Path, lines: int = 5) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace").strip().splitlines()
    except OSError:
        return ""
    return " | ".join(text[-lines:])


@contextmanager
def _folder_lock(folder: Path, timeout: float) -> Iterator[None]:
    """Hold ``<folder>/.tensorboard.lock`` (every process on this machine); RunError when
    another process holds it longer than ``timeout`` seconds."""
    with open(folder / LOCK_NAME, "a") as handle:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise RunError(key="tensorboard.err.busy") from None
                time.sleep(0.1)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _recorded(folder: Path) -> tuple[dict, TensorBoardInfo | None]:
    """The folder's state file and the TensorBoard it names while that process lives."""
    state = read_json(folder / STATE_NAME)
    if not isinstance(state, dict) or state.get("logdir") != str(folder) \
            or not _alive(state.get("token")):       # (a copied folder names another's)
        return {}, None
    try:
        info = TensorBoardInfo(url=str(state["url"]), port=int(state["port"]),
                               pid=int(state["pid"]), logdir=folder)
    except (KeyError, TypeError, ValueError):
        return {}, None
    return state, info


def running_tensorboard() -> TensorBoardInfo | None:
    """The TensorBoard this server uses while its process lives, else None."""
    info = _CURRENT.get("info")
    return info if info is not None and _alive(_CURRENT.get("token")) else None


def open_tensorboard(logdir: Path | str, timeout: float = START_TIMEOUT_S) -> TensorBoardInfo:
    """Start TensorBoard for ``logdir`` on 127.0.0.1 at a free port, or reuse the one that
    already reads that folder (started by this server or another); returns once it
    answers HTTP.

    Raises:
        RunError: the folder does not exist, TensorBoard exited or did not answer within
            ``timeout`` seconds (the message ends with its last log lines), or another
            process kept the folder's lock that long.
    """
    folder = Path(logdir).resolve()
    if not folder.is_dir():
        raise RunError(key="tensorboard.err.no_folder", params={"folder": folder.name})
    me = process_token(os.getpid())
    with _LOCK:
        current = _CURRENT.get("info")
        if current is not None and current.logdir != folder:
            _release_locked()
        with _folder_lock(folder, timeout):
            _sync(folder)
            state, info = _recorded(folder)
            proc = _CURRENT.get("proc")              # this process started it: reap it
            own = proc if proc is not None and info is not None and proc.pid == info.pid \
                else None
            _CURRENT.clear()
            if info is not None and _answers(info, timeout=10.0):
                users = [u for u in state.get("users", []) if u != me and _alive(u)]
                atomic_write_json(folder / STATE_NAME, {**state, "users": [*users, me]})
                _CURRENT.update(info=info, token=state["token"], proc=own)
                return replace(info, reused=True)
            if info is not None:                   # alive but deaf: replace it
                _end(state["token"], own)
            proc, info = _start(folder, timeout)
            token = process_token(proc.pid)
            atomic_write_json(folder / STATE_NAME, {
                "pid": info.pid, "token": token, "port": info.port, "url": info.url,
                "logdir": str(folder), "users": [me]})
            _CURRENT.update(info=info, token=token, proc=proc)
            return info


def _start(folder: Path, timeout: float) -> tuple[subprocess.Popen, TensorBoardInfo]:
    """Launch the TensorBoard process and wait for its report and first answer."""
    log = folder / LOG_NAME
    with open(log, "w", encoding="utf-8") as sink:
        proc = subprocess.Popen(
            [sys.executable, "-m", "tfcore.runs.tensorboard", str(os.getpid()), str(folder),
             "--logdir", str(view_dir(folder)), "--host", HOST, "--port", "0",
             "--reload_interval", "5"],
            stdin=subprocess.DEVNULL, stdout=sink, stderr=subprocess.STDOUT,
            start_new_session=True, env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"))
    ready = folder / f"{READY_PREFIX}{proc.pid}.json"
    deadline = time.monotonic() + timeout
    info = None
    while info is None or not _answers(info):
        if info is None and isinstance(report := read_json(ready), dict):
            info = TensorBoardInfo(url=report["url"], port=int(report["port"]),
                                   pid=proc.pid, logdir=folder)
        if proc.poll() is not None or time.monotonic() > deadline:
            tail = _log_tail(log)
            _end(process_token(proc.pid), proc)
            ready.unlink(missing_ok=True)
            raise RunError(key="tensorboard.err.start", params={"log": tail or "-"})
        time.sleep(0.2)
    ready.unlink(missing_ok=True)
    return proc, info


def _sync(folder: Path) -> None:
    """Renew the run links; a folder that cannot hold them leaves TensorBoard as it was."""
    try:
        sync_view(folder)
    except OSError as exc:
        print(f"run links not renewed: {exc}", file=sys.stderr)


def run_url(info: TensorBoardInfo, run_dir: Path | str | None = None) -> str:
    """The link that opens TensorBoard's time series, filtered to one run (by the name
    TensorBoard lists it by, and its sub-runs)."""
    if run_dir is None:
        return f"{info.url}/#timeseries"
    run_dir = Path(run_dir).resolve()
    name = board_names(run_dir.parent).get(run_dir.name, run_dir.name)
    return f"{info.url}/?runFilter={quote(run_filter(name), safe='')}#timeseries"


def stop_tensorboard() -> bool:
    """Stop using TensorBoard: it stops when no other live server uses it. True when this
    server used one that was running."""
    with _LOCK:
        return _release_locked()


def _release_locked() -> bool:
    info, token, proc = (_CURRENT.get(k) for k in ("info", "token", "proc"))
    _CURRENT.clear()
    if info is None:
        return False
    was_alive = _alive(token)
    me = process_token(os.getpid())
    try:
        with _folder_lock(info.logdir, RELEASE_TIMEOUT_S):
            state = read_json(info.logdir / STATE_NAME)
            if isinstance(state, dict) and state.get("token") == token:
                users = [u for u in state.get("users", []) if u != me and _alive(u)]
                if users:
                    atomic_write_json(info.logdir / STATE_NAME, {**state, "users": users})
                    return was_alive
                (info.logdir / STATE_NAME).unlink(missing_ok=True)
            _end(token, proc)
            (info.logdir / LOG_NAME).unlink(missing_ok=True)
    except (OSError, RunError):          # folder gone or lock busy: the watch prunes us
        if proc is not None:
            _end(token, proc)
    return was_alive


def _end(token: str | None, proc: subprocess.Popen | None) -> None:
    """Terminate the TensorBoard process ``token`` and wait until it is gone."""
    if not _alive(token):
        if proc is not None:
            proc.poll()                                # reap it
        return
    pid = int(str(token).split(":", 1)[0])
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + 10.0
        while time.monotonic() < deadline:
            if (proc is not None and proc.poll() is not None) or not _alive(token):
                return
            time.sleep(0.05)


atexit.register(stop_tensorboard)


def use_tf_stub() -> None:
    """Make TensorBoard use its bundled TensorFlow stub rather than import TensorFlow.
    ``tensorboard.compat.tf`` takes the stub when :data:`NO_TF_MODULE` imports (the
    module TensorBoard's own no-TensorFlow build provides; the pip wheel leaves it out),
    so an empty module of that name is registered before TensorBoard resolves ``tf``."""
    sys.modules.setdefault(NO_TF_MODULE, types.ModuleType(NO_TF_MODULE))


def _watch(parent: int, folder: Path) -> None:
    """End this TensorBoard when no server uses it: before the starter records it, when
    the starter is gone; after, when every user listed in the state file has died or
    another TensorBoard has replaced this one."""
    me, recorded, synced = process_token(os.getpid()), False, time.monotonic()
    while True:
        time.sleep(WATCH_S)
        try:
            with open(folder / LOCK_NAME, "a") as handle:
                try:
                    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    continue                           # someone is joining or starting
                state = read_json(folder / STATE_NAME)
                if not isinstance(state, dict) or state.get("token") != me:
                    if recorded or os.getppid() != parent:
                        return
                    continue
                recorded = True
                users = [u for u in state.get("users", []) if _alive(u)]
                if not users:
                    (folder / STATE_NAME).unlink(missing_ok=True)
                    (folder / LOG_NAME).unlink(missing_ok=True)
                    return
                if users != state.get("users"):
                    atomic_write_json(folder / STATE_NAME, {**state, "users": users})
                if time.monotonic() - synced >= SYNC_S:
                    _sync(folder)
                    synced = time.monotonic()
        except OSError:                                # the folder went away
            return


def main(argv: list[str]) -> None:
    """``PARENT_PID FOLDER ARGS...``: serve TensorBoard with ARGS while a server uses it."""
    parent, folder = int(argv[0]), Path(argv[1])
    use_tf_stub()
    from tensorboard import default, main_lib, program

    main_lib.global_init()
    board = program.TensorBoard(plugins=default.get_plugins())
    board.configure(argv=["tensorboard", *argv[2:]])
    url = board.launch().rstrip("/")
    print(f"TensorBoard {url} for {folder}", flush=True)
    ready = folder / f"{READY_PREFIX}{os.getpid()}.json"
    atomic_write_json(ready, {"url": url, "port": urlsplit(url).port})
    _watch(parent, folder)
    ready.unlink(missing_ok=True)                      # when its starter died first
    os._exit(0)


if __name__ == "__main__":
    main(sys.argv[1:])
