"""``insight/``: what a run records of its insides while it trains, and its readers.

A training worker that records insight (every ``every`` steps, or on a time budget) writes:

``insight/meta.json``
    Written once when training starts: ``format``, ``every``, the ``layers`` (name, kind,
    units, activation, parameter count, variable paths), the input ``plane`` of a 2-D data
    set (axes ``lo``/``hi``, grid ``size`` and ``neuron_size``, the test ``points`` and their
    ``labels``, the ``output`` kind: ``classes``, ``binary`` or ``value``, ``class_names``
    and, for a built-in set, ``class_texts``: per class a catalog ``key`` and ``params``),
    the layers whose units are drawn on the plane (``neurons``) or why none are
    (``neurons_reason``: a message key and its params), and the ``probe`` batch size.
``insight/stats.jsonl``
    One line per snapshot: ``step``, ``epoch``, ``time``; ``hist`` (per variable: ``lo``,
    ``hi`` and the ``counts`` of equal-width bins, summing to the variable's size);
    ``grad_norm`` (per layer, the L2 norm of its gradients on the probe batch; null when
    not finite); ``dead`` (per ReLU layer, the share of units that output 0 for every probe
    example); ``grid`` (true when a plane file was written for this step). Optional:
    ``cost`` (the snapshot's seconds) and, per histogram, ``nonfinite`` (NaN and infinite
    values, left out of the counts: counts and it sum to the size).
``insight/grid-<step>.npz``
    Plain arrays (read with ``allow_pickle=False``; row ``i`` of a grid is the plane's
    ``i``-th y value, column ``j`` its ``j``-th x value, as ``np.meshgrid`` of
    :meth:`Plane.axes` lays them out): ``conf`` (G, G) the predicted class's
    probability (or the predicted value), ``cls`` (G, G) the predicted class (classifiers),
    ``n<i>`` (units, g, g) the outputs of ``neurons[i]``'s units over the plane, and
    ``w<i>`` (inputs, units) that layer's kernel at this step (the links' sign and size).

Readers never trust these files: every field is checked, a bad line or file is skipped and
reported as a located :class:`~tfcore.rundir.schema.RunProblem`, and only what is new is read
(``stats.jsonl`` from the byte offset of the last read; a grid file once per version).
"""

from __future__ import annotations

import json
import math
import os
import stat
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from tfcore.jsonio import _json_default
from tfcore.rundir.schema import RunProblem, json_problem, load_json_file, quote

INSIGHT_DIR = "insight"
META_FILE = "meta.json"
STATS_FILE = "stats.jsonl"
INSIGHT_FORMAT = 1
OUTPUTS = ("classes", "binary", "value")

MAX_GRID = 128            # plane grid side
MAX_POINTS = 5000         # test points drawn on the plane
MAX_LAYERS = 1000
MAX_UNITS = 4096          # units of one layer drawn on the plane
MAX_BINS = 512
MAX_LINE = 4 << 20        # bytes of one stats line
MAX_GRID_BYTES = 64 << 20  # bytes of one grid file
MAX_LOCATED = 5
MAX_CACHED = 64           # grid files kept decoded


def insight_dir(run_dir: Path | str) -> Path:
    return Path(run_dir) / INSIGHT_DIR


def grid_name(step: int) -> str:
    return f"grid-{int(step):09d}.npz"


def _rel(name: str) -> str:
    return f"{INSIGHT_DIR}/{name}"


