"""The run directory: the only contract between a training worker and its readers.

Layout of ``<runs root>/<run id>/``::

    run.json        what was asked (spec, dataset, training and device config, ...)
    status.json     state, step, epoch, heartbeat, pid, error and traceback
    metrics.jsonl   one JSON object per line, append-only
    ckpt/           tf.train.CheckpointManager directory
    tb/             TensorBoard event files as keras.callbacks.TensorBoard lays them:
                    train/ (batch_*, epoch_*, the graph), validation/ (epoch_*,
                    evaluation_*_vs_iterations), test/; older runs: flat files in tb/
    model.keras     the final model
    log.txt         the worker's own output
    meta.json       a person's display name and tags (written by the reader side)
    stop.request    written by a reader to ask the worker to stop (the one exception
                    to "readers never write")

JSON files are replaced atomically; ``metrics.jsonl`` readers tolerate a torn last line
and read only what is new since an offset. Readers check every file against its schema
(``schema.py``): a damaged file marks its run damaged, with located problems, and nothing
else. Parsed files are cached on their stat (``cache.py``), so listing unchanged runs
reads no file.
"""

from __future__ import annotations

import os
import secrets
import stat
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Mapping

from tfcore.errors import RunError
from tfcore.messages import names
from tfcore.jsonio import _json_default, atomic_write_json, now_iso, read_json  # noqa: F401
from tfcore.rundir.cache import cached_file, cached_listing, file_stamp
from tfcore.rundir.metrics import MetricsChunk, MetricsWriter, read_metrics  # noqa: F401
from tfcore.rundir.metrics_cache import cached_metrics
from tfcore.rundir.schema import (  # noqa: F401 - the states are part of this module's face
    DAMAGED,
    FAILED,
    FINISHED,
    INTERRUPTED,
    META_FIELDS,
    META_JSON,
    METRICS_JSONL,
    QUEUED,
    RUN_FIELDS,
    RUN_FORMAT,
    RUN_JSON,
    RUNNING,
    STATES,
    STATUS_FIELDS,
    STATUS_JSON,
    STOPPED,
    STOPPING,
    RunProblem,
    check_object,
    load_json_file,
)

CKPT_DIR = "ckpt"
TB_DIR = "tb"
MODEL_FILE = "model.keras"
LOG_FILE = "log.txt"
STOP_REQUEST = "stop.request"

ACTIVE_STATES = frozenset({QUEUED, RUNNING, STOPPING})
# states a run leaves only when someone acts (a damaged status never heals by itself)
FINAL_STATES = frozenset({FINISHED, FAILED, STOPPED, INTERRUPTED, DAMAGED})


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

    @property
    def meta(self) -> Path:
        return self.root / META_JSON


