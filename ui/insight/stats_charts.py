"""The weights and gradients over steps (TensorBoard's views): percentile bands and
histograms of each variable, and one line per layer of the gradient norms or the dead-unit
shares; at most ``MAX_STEPS`` snapshots per series and ``MAX_LINES`` layers per chart."""

from __future__ import annotations

import math
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from tfcore.rundir import InsightMeta
from ui.common import STEP_AXIS
from ui.insight.chart_style import NORMAL, InsightStyle, axis_spec, legend_spec, spread, title_spec

MAX_STEPS = 200          # snapshots drawn per series (evenly spaced, the last kept)
MAX_LINES = 16           # layers per gradient-norm or dead-unit chart
TINY = 1e-12             # a zero gradient norm on the log axis
# TensorBoard's distribution bands: percentiles (basis points) drawn as nested areas.
BANDS = (0, 668, 1587, 3085, 5000, 6915, 8413, 9332, 10000)


def percentiles(counts: Sequence[int], lo: float, hi: float,
                points: Sequence[int] = BANDS) -> list[float]:
    """The values at ``points`` (basis points) of equal-width bins from ``lo`` to ``hi``,
    interpolated linearly inside a bin (TensorBoard's compressed histogram)."""
    counts = np.asarray(counts, dtype=float)
    total = counts.sum()
    if total <= 0 or hi <= lo:
        return [float(lo)] * len(points)
    edges = np.linspace(lo, hi, len(counts) + 1)
    ends = np.cumsum(counts)
    out = []
    for bp in points:
        target = total * bp / 10000
        index = int(np.argmax((ends >= target) & (counts > 0)))   # its bin: not empty
        before = ends[index] - counts[index]
        part = (target - before) / counts[index]
        out.append(float(edges[index] + part * (edges[index + 1] - edges[index])))
    return out


def pick_records(records: Sequence[Mapping], limit: int = MAX_STEPS) -> list[Mapping]:
    """At most ``limit`` records, evenly spaced over the run, the first and last kept."""
    return [records[i] for i in spread(len(records), limit)]


def hist_names(records: Sequence[Mapping], meta: InsightMeta) -> list[str]:
    """Variables with histograms, in the model's layer order."""
    seen: dict[str, None] = {}
    for record in records[-1:] + records[:1]:
        seen.update(dict.fromkeys(record.get("hist", {})))
    order = {v: i for i, v in enumerate(v for layer in meta.layers for v in layer.variables)}
    return sorted(seen, key=lambda name: (order.get(name, len(order)), name))


def distribution_frame(records: Sequence[Mapping], name: str) -> pd.DataFrame:
    """Per snapshot of ``name``: ``step`` and its percentiles ``p0`` ... ``p10000``."""
    rows = []
    for record in pick_records([r for r in records if name in r.get("hist", {})]):
        item = record["hist"][name]
        values = percentiles(item["counts"], item["lo"], item["hi"])
        rows.append({"step": record["step"], **{f"p{bp}": v for bp, v in zip(BANDS, values)}})
    return pd.DataFrame(rows, columns=["step", *(f"p{bp}" for bp in BANDS)])


def distribution_chart(frame: pd.DataFrame, title: str, titles: Mapping[str, str],
                       style: InsightStyle = NORMAL) -> dict:
    """Nested percentile bands over steps (min-max, 7-93, 16-84, 31-69 %) and the median:
    how a variable's distribution moves while it trains."""
    x = {"field": "step", "type": "quantitative", "title": titles["step"],
         "axis": axis_spec(style, tickCount=5, **STEP_AXIS),
         "scale": {"zero": False, "nice": False}}
    layers = []
    half = len(BANDS) // 2
    for depth in range(half):
        low, high = f"p{BANDS[depth]}", f"p{BANDS[-1 - depth]}"
        layers.append({"mark": {"type": "area", "opacity": 0.18 + 0.16 * depth,
                                "color": "#f57c00"},
                       "encoding": {"x": x, "y": {"field": low, "type": "quantitative",
                                                  "title": titles["value"],
                                                  "scale": {"zero": False},
                                                  "axis": axis_spec(style, tickCount=5)},
                                    "y2": {"field": high}}})
    median = f"p{BANDS[half]}"
    layers.append({"mark": {"type": "line", "color": "#8a3d00", "strokeWidth": style.line,
                            "point": len(frame) < 3},
                   "encoding": {"x": x, "y": {"field": median, "type": "quantitative"},
                                "tooltip": [{"field": "step", "type": "quantitative",
                                             "title": titles["step"]},
                                            {"field": median, "type": "quantitative",
                                             "title": titles["median"], "format": ".4g"},
                                            {"field": f"p{BANDS[0]}", "type": "quantitative",
                                             "title": titles["min"], "format": ".4g"},
                                            {"field": f"p{BANDS[-1]}", "type": "quantitative",
                                             "title": titles["max"], "format": ".4g"}]}})
    return {"data": {"name": "bands"}, "layer": layers, "title": title_spec(title, style),
            "height": style.chart, "datasets": {"bands": frame}}