# ---------------------------------------------------------------------------- writing
class InsightWriter:
    """The worker's side: the meta file once, one stats line and an optional grid file per
    snapshot. Files are written whole (a temporary file renamed into place), stats lines
    with one ``write`` each, so a reader never sees half a snapshot."""

    def __init__(self, run_dir: Path | str) -> None:
        self.root = insight_dir(run_dir)
        self.root.mkdir(parents=True, exist_ok=True)
        self._stats = open(self.root / STATS_FILE, "a", encoding="utf-8")

    def _replace(self, name: str, write) -> None:
        tmp = self.root / f".{name}.tmp"
        with open(tmp, "wb") as handle:
            write(handle)
        os.replace(tmp, self.root / name)

    def write_meta(self, meta: Mapping[str, Any]) -> None:
        body = dict(meta, format=INSIGHT_FORMAT)
        data = json.dumps(body, ensure_ascii=False, default=_json_default).encode("utf-8")
        self._replace(META_FILE, lambda handle: handle.write(data))

    def write_grid(self, step: int, conf: np.ndarray, cls: np.ndarray | None = None,
                   neurons: "list[np.ndarray] | tuple" = (),
                   kernels: "list[np.ndarray] | tuple" = ()) -> None:
        """The plane snapshot of ``step``: ``neurons[i]`` and ``kernels[i]`` belong to the
        meta's ``neurons[i]`` layer."""
        arrays = {"conf": np.asarray(conf, np.float16)}
        if cls is not None:
            arrays["cls"] = np.asarray(cls, np.int16)
        for index, values in enumerate(neurons):
            arrays[f"n{index}"] = np.asarray(values, np.float16)
        for index, values in enumerate(kernels):
            arrays[f"w{index}"] = np.asarray(values, np.float16)
        self._replace(grid_name(step), lambda handle: np.savez_compressed(handle, **arrays))

    def rewind(self, step: int) -> set[int]:
        """Forget the snapshots after ``step`` (a run resumed from its checkpoint at
        ``step`` trains those steps again): their stats lines (and damaged ones) leave
        ``stats.jsonl``, rewritten whole only when something leaves, and their grid files
        are removed. Returns the steps still recorded."""
        path = self.root / STATS_FILE
        try:
            lines = [raw for raw in path.read_bytes().split(b"\n") if raw.strip()]
        except OSError:
            lines = []
        kept, steps = [], set()
        for raw in lines:
            try:
                value = json.loads(raw)
                at = value["step"]
            except (ValueError, TypeError, KeyError):
                continue
            if _count(at) and at <= step:
                kept.append(raw)
                steps.add(at)
        if len(kept) != len(lines):
            self._stats.close()
            body = b"".join(raw + b"\n" for raw in kept)
            self._replace(STATS_FILE, lambda handle: handle.write(body))
            self._stats = open(path, "a", encoding="utf-8")
        for grid in self.root.glob("grid-*.npz"):
            at = grid.name[len("grid-"):-len(".npz")]
            if not at.isdigit() or int(at) not in steps:
                grid.unlink(missing_ok=True)
        return steps

    def append(self, record: Mapping[str, Any]) -> None:
        line = json.dumps(record, ensure_ascii=False, default=_json_default,
                          allow_nan=False) + "\n"
        self._stats.write(line)
        self._stats.flush()

    def close(self) -> None:
        if not self._stats.closed:
            self._stats.close()


# ---------------------------------------------------------------------------- checks
def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_num(value: Any) -> bool:
    return (isinstance(value, float) and math.isfinite(value)) or (
        _is_int(value) and abs(value) < 2 ** 53)


def _count(value: Any, low: int = 0, high: int = 2 ** 53) -> bool:
    return _is_int(value) and low <= value <= high


def _text(value: Any, high: int = 200) -> bool:
    return isinstance(value, str) and len(value) <= high


class _Bad(Exception):
    """One field of an insight file that breaks its schema (the reader reports it)."""

    def __init__(self, field: str, value: Any, reason: str = "type", limit: str = "") -> None:
        super().__init__(field)
        self.field, self.value, self.reason, self.limit = field, value, reason, limit

    def problem(self, file: str, line: int | None = None) -> RunProblem:
        return RunProblem(file, self.field, self.reason, quote(self.value), self.limit, line)


def _need(ok: bool, field: str, value: Any, kind: str = "object") -> None:
    if not ok:
        raise _Bad(field, value, "type", kind)


def _pair(value: Any, field: str) -> tuple[float, float]:
    _need(isinstance(value, list) and len(value) == 2 and all(map(_is_num, value)),
          field, value, "series")
    return float(value[0]), float(value[1])


@dataclass(frozen=True)
class LayerInfo:
    name: str
    kind: str
    units: int | None
    activation: str | None
    params: int
    variables: tuple[str, ...]


