"""``insight/``'s readers: a run's meta and snapshot records (:func:`read_insight`) and
one plane file (:func:`read_grid`), in the format of :mod:`tfcore.rundir.insight_format`.

Readers never trust these files: every field is checked, a bad line or file is skipped and
reported as a located :class:`~tfcore.rundir.schema.RunProblem`, and only what is new is read
(``stats.jsonl`` from the byte offset of the last read; a grid file once per version).
Decoded reads are kept keyed by the file's stat (at most ``MAX_CACHED`` grid files);
:func:`forget_insight` drops them.
"""

from __future__ import annotations

import os
import stat
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tfcore.rundir.insight_format import (
    MAX_GRID_BYTES,
    MAX_LINE,
    MAX_UNITS,
    META_FILE,
    STATS_FILE,
    InsightMeta,
    _Bad,
    _need,
    _rel,
    check_stats,
    grid_name,
    insight_dir,
    parse_meta,
)
from tfcore.rundir.schema import RunProblem, load_json_file, parse_json_line

MAX_LOCATED = 5
MAX_CACHED = 64           # grid files kept decoded


@dataclass(frozen=True)
class Insight:
    """Everything read of a run's ``insight/`` folder: its meta (None when absent or
    damaged), the valid snapshot records in step order, and located problems."""

    meta: InsightMeta | None
    records: tuple[dict, ...] = ()
    problems: tuple[RunProblem, ...] = ()
    skipped: int = 0

    @property
    def grid_steps(self) -> tuple[int, ...]:
        """Steps that wrote a plane file, in order."""
        return tuple(r["step"] for r in self.records if r.get("grid"))

    @property
    def recorded(self) -> bool:
        return self.meta is not None


@dataclass(frozen=True)
class InsightGrid:
    """One plane snapshot: the predictions over the grid and each drawn layer's units."""

    step: int
    conf: np.ndarray                       # (G, G)
    cls: np.ndarray | None                 # (G, G) or None
    neurons: dict = field(default_factory=dict)    # layer name -> (units, g, g)
    kernels: dict = field(default_factory=dict)    # layer name -> (inputs, units)


@dataclass
class _Stats:
    inode: int = -1
    offset: int = 0
    lines: int = 0
    records: tuple = ()
    problems: tuple = ()
    skipped: int = 0


_stats: dict[str, _Stats] = {}
_meta: dict[str, tuple[tuple, Any]] = {}
_grids: "OrderedDict[tuple, InsightGrid]" = OrderedDict()
_lock = threading.Lock()
counters = {"stats_bytes": 0, "grid_reads": 0}      # what tests look at


def _read_meta(root: Path) -> tuple[InsightMeta | None, RunProblem | None]:
    path = root / META_FILE
    try:
        st = os.stat(path)
    except OSError:
        return None, None                  # no insight recorded: not a problem
    stamp = (st.st_ino, st.st_size, st.st_mtime_ns)
    with _lock:
        cached = _meta.get(str(path))
    if cached and cached[0] == stamp:
        return cached[1]
    if not stat.S_ISREG(st.st_mode):
        result = (None, RunProblem(_rel(META_FILE), "", "unreadable", limit="not a file"))
    elif st.st_size > MAX_LINE:
        result = (None, RunProblem(_rel(META_FILE), "", "long", limit=str(MAX_LINE)))
    else:
        value, problem = load_json_file(path)
        if problem is not None:
            result = (None, RunProblem(_rel(META_FILE), problem.field, problem.reason,
                                       problem.value, problem.limit))
        else:
            try:
                result = (parse_meta(value), None)
            except _Bad as bad:
                result = (None, bad.problem(_rel(META_FILE)))
    with _lock:
        _meta[str(path)] = (stamp, result)
    return result


def _parse_line(raw: bytes, line: int) -> tuple[dict | None, RunProblem | None]:
    file = _rel(STATS_FILE)
    if len(raw) > MAX_LINE:
        return None, RunProblem(file, "", "long", limit=str(MAX_LINE), line=line)
    value, problem = parse_json_line(raw, file, line)
    if problem is not None:
        return None, problem
    try:
        return check_stats(value), None
    except _Bad as bad:
        return None, bad.problem(file, line)