def new_run_id(prefix: str = "run") -> str:
    """A sortable, unique run id such as ``run-20261130-192600-a1b2``."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
    safe = "".join(c if c.isalnum() or c in "-_" else "-" for c in prefix)[:40]
    safe = safe.lstrip("-") or "run"   # a run id never starts with "-" (it would read as a flag)
    return f"{safe}-{stamp}-{secrets.token_hex(2)}"


@dataclass(frozen=True)
class RunStatus:
    """The parsed, checked ``status.json`` of a run (bad fields fell back to defaults)."""

    state: str
    step: int = 0
    epoch: int = 0
    heartbeat: float | None = None
    pid: int | None = None
    message: str | None = None
    traceback: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: Any) -> "RunStatus":
        """Any value (a damaged file too): fields that break the schema are left out; a
        status without a usable state is ``damaged``."""
        return parse_status(data)[0]


def parse_status(data: Any) -> tuple[RunStatus, tuple[RunProblem, ...]]:
    """A :class:`RunStatus` and the problems of a parsed ``status.json`` value."""
    clean, problems = check_object(data, STATUS_FIELDS, STATUS_JSON)
    clean = dict(clean or {})
    known = {k: clean.pop(k, None) for k in ("state", "step", "epoch", "heartbeat",
                                             "pid", "message", "traceback")}
    status = RunStatus(state=known["state"] or DAMAGED, step=known["step"] or 0,
                       epoch=known["epoch"] or 0, heartbeat=known["heartbeat"],
                       pid=known["pid"], message=known["message"],
                       traceback=known["traceback"], extra=clean)
    return status, problems


@dataclass(frozen=True)
class RunRecord:
    """One run as a reader sees it: request, status, a person's meta and where it lives.

    ``problems`` locates every damaged field or file (``status.json: step: 'abc' is not
    an integer``); a damaged field falls back to its default, so the rest stays usable.
    Treat the mappings as read-only: records are shared by a process-wide cache.
    """

    run_id: str
    paths: RunPaths
    request: Mapping[str, Any]
    status: RunStatus
    problems: tuple[RunProblem, ...] = ()
    meta: Mapping[str, Any] = field(default_factory=dict)
    created_at: float = 0.0

    @property
    def name(self) -> str:
        """The display name: a person's name for it (meta.json), else the requested one."""
        return str(self.meta.get("name") or self.request.get("name") or self.run_id)

    @property
    def created(self) -> str | None:
        return self.request.get("created")

    @property
    def damaged(self) -> bool:
        return bool(self.problems)


class RunWriter:
    """The worker's side of a run directory. Only the worker writes its run."""

    def __init__(self, paths: RunPaths) -> None:
        self.paths = paths
        current, _ = load_json_file(paths.status_json)     # damaged: start afresh
        self._status: dict[str, Any] = current if isinstance(current, dict) else {}

    @classmethod
    def create(cls, runs_root: Path, request: Mapping[str, Any],
               run_id: str | None = None) -> "RunWriter":
        """Create a new run directory with ``run.json`` (in :data:`RUN_FORMAT`) and a queued
        status."""
        run_id = run_id or new_run_id(str(request.get("name") or "run"))
        root = Path(runs_root) / run_id
        if root.exists():
            raise RunError(key="errors.run_exists", params={"run": run_id})
        root.mkdir(parents=True)
        paths = RunPaths(root)
        body = {"format": RUN_FORMAT,           # this writer's format, whatever was asked
                **{k: v for k, v in request.items() if k != "format"}}
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
            raise RunError(key="errors.run_state",
                           params={"state": fields["state"], "choices": names(STATES)})
        self._status.update(fields)
        self._status["heartbeat"] = time.time()
        self._status["updated"] = now_iso()
        atomic_write_json(self.paths.status_json, self._status)
        return self.status

    def metrics_writer(self) -> MetricsWriter:
        return MetricsWriter(self.paths.metrics)

    def stop_requested(self) -> bool:
        return self.paths.stop_request.exists()


def _load_checked(path: Path, fields: tuple, optional: bool = False
                  ) -> tuple[dict | None, tuple[RunProblem, ...]]:
    value, problem = load_json_file(path)
    if problem is not None:
        missing = problem.reason == "missing"
        return ({} if optional and missing else None), (() if optional and missing
                                                         else (problem,))
    return check_object(value, fields, path.name)


def _load_run(path: Path) -> tuple[dict | None, tuple[RunProblem, ...], float]:
    """``run.json`` checked, and when the run was created (seconds): ``created`` or else
    the file's own time. The file is never rewritten, so its time orders runs created
    within the same second."""
    request, problems = _load_checked(path, RUN_FIELDS)
    stamp = file_stamp(path)
    mtime = stamp[2] / 1e9 if stamp else 0.0
    created = _timestamp((request or {}).get("created"))
    return request, problems, (created + (mtime % 1) if created is not None else mtime)


