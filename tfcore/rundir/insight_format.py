"""``insight/``'s format: what a run records of its insides while it trains, and its checks.

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

The worker writes these files through :class:`~tfcore.rundir.insight_writer.InsightWriter`;
:mod:`tfcore.rundir.insight_reader` reads them. Here are the file names, the limits a valid
file keeps, the parsed meta (:class:`InsightMeta`, :class:`LayerInfo`, :class:`Plane`) and
the checks (:func:`parse_meta`, :func:`check_stats`) that raise :class:`_Bad` naming the
field that breaks the schema, for the reader to report as a located problem.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tfcore.rundir.schema import RunProblem, quote

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


def insight_dir(run_dir: Path | str) -> Path:
    return Path(run_dir) / INSIGHT_DIR


def grid_name(step: int) -> str:
    return f"grid-{int(step):09d}.npz"


def _rel(name: str) -> str:
    return f"{INSIGHT_DIR}/{name}"


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
