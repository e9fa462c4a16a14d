"""Manage the runs of a runs root: summaries, rename and tag, delete.

Renames and tags go into ``<run>/meta.json`` (written atomically), the one file the reader
side adds to a run; ``run.json`` (what was asked) is never rewritten. Deletion touches only
the run's own folder and refuses a run whose worker is still active.
"""

from __future__ import annotations

import json
import shutil
import threading
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Mapping

from tfcore.errors import RunError
from tfcore.jsonio import atomic_write_json, now_iso, read_json
from tfcore.rundir import (
    ACTIVE_STATES,
    DIGESTS,
    META_FIELDS,
    META_JSON,
    RunPaths,
    RunProblem,
    RunRecord,
    RunStore,
    cached_file,
    cached_metrics,
    check_object,
)

GROUP_IGNORED = ("name", "created", "versions", "resume_of", "initial_weights")
_SKIP_FIELDS = {"step", "epoch", "time", "elapsed", "split", "samples_per_sec"}


@dataclass(frozen=True)
class RunSummary:
    """One row of the runs table."""

    run_id: str
    name: str
    tags: tuple[str, ...]
    model: str
    dataset: str
    device: str
    state: str
    created: str | None
    started: float | None
    duration: float | None
    steps: int
    total_steps: int | None
    seed: int | None
    group: str
    final: Mapping[str, float] = field(default_factory=dict)
    problems: tuple[RunProblem, ...] = ()

    def to_dict(self) -> dict:
        return {"run": self.run_id, "name": self.name, "tags": list(self.tags),
                "model": self.model, "dataset": self.dataset, "device": self.device,
                "state": self.state, "created": self.created, "started": self.started,
                "duration": self.duration, "steps": self.steps,
                "total_steps": self.total_steps, "seed": self.seed, "group": self.group,
                "final": dict(self.final), "problems": [str(p) for p in self.problems]}


def read_meta(paths: RunPaths) -> dict:
    """The run's checked ``meta.json`` (name and tags set by a person; damaged fields
    left out), or ``{}``."""
    meta, _ = check_object(read_json(paths.meta, default={}), META_FIELDS, META_JSON)
    return meta or {}


def _iso_to_epoch(text: Any) -> float | None:
    if not isinstance(text, str):
        return None
    try:
        return datetime.fromisoformat(text).timestamp()
    except (ValueError, OverflowError):
        return None


def group_key(request: Mapping[str, Any]) -> str:
    """Runs whose ``run.json`` differ only in the training seed share this key."""
    body = {k: v for k, v in request.items() if k not in GROUP_IGNORED}
    training = dict(body.get("training") or {})
    training.pop("seed", None)
    body["training"] = training
    return json.dumps(body, sort_keys=True, default=str)


def final_metrics(records: tuple[dict, ...]) -> dict[str, float]:
    """The last value of each metric per split, named ``split/metric``."""
    out: dict[str, float] = {}
    for record in records:
        split = record.get("split", "train")
        for key, value in record.items():
            if key not in _SKIP_FIELDS and isinstance(value, (int, float)):
                out[f"{split}/{key}"] = float(value)
    return out


@dataclass(frozen=True)
class MetricsDigest:
    """What a table row needs from ``metrics.jsonl``: final values, the last step and
    elapsed time, and the damaged lines."""

    final: Mapping[str, float]
    last_step: int
    last_elapsed: float | None
    problems: tuple[RunProblem, ...]


_FOLDS: dict[str, tuple[int, object, dict[str, float], int]] = {}   # path -> fold so far
_FOLDS_LOCK = threading.Lock()


def _fold(path: Path, records: tuple[dict, ...]) -> tuple[dict[str, float], int]:
    """Final values and last step of ``records``, folding in only the records appended
    since the last call for ``path`` (a live run's file grows by a few lines between
    reads; refolding thousands of records per read was a classroom server's hot spot)."""
    key = str(path)
    with _FOLDS_LOCK:
        seen = _FOLDS.get(key)
    if seen is not None and 0 < seen[0] <= len(records) and records[seen[0] - 1] is seen[1]:
        start, final, last = seen[0], dict(seen[2]), seen[3]
    else:                                  # first read, or the file was rewritten
        start, final, last = 0, {}, 0
    new = records[start:]
    final.update(final_metrics(new))
    last = max([last] + [int(r.get("step") or 0) for r in new])
    if records:
        with _FOLDS_LOCK:
            if len(_FOLDS) >= 4096:
                _FOLDS.clear()
            _FOLDS[key] = (len(records), records[-1], final, last)
    return final, last


def metrics_digest(path: Path) -> MetricsDigest:
    """Read a whole ``metrics.jsonl`` into a :class:`MetricsDigest` (parsing only what was
    appended since the last read: :func:`tfcore.rundir.cached_metrics`)."""
    chunk = cached_metrics(path)
    records = chunk.records
    final, last_step = _fold(path, records)
    return MetricsDigest(final=dict(final), last_step=last_step,
                         last_elapsed=(records[-1].get("elapsed") if records else None),
                         problems=chunk.summary_problems)


