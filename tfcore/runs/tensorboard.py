"""The real TensorBoard for the runs folder, as a process this server manages (scenario T4).

:func:`open_tensorboard` starts ``tensorboard --logdir <runs root> --host 127.0.0.1
--port <free port>`` once per server process and reuses it while it lives and answers; a
request for another folder replaces it. The process is stopped when the server exits
(``atexit``), and it also ends by itself when its parent dies, so a killed server leaves
no TensorBoard behind. :func:`run_url` links to one run (TensorBoard's ``runFilter``).

``python -m tfcore.runs.tensorboard PARENT_PID TENSORBOARD_ARGS...`` is that process: it
watches its parent, then runs TensorBoard's own ``main``.
"""

from __future__ import annotations

import atexit
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import quote

from tfcore.errors import RunError

HOST = "127.0.0.1"
START_TIMEOUT_S = 180.0
_LOCK = threading.Lock()
_CURRENT: dict = {}             # "proc", "info", "log" of the one managed TensorBoard


@dataclass(frozen=True)
class TensorBoardInfo:
    """A running TensorBoard: where it listens, its process and the folder it reads."""

    url: str
    port: int
    pid: int
    logdir: Path
    reused: bool = False


def free_port(host: str = HOST) -> int:
    """A TCP port nobody listens on right now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def fetch_json(url: str, timeout: float = 2.0):
    """GET ``url`` and parse the JSON answer; None when nothing answers."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return json.loads(response.read().decode("utf-8"))
    except (urllib.error.URLError, OSError, ValueError):
        return None


def _answers(info: TensorBoardInfo) -> bool:
    return fetch_json(f"{info.url}/data/logdir") is not None


def _log_tail(path: Path, lines: int = 5) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace").strip().splitlines()
    except OSError:
        return ""
    return " | ".join(text[-lines:])


def running_tensorboard() -> TensorBoardInfo | None:
    """The managed TensorBoard while its process lives, else None."""
    proc = _CURRENT.get("proc")
    if proc is None or proc.poll() is not None:
        return None
    return _CURRENT["info"]


def open_tensorboard(logdir: Path | str, timeout: float = START_TIMEOUT_S) -> TensorBoardInfo:
    """Start TensorBoard for ``logdir`` on 127.0.0.1 at a free port, or reuse the one this
    server already runs for that folder; returns once it answers HTTP.

    Raises:
        RunError: the folder does not exist, or TensorBoard exited or did not answer
            within ``timeout`` seconds (the message ends with its last log lines).
    """
    folder = Path(logdir).resolve()
    if not folder.is_dir():
        raise RunError(f"No folder {folder.name!r} to show in TensorBoard.",
                       key="tensorboard.err.no_folder", params={"folder": folder.name})
    with _LOCK:
        running = running_tensorboard()
        if running is not None and running.logdir == folder and _answers(running):
            return replace(running, reused=True)
        _stop_locked()
        port = free_port()
        with tempfile.NamedTemporaryFile(prefix="tflab-tensorboard-", suffix=".log",
                                         delete=False) as sink:
            log = Path(sink.name)
            proc = subprocess.Popen(
                [sys.executable, "-m", "tfcore.runs.tensorboard", str(os.getpid()),
                 "--logdir", str(folder), "--host", HOST, "--port", str(port),
                 "--reload_interval", "5"],
                stdin=subprocess.DEVNULL, stdout=sink, stderr=subprocess.STDOUT,
                env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"))
        info = TensorBoardInfo(url=f"http://{HOST}:{port}", port=port, pid=proc.pid,
                               logdir=folder)
        _CURRENT.update(proc=proc, info=info, log=log)
        deadline = time.monotonic() + timeout
        while not _answers(info):
            if proc.poll() is not None or time.monotonic() > deadline:
                tail = _log_tail(log)
                _stop_locked()
                raise RunError(f"TensorBoard did not start: {tail or 'no output'}",
                               key="tensorboard.err.start", params={"log": tail or "-"})
            time.sleep(0.2)
        return info


def run_url(info: TensorBoardInfo, run_dir: Path | str | None = None) -> str:
    """The link that opens TensorBoard's time series, filtered to one run's folder."""
    if run_dir is None:
        return f"{info.url}/#timeseries"
    name = Path(run_dir).resolve().name
    return f"{info.url}/?runFilter={quote(name)}#timeseries"


def stop_tensorboard() -> bool:
    """Stop the managed TensorBoard; True when one was running."""
    with _LOCK:
        return _stop_locked()


def _stop_locked() -> bool:
    proc, log = _CURRENT.pop("proc", None), _CURRENT.pop("log", None)
    _CURRENT.clear()
    if log is not None:
        log.unlink(missing_ok=True)
    if proc is None:
        return False
    alive = proc.poll() is None
    if alive:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
    return alive


atexit.register(stop_tensorboard)


def _watch_parent(parent: int) -> None:
    """End this process when the server that started it is gone."""
    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(0)


def main(argv: list[str]) -> None:
    """``PARENT_PID ARGS...``: run TensorBoard with ARGS while the parent lives."""
    parent = int(argv[0])
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    from tensorboard.main import run_main

    sys.argv = ["tensorboard", *argv[1:]]
    run_main()


if __name__ == "__main__":
    main(sys.argv[1:])