def _read_stats(root: Path) -> _Stats:
    """Every valid stats record, parsing only the bytes appended since the last read."""
    path = root / STATS_FILE
    key = str(path)
    try:
        st = os.stat(path)
    except OSError:
        return _Stats()
    with _lock:
        entry = _stats.get(key)
        if entry is None or entry.inode != st.st_ino or st.st_size < entry.offset:
            entry = _stats[key] = _Stats(inode=st.st_ino)
    if not stat.S_ISREG(st.st_mode):
        return _Stats(problems=(RunProblem(_rel(STATS_FILE), "", "unreadable",
                                           limit="not a file"),))
    if st.st_size == entry.offset:
        return entry
    try:
        with open(path, "rb") as handle:
            handle.seek(entry.offset)
            data = handle.read(st.st_size - entry.offset)
    except OSError as exc:
        return _Stats(problems=(RunProblem(_rel(STATS_FILE), "", "unreadable",
                                           limit=type(exc).__name__),))
    end = data.rfind(b"\n")
    if end < 0:
        return entry                         # a torn line: wait for its end
    counters["stats_bytes"] += end + 1
    records, problems, skipped = list(entry.records), list(entry.problems), entry.skipped
    lines = data[:end + 1].split(b"\n")[:-1]
    for number, raw in enumerate(lines, start=entry.lines + 1):
        if not raw.strip():
            continue
        record, problem = _parse_line(raw, number)
        if record is not None:
            records.append(record)
        else:
            skipped += 1
            if len(problems) < MAX_LOCATED:
                problems.append(problem)
    records.sort(key=lambda r: r["step"])
    new = _Stats(entry.inode, entry.offset + end + 1, entry.lines + len(lines),
                 tuple(records), tuple(problems), skipped)
    with _lock:
        _stats[key] = new
    return new


def read_insight(run_dir: Path | str) -> Insight:
    """The run's insight (meta, records, problems); cheap when nothing changed."""
    root = insight_dir(run_dir)
    meta, problem = _read_meta(root)
    stats = _read_stats(root) if meta is not None else _Stats()
    problems = ((problem,) if problem else ()) + stats.problems
    return Insight(meta, stats.records, problems, stats.skipped)


def read_grid(run_dir: Path | str, step: int, meta: InsightMeta
              ) -> tuple[InsightGrid | None, RunProblem | None]:
    """The plane snapshot of ``step``, checked against ``meta`` (shapes, units, values);
    None and the located problem when the file is missing or damaged."""
    name = grid_name(step)
    path = insight_dir(run_dir) / name
    file = _rel(name)
    try:
        st = os.stat(path)
    except OSError:
        return None, RunProblem(file, "", "missing")
    key = (str(path), st.st_ino, st.st_size, st.st_mtime_ns)
    with _lock:
        if key in _grids:
            _grids.move_to_end(key)
            return _grids[key], None
    if not stat.S_ISREG(st.st_mode):
        return None, RunProblem(file, "", "unreadable", limit="not a file")
    if st.st_size > MAX_GRID_BYTES:
        return None, RunProblem(file, "", "long", limit=str(MAX_GRID_BYTES))
    if meta.plane is None:
        return None, RunProblem(file, "plane", "missing")
    try:
        grid = _decode(path, step, meta)
    except _Bad as bad:
        return None, bad.problem(file)
    except Exception as exc:  # noqa: BLE001 - numpy/zipfile raise many kinds on a bad file
        return None, RunProblem(file, "", "unreadable", limit=type(exc).__name__)
    counters["grid_reads"] += 1
    with _lock:
        _grids[key] = grid
        while len(_grids) > MAX_CACHED:
            _grids.popitem(last=False)
    return grid, None


def _array(data: Any, name: str, shape: tuple, integer: bool = False) -> np.ndarray:
    if name not in data.files:
        raise _Bad(name, None, "missing")
    values = data[name]
    if values.shape != shape:
        raise _Bad(name, list(values.shape), "choice", str(list(shape)))
    if integer:
        _need(values.dtype.kind in "iu", name, str(values.dtype), "int")
        return values.astype(np.int64)
    _need(values.dtype.kind == "f", name, str(values.dtype), "number")
    values = values.astype(np.float32)
    return values


def _decode(path: Path, step: int, meta: InsightMeta) -> InsightGrid:
    plane = meta.plane
    size, small = plane.size, plane.neuron_size
    with np.load(path, allow_pickle=False) as data:
        conf = _array(data, "conf", (size, size))
        cls = (_array(data, "cls", (size, size), integer=True)
               if plane.output != "value" else None)
        neurons, kernels = {}, {}
        for index, name in enumerate(meta.neurons):
            units = meta.layer(name).units or 0
            if units > MAX_UNITS:
                raise _Bad(f"n{index}", units, "high", str(MAX_UNITS))
            neurons[name] = _array(data, f"n{index}", (units, small, small))
            if f"w{index}" in data.files:
                inputs = data[f"w{index}"].shape[0] if data[f"w{index}"].ndim == 2 else -1
                _need(0 < inputs <= MAX_UNITS, f"w{index}", inputs, "int")
                kernels[name] = _array(data, f"w{index}", (inputs, units))
    return InsightGrid(step, conf, cls, neurons, kernels)


def forget_insight(run_dir: Path | str | None = None) -> None:
    """Drop cached reads (of one run, or all)."""
    with _lock:
        if run_dir is None:
            _stats.clear(), _meta.clear(), _grids.clear()
            return
        prefix = str(insight_dir(run_dir))
        for table in (_stats, _meta):
            for key in [k for k in table if k.startswith(prefix)]:
                table.pop(key)
        for key in [k for k in _grids if k[0].startswith(prefix)]:
            _grids.pop(key)
