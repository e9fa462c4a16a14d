"""The run directory: the only contract between a training worker and its readers.

Layout of ``<runs root>/<run id>/``::

    run.json        what was asked (spec, dataset, training and device config, ...)
    status.json     state, step, epoch, heartbeat, pid, error and traceback
    metrics.jsonl   one JSON object per line, append-only
    ckpt/           tf.train.CheckpointManager directory
    tb/             tf.summary event files
    model.keras     the final model
    log.txt         the worker's own output
    stop.request    written by a reader to ask the worker to stop (the one exception
                    to "readers never write")

JSON files are replaced atomically; ``metrics.jsonl`` readers tolerate a torn last line
and read only what is new since an offset.
"""

from __future__ import annotations

import json
import os
import secrets
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Mapping

from tfcore.errors import RunError
from tfcore.jsonio import _json_default, atomic_write_json, now_iso, read_json  # noqa: F401

RUN_JSON = "run.json"
STATUS_JSON = "status.json"
METRICS_JSONL = "metrics.jsonl"
CKPT_DIR = "ckpt"
TB_DIR = "tb"
MODEL_FILE = "model.keras"
LOG_FILE = "log.txt"
STOP_REQUEST = "stop.request"

QUEUED, RUNNING, STOPPING = "queued", "running", "stopping"
FINISHED, FAILED, STOPPED, INTERRUPTED = "finished", "failed", "stopped", "interrupted"
STATES = (QUEUED, RUNNING, STOPPING, FINISHED, FAILED, STOPPED, INTERRUPTED)
ACTIVE_STATES = frozenset({QUEUED, RUNNING, STOPPING})
FINAL_STATES = frozenset({FINISHED, FAILED, STOPPED, INTERRUPTED})


@dataclass(frozen=True)
class RunPaths:
    """Every file of one run directory, named in one place."""

    root: Path

    @property
    def run_id(self) -> str:
        return self.root.name

    @property
    def run_json(self) -> Path:
        return self.root / RUN_JSON

    @property
    def status_json(self) -> Path:
        return self.root / STATUS_JSON

    @property
    def metrics(self) -> Path:
        return self.root / METRICS_JSONL

    @property
    def ckpt_dir(self) -> Path:
        return self.root / CKPT_DIR

    @property
    def tb_dir(self) -> Path:
        return self.root / TB_DIR

    @property
    def model(self) -> Path:
        return self.root / MODEL_FILE

    @property
    def log(self) -> Path:
        return self.root / LOG_FILE

    @property
    def stop_request(self) -> Path:
        return self.root / STOP_REQUEST


def new_run_id(prefix: str = "run") -> str:
    """A sortable, unique run id such as ``run-20261130-192600-a1b2``."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
    safe = "".join(c if c.isalnum() or c in "-_" else "-" for c in prefix)[:40] or "run"
    return f"{safe}-{stamp}-{secrets.token_hex(2)}"


class MetricsWriter:
    """Append-only writer of ``metrics.jsonl``: one whole line per ``write`` call."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._handle = open(self.path, "a", encoding="utf-8")

    def append(self, record: Mapping[str, Any]) -> None:
        line = json.dumps(record, ensure_ascii=False, default=_json_default) + "\n"
        self._handle.write(line)
        self._handle.flush()

    def close(self) -> None:
        if not self._handle.closed:
            self._handle.flush()
            os.fsync(self._handle.fileno())
            self._handle.close()

    def __enter__(self) -> "MetricsWriter":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass(frozen=True)
class MetricsChunk:
    """Records read from ``metrics.jsonl`` and the byte offset to continue from."""

    records: tuple[dict, ...]
    offset: int


def read_metrics(path: Path, offset: int = 0) -> MetricsChunk:
    """Read complete lines written after ``offset``; a torn last line is left for later.

    Lines that are complete but not valid JSON are skipped (never raised).
    """
    path = Path(path)
    try:
        with open(path, "rb") as handle:
            handle.seek(offset)
            data = handle.read()
    except FileNotFoundError:
        return MetricsChunk(records=(), offset=offset)
    end = data.rfind(b"\n")
    if end < 0:
        return MetricsChunk(records=(), offset=offset)
    records = []
    for raw in data[: end + 1].splitlines():
        if not raw.strip():
            continue
        try:
            value = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError):
            continue
        if isinstance(value, dict):
            records.append(value)
    return MetricsChunk(records=tuple(records), offset=offset + end + 1)


