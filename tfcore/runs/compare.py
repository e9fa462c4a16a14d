"""Statistics of a saved tensor and per-variable differences between two checkpoints.

Reads tensors through :mod:`tfcore.runs.ckpt_variables`; nothing here writes a file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

import numpy as np

from tfcore.errors import CheckpointError


@dataclass(frozen=True)
class VariableStats:
    """Statistics and a histogram of one saved tensor's values."""

    key: str
    shape: tuple[int, ...]
    dtype: str
    count: int
    mean: float
    std: float
    min: float
    max: float
    abs_mean: float
    norm: float
    zeros_fraction: float
    hist_counts: tuple[int, ...] = ()
    hist_edges: tuple[float, ...] = ()


@dataclass(frozen=True)
class VariableDiff:
    """How one variable changed from checkpoint A to checkpoint B."""

    key: str
    label: str
    shape: tuple[int, ...]
    status: str  # changed | same | only_a | only_b | shape_mismatch | unreadable
    norm_change: float | None = None
    max_abs_change: float | None = None
    relative_change: float | None = None


@dataclass(frozen=True)
class CheckpointDiff:
    """Per-variable differences between two checkpoints."""

    a: Path
    b: Path
    rows: tuple[VariableDiff, ...]
    problems: tuple[str, ...] = field(default_factory=tuple)


def variable_stats(prefix: Path | str, key: str, bins: int = 30) -> VariableStats:
    """Mean, spread, extremes, norm, share of zeros and a histogram of one tensor.

    Raises:
        CheckpointError: unreadable key, or a tensor that is not numeric.
    """
    from tfcore.runs.ckpt_variables import read_tensor

    value = read_tensor(prefix, key)
    if not np.issubdtype(value.dtype, np.number) and value.dtype != np.bool_:
        raise CheckpointError(key="runs.err.not_numeric",
                              params={"key": key, "dtype": str(value.dtype)})
    flat = value.astype(np.float64).ravel()
    counts, edges = (np.histogram(flat, bins=bins) if flat.size else (np.array([]), np.array([])))
    return VariableStats(
        key=key, shape=tuple(value.shape), dtype=str(value.dtype), count=int(flat.size),
        mean=float(flat.mean()) if flat.size else 0.0,
        std=float(flat.std()) if flat.size else 0.0,
        min=float(flat.min()) if flat.size else 0.0,
        max=float(flat.max()) if flat.size else 0.0,
        abs_mean=float(np.abs(flat).mean()) if flat.size else 0.0,
        norm=float(np.linalg.norm(flat)),
        zeros_fraction=float((flat == 0).mean()) if flat.size else 0.0,
        hist_counts=tuple(int(c) for c in counts), hist_edges=tuple(float(e) for e in edges))


def diff_checkpoints(a: Path | str, b: Path | str,
                     labels: Mapping[str, str] | None = None) -> CheckpointDiff:
    """Per variable: norm of B - A, largest absolute change, and norm change / norm of A.

    Variables only in one checkpoint, with different shapes, or unreadable are listed with
    that status instead of numbers.
    """
    from tfcore.runs.ckpt_variables import list_variables, read_tensor

    va, vb = list_variables(a, labels=labels), list_variables(b, labels=labels)
    rows = []
    for key in sorted(set(va.keys()) | set(vb.keys())):
        ia, ib = va.get(key), vb.get(key)
        info = ia or ib
        if ia is None or ib is None:
            rows.append(VariableDiff(key, info.label, info.shape,
                                     "only_b" if ia is None else "only_a"))
            continue
        if ia.shape != ib.shape:
            rows.append(VariableDiff(key, info.label, ia.shape, "shape_mismatch"))
            continue
        try:
            xa, xb = read_tensor(va.prefix, key), read_tensor(vb.prefix, key)
        except CheckpointError:
            rows.append(VariableDiff(key, info.label, ia.shape, "unreadable"))
            continue
        if not np.issubdtype(xa.dtype, np.number):
            continue
        delta = xb.astype(np.float64) - xa.astype(np.float64)
        norm = float(np.linalg.norm(delta.ravel()))
        base = float(np.linalg.norm(xa.astype(np.float64).ravel()))
        rows.append(VariableDiff(
            key, info.label, ia.shape, "changed" if norm > 0 else "same",
            norm_change=norm, max_abs_change=float(np.abs(delta).max()) if delta.size else 0.0,
            relative_change=norm / base if base > 0 else (0.0 if norm == 0 else float("inf"))))
    return CheckpointDiff(a=va.prefix, b=vb.prefix, rows=tuple(rows),
                          problems=va.problems + vb.problems)