def _section(request: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    value = request.get(name)
    return value if isinstance(value, dict) else {}


def summarize(record: RunRecord) -> RunSummary:
    """A table row from one run's files; damage goes into ``problems``.

    The metrics file is digested once per change of the file (cached on its stat).
    """
    request, status, paths = record.request, record.status, record.paths
    digest = cached_file(paths.metrics, metrics_digest, DIGESTS)
    spec, dataset = _section(request, "spec"), _section(request, "dataset")
    device, training = _section(request, "device"), _section(request, "training")
    extra = status.extra
    started = _iso_to_epoch(extra.get("started")) or _iso_to_epoch(request.get("created"))
    duration = extra.get("wall_seconds") or extra.get("elapsed") or digest.last_elapsed
    seed = training.get("seed")
    return RunSummary(
        run_id=record.run_id, name=record.name,
        tags=tuple(str(t) for t in record.meta.get("tags") or ()),
        model=str(spec.get("name") or "?"), dataset=str(dataset.get("name") or "?"),
        device=str(device.get("kind") or "?"), state=status.state,
        created=record.created, started=started,
        duration=float(duration) if duration else None,
        steps=max(status.step, digest.last_step), total_steps=extra.get("total_steps"),
        seed=seed if isinstance(seed, int) else None,
        group=group_key(request) if request else record.run_id,
        final=dict(digest.final), problems=record.problems + digest.problems)


def list_runs(runs_root: Path | str) -> list[RunSummary]:
    """Every run under the runs root, newest first, damaged ones included."""
    return [summarize(record) for record in RunStore(Path(runs_root)).list()]


def _record(runs_root: Path | str, run_id: str) -> RunRecord:
    return RunStore(Path(runs_root)).get(run_id)


def rename_run(runs_root: Path | str, run_id: str, name: str) -> dict:
    """Give a run a display name (``meta.json``); returns the new meta.

    Raises:
        RunError: empty name or unknown run.
    """
    name = str(name).strip()
    if not name or len(name) > 120:
        raise RunError(key="runs.err.name", params={"name": name})
    return _update_meta(_record(runs_root, run_id).paths, name=name)


def set_tags(runs_root: Path | str, run_id: str, tags: list[str] | tuple[str, ...]) -> dict:
    """Replace a run's tags (trimmed, de-duplicated, order kept); returns the new meta."""
    clean = list(dict.fromkeys(t.strip() for t in tags if str(t).strip()))
    bad = [t for t in clean if len(t) > 40]
    if bad:
        raise RunError(key="runs.err.tag", params={"tag": bad[0]})
    return _update_meta(_record(runs_root, run_id).paths, tags=clean)


def _update_meta(paths: RunPaths, **changes: Any) -> dict:
    meta = read_meta(paths) | changes | {"updated": now_iso()}
    atomic_write_json(paths.root / META_JSON, meta)
    return meta


@dataclass(frozen=True)
class DeleteResult:
    """What a delete removed."""

    run_id: str
    removed: tuple[str, ...]
    freed_bytes: int


def _refuse_active(record: RunRecord) -> None:
    from tfcore.training import pid_alive

    if record.status.state in ACTIVE_STATES and (
            record.status.state == "queued" or pid_alive(record.status.pid)):
        raise RunError(key="runs.err.active",
                       params={"run": record.run_id, "state": record.status.state})


def _size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def delete_run(runs_root: Path | str, run_id: str) -> DeleteResult:
    """Delete one whole run folder (and nothing else).

    Raises:
        RunError: unknown run, an active run, or a folder that is not inside the runs root.
    """
    record = _record(runs_root, run_id)
    _refuse_active(record)
    folder = record.paths.root
    if folder.is_symlink() or folder.resolve().parent != Path(runs_root).resolve():
        raise RunError(key="runs.err.outside",
                       params={"path": str(folder), "root": str(runs_root)})
    freed = _size(folder)
    shutil.rmtree(folder)
    return DeleteResult(run_id=run_id, removed=(folder.name,), freed_bytes=freed)


def delete_old_checkpoints(runs_root: Path | str, run_id: str, keep: int = 1) -> DeleteResult:
    """Remove all but the newest ``keep`` checkpoints of a run and rewrite its
    ``checkpoint`` state file to list the ones left.

    Raises:
        RunError: unknown or active run, or ``keep`` < 1.
    """
    from tfcore.runs.checkpoints import list_checkpoints

    if keep < 1:
        raise RunError(key="runs.err.keep", params={"keep": keep})
    record = _record(runs_root, run_id)
    _refuse_active(record)
    if not record.paths.ckpt_dir.is_dir():
        return DeleteResult(run_id, (), 0)
    listing = list_checkpoints(record.paths.ckpt_dir, verify=False)
    entries = list(listing.entries)
    old, kept = entries[:-keep], entries[-keep:]
    removed, freed = [], 0
    for entry in old:
        for name in entry.files:
            path = listing.directory / name
            freed += path.stat().st_size
            path.unlink()
            removed.append(name)
    if listing.has_state_file and kept:
        _write_state(listing.directory, kept)
    return DeleteResult(run_id, tuple(removed), freed)


def _write_state(directory: Path, kept: list) -> None:
    import os
    import tempfile

    lines = [f'model_checkpoint_path: "{kept[-1].name}"']
    lines += [f'all_model_checkpoint_paths: "{e.name}"' for e in kept]
    lines += [f"all_model_checkpoint_timestamps: {e.time}" for e in kept if e.time]
    fd, tmp = tempfile.mkstemp(prefix=".checkpoint.", dir=directory)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write("\n".join(lines) + "\n")
    os.replace(tmp, directory / "checkpoint")
