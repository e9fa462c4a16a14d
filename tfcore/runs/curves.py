"""Curves of several runs for one metric: smoothing, step or wall-time x-axis, seed groups.

Pure functions over ``metrics.jsonl`` records; they return pandas frames that a page draws.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Iterable

import numpy as np
import pandas as pd

from tfcore.rundir import DIGESTS, RunStore, cached_file
from tfcore.runs.admin import metrics_digest
from tfcore.runs.smoothing import smooth

X_AXES = ("step", "time")
CURVE_COLUMNS = ["run", "split", "step", "time", "value", "smoothed"]


def metric_names(runs_root: Path | str, run_ids: Iterable[str]) -> list[str]:
    """Metric names any of the runs logged (``loss`` first); each metrics file is read
    once per change (the runs table's cached digest)."""
    store = RunStore(Path(runs_root))
    names: dict[str, None] = {}
    for run_id in run_ids:
        digest = cached_file(store.paths(run_id).metrics, metrics_digest, DIGESTS)
        for key in digest.final:
            names[key.split("/", 1)[-1]] = None
    return sorted(names, key=lambda n: (n != "loss", n))


_MEMO: dict[tuple, tuple[tuple, pd.DataFrame]] = {}     # arguments -> (records seen, frame)
_MEMO_LOCK = threading.Lock()
MEMO_SIZE = 256


def run_curves(runs_root: Path | str, run_ids: Iterable[str], metric: str = "loss",
               splits: Iterable[str] = ("train", "val"), smoothing: float = 0.0,
               max_age: float = 0.0) -> pd.DataFrame:
    """One row per logged point: run, split, step, time (seconds since start), value,
    smoothed value. ``max_age``: a growing file may be read as it was up to that many
    seconds ago (one snapshot per interval for every page that draws it).

    Built once per content for the whole process: while every run's records are the same
    objects (the incremental metrics cache returns the same chunk for an unchanged file or
    snapshot) the frame built last time is returned, as a shallow copy the caller may add
    columns to."""
    store = RunStore(Path(runs_root))
    run_ids, splits = tuple(run_ids), tuple(splits)
    chunks = tuple(store.metrics(run_id, max_age=max_age).records for run_id in run_ids)
    key = (str(runs_root), run_ids, metric, splits, smoothing)
    with _MEMO_LOCK:
        hit = _MEMO.get(key)
    if hit is not None and len(hit[0]) == len(chunks) and all(
            a is b for a, b in zip(hit[0], chunks)):
        return hit[1].copy(deep=False)
    frame = _curves(run_ids, chunks, metric, splits, smoothing)
    with _MEMO_LOCK:
        if len(_MEMO) >= MEMO_SIZE:
            _MEMO.clear()
        _MEMO[key] = (chunks, frame)
    return frame.copy(deep=False)


def _curves(run_ids: tuple[str, ...], chunks: tuple, metric: str, splits: tuple[str, ...],
            smoothing: float) -> pd.DataFrame:
    frames = []
    for run_id, records in zip(run_ids, chunks):
        for split in splits:
            rows = [r for r in records if r.get("split", "train") == split
                    and isinstance(r.get(metric), (int, float))]
            if not rows:
                continue
            values = np.array([float(r[metric]) for r in rows])
            frames.append(pd.DataFrame({
                "run": run_id, "split": split,
                "step": [int(r.get("step") or 0) for r in rows],
                "time": [float(r.get("elapsed") or 0.0) for r in rows],
                "value": values, "smoothed": smooth(values, smoothing)}))
    if not frames:
        return pd.DataFrame(columns=CURVE_COLUMNS)
    return pd.concat(frames, ignore_index=True)


def group_curves(curves: pd.DataFrame, groups: dict[str, str]) -> pd.DataFrame:
    """Mean, standard deviation, min, max and count per group, split and step.

    Args:
        groups: run id -> group label (runs differing only in seed share a label).
    """
    columns = ["group", "split", "step", "mean", "std", "min", "max", "count"]
    if curves.empty:
        return pd.DataFrame(columns=columns)
    frame = curves.assign(group=curves["run"].map(groups).fillna(curves["run"]))
    stats = frame.groupby(["group", "split", "step"])["smoothed"].agg(
        ["mean", "std", "min", "max", "count"]).reset_index()
    stats["std"] = stats["std"].fillna(0.0)
    return stats[columns]