def _timestamp(text: Any) -> float | None:
    if not isinstance(text, str):
        return None
    try:
        moment = datetime.fromisoformat(text)
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=timezone.utc)
        return moment.timestamp()
    except (ValueError, OverflowError):
        return None


def _load_status(path: Path) -> tuple[RunStatus, tuple[RunProblem, ...]]:
    value, problem = load_json_file(path)
    status, problems = parse_status(value)
    return status, ((problem,) if problem else problems)


def _load_meta(path: Path) -> tuple[dict | None, tuple[RunProblem, ...]]:
    return _load_checked(path, META_FIELDS, optional=True)


def _run_folders(root: Path) -> list[str]:
    try:
        return sorted(p.name for p in root.iterdir()
                      if not p.name.startswith(".") and p.is_dir())
    except OSError:
        return []


class RunStore:
    """The readers' side: list and read runs under a runs root. Never writes a run
    (except :meth:`request_stop`).

    Reading is cached per process on each file's stat (see ``cache.py``): listing 100
    unchanged runs stats their files and parses none.
    """

    def __init__(self, runs_root: Path) -> None:
        self.root = Path(runs_root)

    def paths(self, run_id: str) -> RunPaths:
        if not run_id or "/" in run_id or "\\" in run_id or run_id in (".", ".."):
            raise RunError(key="errors.run_id", params={"run": run_id})
        return RunPaths(self.root / run_id)

    def folder_ids(self) -> list[str]:
        """The run folders' names, sorted; re-listed only when the runs root changed (one
        ``stat``), no run file read: cheap enough to poll."""
        return cached_listing(self.root, _run_folders)

    def run_ids(self) -> list[str]:
        """Every run id, newest first (by creation time)."""
        return [record.run_id for record in self.list()]

    def get(self, run_id: str) -> RunRecord:
        """Read one run; a damaged run is returned with its problems listed.

        Raises:
            RunError: an invalid run id, or no such run folder.
        """
        paths = self.paths(run_id)
        try:
            folder = os.stat(paths.root)
        except OSError:
            folder = None
        if folder is None or not stat.S_ISDIR(folder.st_mode):
            raise RunError(key="errors.run_missing",
                           params={"run": run_id, "root": str(self.root)})
        request, run_problems, created_at = cached_file(paths.run_json, _load_run)
        created_at = created_at or folder.st_mtime      # no run.json: the folder's time
        status, status_problems = cached_file(paths.status_json, _load_status)
        meta, meta_problems = cached_file(paths.meta, _load_meta)
        return RunRecord(run_id=run_id, paths=paths, request=request or {}, status=status,
                         problems=run_problems + status_problems + meta_problems,
                         meta=meta or {}, created_at=created_at)

    def list(self) -> list[RunRecord]:
        """Every run, newest first (by creation time); damaged runs included."""
        records = []
        for run_id in cached_listing(self.root, _run_folders):
            try:
                records.append(self.get(run_id))
            except RunError:
                continue            # deleted while listing, or a name that is no run id
        records.sort(key=lambda r: (r.created_at, r.run_id), reverse=True)
        return records

    def newest_active(self) -> RunRecord | None:
        """The newest run that is queued, running or stopping, or ``None``."""
        return next((r for r in self.list() if r.status.state in ACTIVE_STATES), None)

    def metrics(self, run_id: str, offset: int = 0, max_age: float = 0.0) -> MetricsChunk:
        """Records after byte ``offset``; the whole file (``offset`` 0) comes from the
        process-wide incremental cache, which parses only what was appended since (and,
        with ``max_age``, may be that many seconds old: :func:`cached_metrics`)."""
        if offset == 0:
            return cached_metrics(self.paths(run_id).metrics, max_age)
        return read_metrics(self.paths(run_id).metrics, offset)

    def request_stop(self, run_id: str) -> None:
        """Ask a worker to stop after its current batch."""
        paths = self.paths(run_id)
        paths.stop_request.write_text(now_iso(), encoding="utf-8")