def histogram_frame(record: Mapping, name: str) -> pd.DataFrame:
    """One snapshot's bins of ``name``: ``start``, ``end``, ``count``."""
    item = record.get("hist", {}).get(name)
    if item is None:
        return pd.DataFrame(columns=["start", "end", "count"])
    edges = np.linspace(item["lo"], item["hi"], len(item["counts"]) + 1)
    if item["hi"] <= item["lo"]:          # every value equal: one bar of some width
        edges = item["lo"] + np.linspace(-0.5, 0.5, len(item["counts"]) + 1) * (
            abs(item["lo"]) * 0.1 or 0.1)
    return pd.DataFrame({"start": edges[:-1], "end": edges[1:],
                         "count": np.asarray(item["counts"], np.int64)})


def histogram_chart(frame: pd.DataFrame, title: str, titles: Mapping[str, str],
                    style: InsightStyle = NORMAL) -> dict:
    """Bars of one snapshot's histogram."""
    return {"data": {"name": "bins"}, "mark": {"type": "rect", "color": "#4c78a8"},
            "encoding": {"x": {"field": "start", "type": "quantitative",
                               "title": titles["value"], "axis": axis_spec(style, tickCount=5),
                               "scale": {"zero": False}},
                         "x2": {"field": "end"},
                         "y": {"field": "count", "type": "quantitative",
                               "title": titles["count"],
                               "axis": axis_spec(style, tickCount=5, tickMinStep=1)},
                         "tooltip": [{"field": "start", "type": "quantitative",
                                      "format": ".4g", "title": titles["from"]},
                                     {"field": "end", "type": "quantitative",
                                      "format": ".4g", "title": titles["to"]},
                                     {"field": "count", "type": "quantitative",
                                      "title": titles["count"]}]},
            "title": title_spec(title, style), "height": style.chart,
            "datasets": {"bins": frame}}


def layer_order(records: Sequence[Mapping], meta: InsightMeta, group: str) -> list[str]:
    """Layers with values in ``group`` (``grad_norm`` or ``dead``), in the model's order,
    at most ``MAX_LINES`` (evenly spaced over the depth, first and last kept)."""
    seen: dict[str, None] = {}
    for record in records:
        seen.update(dict.fromkeys(record.get(group, {})))
    order = {layer.name: i for i, layer in enumerate(meta.layers)}
    names = sorted(seen, key=lambda n: (order.get(n, len(order)), n))
    return [names[i] for i in spread(len(names), MAX_LINES)]


def layer_frame(records: Sequence[Mapping], group: str, names: Sequence[str],
                floor: float | None = None) -> pd.DataFrame:
    """Long-form ``step``, ``layer``, ``depth``, ``value`` of one group over the snapshots;
    nulls left out, values below ``floor`` raised to it (a log axis)."""
    rows = []
    for record in pick_records(records):
        values = record.get(group, {})
        for depth, name in enumerate(names):
            value = values.get(name)
            if value is None or not math.isfinite(value):
                continue
            if floor is not None:
                value = max(float(value), floor)
            rows.append((record["step"], name, depth, float(value)))
    return pd.DataFrame(rows, columns=["step", "layer", "depth", "value"])


def layers_chart(frame: pd.DataFrame, names: Sequence[str], title: str,
                 titles: Mapping[str, str], style: InsightStyle = NORMAL,
                 log: bool = False, share: bool = False) -> dict:
    """One line per layer over steps, coloured by depth (shallow dark, deep light): the
    gradient norms (``log``) or the dead-unit shares (``share``: 0 to 100 %)."""
    scale: dict = {"type": "log"} if log else {"zero": True}
    axis = axis_spec(style, tickCount=5, grid=True)
    if share:
        scale["domain"] = [0, 1]
        axis["format"] = "%"
    return {"data": {"name": "layers"},
            "mark": {"type": "line", "strokeWidth": style.line, "point": len(frame) <= 40,
                     "clip": True},
            "encoding": {
                "x": {"field": "step", "type": "quantitative", "title": titles["step"],
                      "axis": axis_spec(style, tickCount=5, **STEP_AXIS),
                      "scale": {"zero": False}},
                "y": {"field": "value", "type": "quantitative", "title": titles["value"],
                      "scale": scale, "axis": axis},
                "color": {"field": "layer", "type": "ordinal", "sort": list(names),
                          "title": titles["layer"], "scale": {"scheme": "viridis"},
                          "legend": legend_spec(style, columns=4, symbolType="stroke")},
                "tooltip": [{"field": "layer", "title": titles["layer"]},
                            {"field": "step", "type": "quantitative",
                             "title": titles["step"]},
                            {"field": "value", "type": "quantitative",
                             "title": titles["value"], "format": ".3~%" if share else ".3e"}]},
            "title": title_spec(title, style), "height": style.chart,
            "datasets": {"layers": frame}}