@dataclass(frozen=True)
class Plane:
    """The input plane of a 2-D data set: grid axes, test points, what the output is."""

    lo: tuple[float, float]
    hi: tuple[float, float]
    size: int
    neuron_size: int
    points: np.ndarray            # (n, 2)
    labels: np.ndarray            # (n,)
    output: str
    class_names: tuple[str, ...]
    class_texts: tuple[dict, ...] = ()     # per class: {"key", "params"} (a built-in set)

    def axes(self, size: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The grid's x and y coordinates (``size`` points each; the plane's by default)."""
        size = size or self.size
        return (np.linspace(self.lo[0], self.hi[0], size),
                np.linspace(self.lo[1], self.hi[1], size))


@dataclass(frozen=True)
class InsightMeta:
    every: int
    layers: tuple[LayerInfo, ...]
    plane: Plane | None
    neurons: tuple[str, ...]
    neurons_reason: dict | None
    probe: int

    def layer(self, name: str) -> LayerInfo | None:
        return next((item for item in self.layers if item.name == name), None)


def _layer(item: Any, at: str) -> LayerInfo:
    _need(isinstance(item, dict), at, item)
    name, kind = item.get("name"), item.get("kind")
    _need(_text(name), f"{at}.name", name, "string")
    _need(_text(kind), f"{at}.kind", kind, "string")
    units, activation = item.get("units"), item.get("activation")
    _need(units is None or _count(units, 0, 2 ** 40), f"{at}.units", units, "int")
    _need(activation is None or _text(activation), f"{at}.activation", activation, "string")
    params = item.get("params", 0)
    _need(_count(params), f"{at}.params", params, "int")
    variables = item.get("variables", [])
    _need(isinstance(variables, list) and len(variables) <= 64
          and all(_text(v, 1000) for v in variables), f"{at}.variables", variables, "names")
    return LayerInfo(name, kind, units, activation, params, tuple(variables))


def _plane(value: Any) -> Plane | None:
    if value is None:
        return None
    _need(isinstance(value, dict), "plane", value)
    lo, hi = _pair(value.get("lo"), "plane.lo"), _pair(value.get("hi"), "plane.hi")
    size, small = value.get("size"), value.get("neuron_size")
    if not _count(size, 2, MAX_GRID):
        raise _Bad("plane.size", size, "high" if _is_int(size) and size > MAX_GRID else "type",
                   str(MAX_GRID) if _is_int(size) and size > MAX_GRID else "int")
    _need(_count(small, 2, MAX_GRID), "plane.neuron_size", small, "int")
    points, labels = value.get("points", []), value.get("labels", [])
    _need(isinstance(points, list) and len(points) <= MAX_POINTS, "plane.points", points,
          "series")
    pts = np.array([_pair(p, "plane.points") for p in points], np.float32).reshape(-1, 2)
    _need(isinstance(labels, list) and len(labels) == len(points)
          and all(map(_is_num, labels)), "plane.labels", labels, "series")
    output = value.get("output")
    if output not in OUTPUTS:
        raise _Bad("plane.output", output, "choice", ", ".join(OUTPUTS))
    names = value.get("class_names", [])
    _need(isinstance(names, list) and len(names) <= 10_000 and all(map(_text, names)),
          "plane.class_names", names, "names")
    texts = value.get("class_texts", [])
    _need(isinstance(texts, list) and (not texts or len(texts) == len(names))
          and all(isinstance(item, dict) and _text(item.get("key"))
                  and isinstance(item.get("params", {}), dict) for item in texts),
          "plane.class_texts", texts, "series")
    return Plane(lo, hi, size, small, pts, np.asarray(labels, np.float32), output,
                 tuple(names), tuple({"key": item["key"], "params": dict(item.get("params", {}))}
                                     for item in texts))


def parse_meta(value: Any) -> InsightMeta:
    """A checked :class:`InsightMeta` of ``meta.json``'s value; raises :class:`_Bad`."""
    _need(isinstance(value, dict), "", value)
    fmt = value.get("format")
    _need(_is_int(fmt), "format", fmt, "int")
    if fmt > INSIGHT_FORMAT:
        raise _Bad("format", fmt, "newer", str(INSIGHT_FORMAT))
    every, probe = value.get("every", 0), value.get("probe", 0)
    _need(_count(every), "every", every, "int")
    _need(_count(probe), "probe", probe, "int")
    layers = value.get("layers", [])
    _need(isinstance(layers, list) and len(layers) <= MAX_LAYERS, "layers", layers, "series")
    infos = tuple(_layer(item, f"layers[{i}]") for i, item in enumerate(layers))
    neurons = value.get("neurons", [])
    known = {item.name for item in infos}
    _need(isinstance(neurons, list) and all(n in known for n in neurons), "neurons", neurons,
          "names")
    reason = value.get("neurons_reason")
    _need(reason is None or (isinstance(reason, dict) and _text(reason.get("key"))
                             and isinstance(reason.get("params", {}), dict)),
          "neurons_reason", reason)
    return InsightMeta(every, infos, _plane(value.get("plane")), tuple(neurons), reason,
                       probe)


def check_stats(value: Any) -> dict:
    """A checked stats record (the parsed line), or raises :class:`_Bad` naming the field."""
    _need(isinstance(value, dict), "", value)
    for name in ("step", "epoch"):
        _need(_count(value.get(name, 0)), name, value.get(name), "int")
    if "step" not in value:
        raise _Bad("step", None, "missing")
    _need(_is_num(value.get("time", 0)), "time", value.get("time"), "number")
    hist = value.get("hist", {})
    _need(isinstance(hist, dict), "hist", hist)
    for name, item in hist.items():
        at = f"hist.{name}"
        _need(isinstance(item, dict), at, item)
        counts = item.get("counts")
        _need(isinstance(counts, list) and 0 < len(counts) <= MAX_BINS
              and all(_count(c) for c in counts), f"{at}.counts", counts, "series")
        lo, hi = item.get("lo"), item.get("hi")
        _need(_is_num(lo) and _is_num(hi) and lo <= hi, f"{at}.lo", [lo, hi], "number")
    for group in ("grad_norm", "dead"):
        values = value.get(group, {})
        _need(isinstance(values, dict) and all(v is None or _is_num(v)
                                               for v in values.values()),
              group, values, "metrics")
    _need(isinstance(value.get("grid", False), bool), "grid", value.get("grid"), "bool")
    return value


# ---------------------------------------------------------------------------- reading
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
    try:
        value = json.loads(raw)
    except UnicodeDecodeError:
        return None, RunProblem(file, "", "binary", line=line)
    except json.JSONDecodeError as exc:
        return None, RunProblem(file, "", "json_col", limit=str(exc.colno), line=line)
    except (ValueError, RecursionError) as exc:
        return None, json_problem(file, exc, line)
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