@dataclass(frozen=True)
class RunStatus:
    """The parsed ``status.json`` of a run."""

    state: str
    step: int = 0
    epoch: int = 0
    heartbeat: float | None = None
    pid: int | None = None
    message: str | None = None
    traceback: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> "RunStatus":
        data = dict(data or {})
        known = {k: data.pop(k, None) for k in ("state", "step", "epoch", "heartbeat",
                                                 "pid", "message", "traceback")}
        return cls(
            state=known["state"] or INTERRUPTED,
            step=int(known["step"] or 0),
            epoch=int(known["epoch"] or 0),
            heartbeat=known["heartbeat"],
            pid=known["pid"],
            message=known["message"],
            traceback=known["traceback"],
            extra=data,
        )


@dataclass(frozen=True)
class RunRecord:
    """One run as a reader sees it: request, status and where it lives."""

    run_id: str
    paths: RunPaths
    request: Mapping[str, Any]
    status: RunStatus
    problems: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return str(self.request.get("name") or self.run_id)

    @property
    def created(self) -> str | None:
        return self.request.get("created")


class RunWriter:
    """The worker's side of a run directory. Only the worker writes its run."""

    def __init__(self, paths: RunPaths) -> None:
        self.paths = paths
        self._status: dict[str, Any] = read_json(paths.status_json, default={}) or {}

    @classmethod
    def create(cls, runs_root: Path, request: Mapping[str, Any],
               run_id: str | None = None) -> "RunWriter":
        """Create a new run directory with ``run.json`` and a queued status."""
        run_id = run_id or new_run_id(str(request.get("name") or "run"))
        root = Path(runs_root) / run_id
        if root.exists():
            raise RunError(f"Run {run_id!r} already exists.", key="errors.run_exists",
                           params={"run": run_id})
        root.mkdir(parents=True)
        paths = RunPaths(root)
        body = dict(request)
        body.setdefault("created", now_iso())
        atomic_write_json(paths.run_json, body)
        writer = cls(paths)
        writer.set_status(state=QUEUED, step=0, epoch=0)
        return writer

    @property
    def status(self) -> RunStatus:
        return RunStatus.from_dict(self._status)

    def set_status(self, **fields: Any) -> RunStatus:
        """Merge fields into ``status.json`` (atomic) with a fresh heartbeat."""
        if "state" in fields and fields["state"] not in STATES:
            raise RunError(f"Unknown run state {fields['state']!r}; allowed: {STATES}.")
        self._status.update(fields)
        self._status["heartbeat"] = time.time()
        self._status["updated"] = now_iso()
        atomic_write_json(self.paths.status_json, self._status)
        return self.status

    def metrics_writer(self) -> MetricsWriter:
        return MetricsWriter(self.paths.metrics)

    def stop_requested(self) -> bool:
        return self.paths.stop_request.exists()


class RunStore:
    """The readers' side: list and read runs under a runs root. Never writes a run
    (except :meth:`request_stop`)."""

    def __init__(self, runs_root: Path) -> None:
        self.root = Path(runs_root)

    def paths(self, run_id: str) -> RunPaths:
        if not run_id or "/" in run_id or "\\" in run_id or run_id in (".", ".."):
            raise RunError(f"Invalid run id {run_id!r}.", key="errors.run_id",
                           params={"run": run_id})
        return RunPaths(self.root / run_id)

    def run_ids(self) -> list[str]:
        if not self.root.is_dir():
            return []
        return sorted((p.name for p in self.root.iterdir()
                       if p.is_dir() and not p.name.startswith(".")), reverse=True)

    def get(self, run_id: str) -> RunRecord:
        """Read one run; a damaged run is returned with its problems listed."""
        paths = self.paths(run_id)
        if not paths.root.is_dir():
            raise RunError(f"Run {run_id!r} does not exist in {self.root}.",
                           key="errors.run_missing", params={"run": run_id})
        problems = []
        request = read_json(paths.run_json)
        if not isinstance(request, dict):
            problems.append("run.json is missing or unreadable")
            request = {}
        status_data = read_json(paths.status_json)
        if not isinstance(status_data, dict):
            problems.append("status.json is missing or unreadable")
        return RunRecord(run_id=run_id, paths=paths, request=request,
                         status=RunStatus.from_dict(status_data), problems=tuple(problems))

    def list(self) -> list[RunRecord]:
        """Every run, newest first."""
        return [self.get(run_id) for run_id in self.run_ids()]

    def metrics(self, run_id: str, offset: int = 0) -> MetricsChunk:
        return read_metrics(self.paths(run_id).metrics, offset)

    def request_stop(self, run_id: str) -> None:
        """Ask a worker to stop after its current batch."""
        paths = self.paths(run_id)
        paths.stop_request.write_text(now_iso(), encoding="utf-8")

