"""Decode an upload in a child process (issue 28, item 3).

Every student's page runs in the server's one Python process. Reading an uploaded CSV, NPZ
or image zip is bounded by the readers' limits, but it can still take seconds of CPU and
hundreds of megabytes: done in the server, one student's upload would stall and swell every
other student's page. So a page asks for an upload's :class:`DatasetInfo` through a
:class:`DecodeJob`: a child process (``python -m tfcore.data.offload FOLDER``) loads the
dataset with the same readers, under a memory limit (its resident size, checked ten times a
second) and a time limit, writes its progress and then the info (or the located error) to
its folder, and exits. The page polls the folder, shows the progress with a Cancel, and
draws the info when it is there. The folder is keyed by the request and the upload's
version (size, modification time), so every session that picks the same upload shares one
decode, and a decoded upload is never decoded again until it changes.

Built-in datasets are small and bundled: they load in the server as before
(:func:`decoded_apart` says which requests go to a child).

Files of a job folder (``<workspace>/cache/decode/<key>/``), each written atomically:

- ``request.json``: the dataset request and the limits;
- ``job.json``: the child's pid and start time (the server's clock);
- ``progress.json``: ``{"done": n, "total": m, "unit": "images"}`` while it decodes;
- ``info.json``: the result, :meth:`DatasetInfo.to_dict`;
- ``error.json``: ``{"key": ..., "params": {...}}``, a refusal the page shows located;
- ``cancelled``: present once a person pressed Cancel (the child is killed).
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tfcore.data.base import DatasetInfo, DatasetRequest
from tfcore.errors import DatasetError, TFLabError
from tfcore.jsonio import atomic_write_json, read_json
from tfcore.procs import alive

UPLOAD_PREFIX = "upload:"
MEMORY_MB = 2048         # the most resident megabytes a decode may reach
TIME_S = 120.0           # the most seconds a decode may take
GRACE_S = 10.0           # the server kills a child that outlives its limit by this much
WATCH_S = 0.1            # how often the child checks its own size and time
STATES = ("running", "done", "failed", "cancelled")

def decoded_apart(request: DatasetRequest) -> bool:
    """Whether ``request`` is decoded in a child process (an upload)."""
    return request.name.startswith(UPLOAD_PREFIX)


@dataclass(frozen=True)
class JobState:
    """What a page shows of a decode: its state, seconds so far, progress, result."""

    state: str                        # one of STATES
    seconds: float = 0.0
    done: int = 0
    total: int = 0
    unit: str = ""
    info: DatasetInfo | None = None
    error: DatasetError | None = None


def _key(request: DatasetRequest) -> str:
    from tfcore.data.loader import fingerprint

    text = request.to_json() + "|" + fingerprint(request)
    return hashlib.sha256(text.encode()).hexdigest()[:20]


class DecodeJob:
    """One request's decode in ``cache/decode/<key>`` of a workspace."""

    def __init__(self, cache: Path, request: DatasetRequest,
                 memory_mb: int = MEMORY_MB, time_s: float = TIME_S) -> None:
        self.request = request
        self.folder = Path(cache) / "decode" / _key(request)
        self.memory_mb = memory_mb
        self.time_s = time_s
        self._proc: subprocess.Popen | None = None

    # --- the server's side ---------------------------------------------------------------

    def start(self) -> "DecodeJob":
        """Start the child unless this request was started before (it is decoded, decoding,
        failed or cancelled: :meth:`retry` starts it again)."""
        if any((self.folder / name).exists() for name in
               ("job.json", "info.json", "error.json", "cancelled")):
            return self
        self.folder.mkdir(parents=True, exist_ok=True)
        atomic_write_json(self.folder / "request.json",
                          {"request": self.request.to_dict(), "memory_mb": self.memory_mb,
                           "time_s": self.time_s})
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "tfcore.data.offload", str(self.folder)],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True)      # Cancel kills its whole group
        atomic_write_json(self.folder / "job.json",
                          {"pid": self._proc.pid, "started": time.time()})
        _reap_later(self._proc)
        return self

    def retry(self) -> "DecodeJob":
        """Forget a cancelled or failed decode and start it again."""
        for name in ("cancelled", "error.json", "progress.json", "job.json"):
            (self.folder / name).unlink(missing_ok=True)
        return self.start()

    def cancel(self) -> None:
        """Stop the decode now (its process group is killed); the page says so."""
        self.folder.mkdir(parents=True, exist_ok=True)
        (self.folder / "cancelled").touch()
        self._kill()

    def _job(self) -> dict:
        job = read_json(self.folder / "job.json")
        return job if isinstance(job, dict) else {}

    def _kill(self) -> None:
        pid = self._job().get("pid")
        if isinstance(pid, int) and pid > 0:
            try:
                os.killpg(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass

    def state(self) -> JobState:
        """Read the folder: done (with the info), failed (with the error), cancelled or
        running (with its progress). A child that outlived its time limit by ``GRACE_S``
        is killed here; one that died without a word is reported as failed."""
        folder = self.folder
        info = _answer(folder / "info.json")
        if info is not None:
            return info
        if (folder / "cancelled").exists():
            return JobState("cancelled")
        if (folder / "error.json").exists():
            data = read_json(folder / "error.json")
            try:
                error = DatasetError(key=str(data["key"]), params=dict(data["params"]))
            except (TypeError, KeyError, ValueError):
                error = DatasetError(key="data.err.decode_died",
                                     params={"name": self.request.name})
            return JobState("failed", error=error)
        job = self._job()
        pid, started = job.get("pid"), job.get("started")
        if not isinstance(pid, int) or not isinstance(started, (int, float)):
            return JobState("failed")            # never started (start() starts it)
        seconds = max(0.0, time.time() - started)
        if not alive(pid):
            if (folder / "info.json").exists() or (folder / "error.json").exists():
                return self.state()              # it finished between two reads
            return JobState("failed", seconds, error=DatasetError(
                key="data.err.decode_died", params={"name": self.request.name}))
        if seconds > self.time_s + GRACE_S:
            self._kill()
            _write_error(folder, "data.err.decode_time",
                         {"name": self.request.name, "seconds": int(self.time_s)})
            return self.state()
        progress = read_json(folder / "progress.json")
        try:
            done, total, unit = int(progress["done"]), int(progress["total"]), \
                str(progress["unit"])
        except (TypeError, KeyError, ValueError):
            done, total, unit = 0, 0, ""
        return JobState("running", seconds, done, total, unit)


_ANSWERS: dict[Path, tuple[int, JobState]] = {}   # info.json -> (mtime_ns, its state)


def _answer(path: Path) -> JobState | None:
    """The done (or damaged) state of an ``info.json``, None while there is none; read and
    checked once per version of the file (a page asks on every rerun)."""
    try:
        version = path.stat().st_mtime_ns
    except OSError:
        return None
    known = _ANSWERS.get(path)
    if known is not None and known[0] == version:
        return known[1]
    try:
        state = JobState("done", info=DatasetInfo.from_dict(read_json(path)))
    except DatasetError as exc:
        state = JobState("failed", error=exc)
    _ANSWERS[path] = (version, state)
    return state


def _reap_later(proc: subprocess.Popen) -> None:
    """Wait for the child in a daemon thread, so it never lingers as a zombie."""
    threading.Thread(target=proc.wait, daemon=True, name="decode-reaper").start()


def _write_error(folder: Path, key: str, params: dict[str, Any]) -> None:
    if not (folder / "error.json").exists():
        atomic_write_json(folder / "error.json", {"key": key, "params": params})


# --- the child's side ------------------------------------------------------------------

def _resident_mb() -> float:
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return 0.0
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def _watch(folder: Path, name: str, memory_mb: int, time_s: float) -> None:
    """In the child: stop it, saying why, once it is over its memory or time limit."""
    began = time.monotonic()
    while True:
        time.sleep(WATCH_S)
        if _resident_mb() > memory_mb:
            _write_error(folder, "data.err.decode_memory", {"name": name, "mb": memory_mb})
            os._exit(3)
        if time.monotonic() - began > time_s:
            _write_error(folder, "data.err.decode_time", {"name": name, "seconds": int(time_s)})
            os._exit(4)


def _child(folder: Path) -> int:
    from tfcore.data import progress as reports

    spec = read_json(folder / "request.json")
    request = DatasetRequest.from_dict(spec["request"])
    threading.Thread(target=_watch, args=(folder, request.name, int(spec["memory_mb"]),
                                          float(spec["time_s"])), daemon=True).start()
    last = [0.0]

    def progress(done: int, total: int, unit: str) -> None:
        now = time.monotonic()
        if now - last[0] >= 0.2 or done >= total:
            last[0] = now
            atomic_write_json(folder / "progress.json",
                              {"done": done, "total": total, "unit": unit})

    reports.listen(progress)
    from tfcore.data.loader import load_dataset

    try:
        bundle = load_dataset(request)
    except TFLabError as exc:
        _write_error(folder, exc.key, exc.plain_params())
        return 1
    except MemoryError:
        _write_error(folder, "data.err.decode_memory",
                     {"name": request.name, "mb": int(spec["memory_mb"])})
        return 3
    atomic_write_json(folder / "info.json", bundle.info.to_dict())
    return 0


if __name__ == "__main__":
    sys.exit(_child(Path(sys.argv[1])))
