"""Charts of a run's insides: the decision boundary over the input plane and every neuron's
picture (Playground's views), and the weights and gradients over steps (TensorBoard's).

Pure data shaping (numpy and pandas in, small frames out) and Vega-Lite specs written as
dicts whose data sit in named ``datasets``, as the live loss chart's
(:func:`ui.training.charts.line_chart`): a new snapshot changes the data, not the spec, so
the browser redraws a live chart in place, and no Altair build or schema check runs per
snapshot (:mod:`ui.common.chart_cache`). Every frame is kept small: at most
``MAX_STEPS`` snapshots per series, ``MAX_POINTS`` test points, ``MAX_DRAWN`` units per
layer and ``MAX_LINES`` layers per chart.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from tfcore.rundir import InsightGrid, InsightMeta

MAX_STEPS = 200          # snapshots drawn per series (evenly spaced, the last kept)
MAX_POINTS = 1000        # test points drawn on the plane
MAX_DRAWN = 12           # units drawn per layer in the neuron picture
MAX_COLUMNS = 8          # layers drawn in the neuron picture (input included)
MAX_LINES = 16           # layers per gradient-norm or dead-unit chart
TINY = 1e-12             # a zero gradient norm on the log axis
# TensorBoard's distribution bands: percentiles (basis points) drawn as nested areas.
BANDS = (0, 668, 1587, 3085, 5000, 6915, 8413, 9332, 10000)
CLASS_COLORS = ("#0877bd", "#f59322", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
                "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")
POSITIVE, NEGATIVE = "#0877bd", "#f59322"          # links: the kernel's sign
GAP_X, GAP_Y = 1.7, 0.3                            # neuron picture: gaps in box sides


@dataclass(frozen=True)
class InsightStyle:
    """Sizes of the insight charts; ``PRESENTER`` reads on a projector. The boundary fills
    the width of its column (the half of the page, ``NORMAL``, or the whole of it,
    ``PRESENTER``), square, within the window's height (the page's CSS,
    :func:`ui.insight.panels.boundary_css`); its axes and legend take fixed room
    (``axis_x`` beside the plot, ``axis_y`` and ``legend`` above and below it), so the page
    knows how much taller than wide the chart is for its plot to be square. The neuron
    picture has fixed pixel sizes that fit the column at 1280 px."""

    plane: int = 320          # the boundary's side at least (px, the plot area)
    axis_x: int = 44          # the plane's x2 axis: ticks and labels (px)
    axis_y: int = 24          # the plane's x1 axis: ticks and labels (px)
    legend: int = 36          # the plane's legend above the plot (px, title and one row)
    font: int = 13
    title_font: int = 15
    point: int = 40
    box: int = 52             # one neuron picture's side at most (px)
    network_width: int = 390  # the neuron picture's widest (px)
    chart: int = 300          # a stats chart's height (px)
    line: float = 2.0
    stacked: bool = False     # charts one per row instead of two side by side


NORMAL = InsightStyle()
PRESENTER = InsightStyle(plane=480, axis_x=62, axis_y=32, legend=39, font=20, title_font=24,
                         point=110, box=80, network_width=780, chart=400, line=3.5,
                         stacked=True)
PAD = 5                   # Vega's padding around a chart (px, each side)
TITLE_PAD = 4             # between an axis's labels and its title (px)
LEGEND_GAP = 6            # between the boundary's legend and its plot (px)


def plane_room(style: InsightStyle) -> tuple[int, int]:
    """The boundary chart's room (px) beside and above/below its square plot: the x2 axis
    with its title and the padding; the x1 axis with its title, the legend above the plot
    and the padding."""
    return (style.axis_x + TITLE_PAD + style.font + 2 * PAD,
            style.axis_y + TITLE_PAD + style.font + 2 * PAD + style.legend + LEGEND_GAP)


def _axis(style: InsightStyle, **extra) -> dict:
    return {"labelFontSize": style.font, "titleFontSize": style.font, **extra}


def _legend(style: InsightStyle, **extra) -> dict:
    return {"orient": "top", "labelFontSize": style.font, "titleFontSize": style.font,
            "labelLimit": 240, **extra}


def _title(text: str, style: InsightStyle) -> dict:
    return {"text": text, "fontSize": style.title_font, "anchor": "start"}


def spread(count: int, limit: int) -> np.ndarray:
    """At most ``limit`` indices of ``range(count)``, evenly spaced, first and last kept."""
    if count <= limit:
        return np.arange(count)
    return np.unique(np.linspace(0, count - 1, limit).round().astype(int))


# ---------------------------------------------------------------------------- the plane
def class_names(meta: InsightMeta, grid: InsightGrid | None = None,
                shown: Sequence[str] = ()) -> list[str]:
    """The classes' names (``shown``: the plane's in the reader's language, else the
    plane's, else their numbers), as many as the labels and the grid's predictions need."""
    plane = meta.plane
    names = list(shown) if len(shown) == len(plane.class_names) else list(plane.class_names)
    count = int(np.max(plane.labels)) + 1 if len(plane.labels) else 0
    if grid is not None and grid.cls is not None and grid.cls.size:
        count = max(count, int(grid.cls.max()) + 1)
    if plane.output == "binary":
        count = max(count, 2)
    return names + [str(i) for i in range(len(names), count)]


def _tints(codes: np.ndarray, strength: np.ndarray, levels: int = 16) -> pd.Categorical:
    """Each cell's class colour mixed with white by ``strength`` (0 white, 1 the colour),
    in ``levels`` steps: opaque cells (no seams where half-transparent ones overlap) from a
    small set of colours."""
    steps = np.round(np.clip(strength, 0, 1) * (levels - 1)).astype(int)
    palette = []
    for color in CLASS_COLORS:
        rgb = np.array([int(color[i:i + 2], 16) for i in (1, 3, 5)], float)
        for level in range(levels):
            mix = 255 + (rgb - 255) * level / (levels - 1)
            palette.append("#%02x%02x%02x" % tuple(int(round(v)) for v in mix))
    index = (codes % len(CLASS_COLORS)) * levels + steps
    return pd.Categorical(np.asarray(palette)[index])


def boundary_frames(meta: InsightMeta, grid: InsightGrid,
                    shown: Sequence[str] = ()) -> dict[str, pd.DataFrame]:
    """The ``regions`` (one cell per grid point: ``ix``, ``iy``, the predicted ``class``
    and its ``fill``, paler where the model is less sure, or the predicted ``value``) and the test
    ``points`` (``x``, ``y``, their ``label``). ``conf[iy, ix]``: rows are x2. ``shown``:
    the class names in the reader's language (:func:`class_names`)."""
    plane = meta.plane
    size = grid.conf.shape[0]
    iy, ix = np.indices((size, size))
    regions = {"ix": ix.ravel().astype(np.int16), "iy": iy.ravel().astype(np.int16)}
    keep = spread(len(plane.points), MAX_POINTS)
    points = {"x": plane.points[keep, 0].astype(np.float32),
              "y": plane.points[keep, 1].astype(np.float32)}
    if plane.output == "value":
        regions["value"] = grid.conf.ravel().astype(np.float32)
        points["label"] = plane.labels[keep].astype(np.float32)
    else:
        names = class_names(meta, grid, shown)
        count = max(2, len(names))
        floor = 1.0 / count
        sure = np.clip((grid.conf.ravel() - floor) / (1.0 - floor), 0.0, 1.0)
        codes = np.clip(grid.cls.ravel(), 0, len(names) - 1)
        regions["class"] = pd.Categorical.from_codes(codes, names)
        regions["fill"] = _tints(codes, 0.12 + 0.7 * sure)
        points["label"] = pd.Categorical.from_codes(
            np.clip(plane.labels[keep].astype(int), 0, len(names) - 1), names)
    return {"regions": pd.DataFrame(regions), "points": pd.DataFrame(points)}


def _plane_ticks(side: str, style: InsightStyle) -> dict:
    """A plane axis's ticks: about one per four characters of its font along the drawn
    ``side`` (the chart's size changes with its column), no label beyond the plot (the
    chart's room for its axes is fixed: :func:`plane_room`)."""
    return {"tickCount": {"expr": f"max(3, floor({side} / {style.font * 4}))"},
            "labelFlush": True, "labelBound": True, "titlePadding": TITLE_PAD}


def boundary_chart(meta: InsightMeta, grid: InsightGrid, titles: Mapping[str, str],
                   style: InsightStyle = NORMAL, shown: Sequence[str] = ()) -> dict:
    """The predicted class over the plane (colour by class, paler where the model is less
    sure; colour by value for a regression) with the test points coloured by their label on
    top. Cells are opaque and stroked in their own colour, so no hairline seams show.
    ``titles``: ``x1``, ``x2``, ``class``, ``label``, ``prediction`` (translated);
    ``shown``: the class names, translated (:func:`class_names`)."""
    plane = meta.plane
    frames = boundary_frames(meta, grid, shown)
    size = grid.conf.shape[0]
    (x_lo, y_lo), (x_hi, y_hi) = plane.lo, plane.hi
    dx, dy = (x_hi - x_lo) / max(1, size - 1), (y_hi - y_lo) / max(1, size - 1)
    cells = [{"calculate": f"{x_lo} + (datum.ix - 0.5) * {dx}", "as": "x"},
             {"calculate": f"{x_lo} + (datum.ix + 0.5) * {dx}", "as": "x_end"},
             {"calculate": f"{y_lo} + (datum.iy - 0.5) * {dy}", "as": "y"},
             {"calculate": f"{y_lo} + (datum.iy + 0.5) * {dy}", "as": "y_end"}]
    # fixed room for the axes (labels, ticks) and the legend: the page sizes the chart so
    # that its plot is square (plane_room)
    x = {"field": "x", "type": "quantitative", "title": titles["x1"],
         "scale": {"domain": [x_lo, x_hi], "nice": False, "zero": False},
         "axis": _axis(style, grid=False, minExtent=style.axis_y, maxExtent=style.axis_y,
                       **_plane_ticks("width", style))}
    y = {"field": "y", "type": "quantitative", "title": titles["x2"],
         "scale": {"domain": [y_lo, y_hi], "nice": False, "zero": False},
         "axis": _axis(style, grid=False, minExtent=style.axis_x, maxExtent=style.axis_x,
                       **_plane_ticks("height", style))}
    if plane.output == "value":
        values = np.concatenate([frames["regions"]["value"], frames["points"]["label"]])
        low, high = float(np.nanmin(values)), float(np.nanmax(values))
        scale = {"scheme": "blueorange", "domain": [low, high if high > low else low + 1]}
        fill = {"field": "value", "type": "quantitative", "scale": scale,
                "title": titles["prediction"],
                "legend": _legend(style, direction="horizontal", titleOrient="left",
                                  gradientThickness=style.font, offset=LEGEND_GAP)}
        dot = {"field": "label", "type": "quantitative", "scale": scale, "legend": None}
    else:
        names = class_names(meta, grid, shown)
        scale = {"domain": names, "range": [CLASS_COLORS[i % len(CLASS_COLORS)]
                                            for i in range(len(names))]}
        fill = {"field": "fill", "type": "nominal", "scale": None, "legend": None}
        dot = {"field": "label", "type": "nominal", "scale": scale, "title": titles["class"],
               "legend": _legend(style, orient="top", titleOrient="left",
                                 offset=LEGEND_GAP)}
    regions = {"data": {"name": "regions"}, "transform": cells,
               "mark": {"type": "rect", "clip": True, "strokeWidth": 0.6},
               "encoding": {"x": x, "x2": {"field": "x_end"}, "y": y,
                            "y2": {"field": "y_end"}, "color": fill, "stroke": fill}}
    points = {"data": {"name": "points"},
              "mark": {"type": "circle", "size": style.point, "opacity": 1, "stroke": "white",
                       "strokeWidth": max(1.0, style.line / 2), "clip": True},
              "encoding": {"x": {**x, "field": "x"}, "y": {**y, "field": "y"}, "color": dot,
                           "tooltip": [{"field": "label", "title": titles["label"]},
                                       {"field": "x", "type": "quantitative",
                                        "title": titles["x1"], "format": ".3f"},
                                       {"field": "y", "type": "quantitative",
                                        "title": titles["x2"], "format": ".3f"}]}}
    return {"layer": [regions, points], "width": "container", "height": "container",
            "resolve": {"scale": {"color": "independent", "stroke": "independent"}},
            "autosize": {"type": "fit", "contains": "padding"},
            "padding": dict.fromkeys(("left", "top", "right", "bottom"), PAD),
            "datasets": frames,
            "config": {"view": {"stroke": None}}}


# ---------------------------------------------------------------------------- neurons
@dataclass(frozen=True)
class Column:
    """One column of the neuron picture: a layer (or the input) and its drawn units."""

    name: str
    title: str
    pictures: np.ndarray          # (units drawn, g, g), each scaled to [-1, 1]
    units: int                    # the layer's units (drawn or not)


def _scaled(values: np.ndarray) -> np.ndarray:
    """Each picture stretched from its lowest (-1) to its highest value (1), so a unit's
    pattern shows whatever its range (a softmax's or a ReLU's outputs are all >= 0); a
    flat picture is 0."""
    values = np.nan_to_num(np.asarray(values, np.float32))
    flat = values.reshape(len(values), -1)
    low, high = flat.min(axis=1), flat.max(axis=1)
    span = np.where(high > low, high - low, 1.0)
    scaled = (values - low[:, None, None]) / span[:, None, None] * 2 - 1
    return np.where((high > low)[:, None, None], scaled, 0.0).astype(np.float32)


def network_columns(meta: InsightMeta, grid: InsightGrid) -> list[Column]:
    """The input (x1 and x2 over the plane) and each drawn layer, in the model's order, at
    most ``MAX_COLUMNS`` (the output layer always kept) and ``MAX_DRAWN`` units each."""
    plane = meta.plane
    small = plane.neuron_size
    xs, ys = plane.axes(small)
    xx, yy = np.meshgrid(xs, ys)
    columns = [Column("", "x1 · x2", _scaled(np.stack([xx, yy])), 2)]
    names = [n for n in meta.neurons if n in grid.neurons]
    if len(names) > MAX_COLUMNS - 1:
        names = names[:MAX_COLUMNS - 2] + names[-1:]
    for name in names:
        values = grid.neurons[name]
        columns.append(Column(name, name, _scaled(values[:MAX_DRAWN]), len(values)))
    return columns


def _tops(columns: Sequence[Column]) -> tuple[list[np.ndarray], int]:
    """Each column's boxes' bottom y (top to bottom, centred) and the tallest column."""
    rows = max(len(c.pictures) for c in columns)
    pitch = 1 + GAP_Y
    bottoms = []
    for column in columns:
        count = len(column.pictures)
        offset = (rows - count) / 2
        bottoms.append(np.array([(rows - 1 - offset - i) * pitch for i in range(count)]))
    return bottoms, rows


def network_frames(meta: InsightMeta, grid: InsightGrid,
                   columns: Sequence[Column] | None = None) -> dict[str, pd.DataFrame]:
    """``pixels`` (``x``, ``y`` of each picture cell's corner, its ``v`` in [-1, 1], the
    ``layer`` and ``unit``), ``links`` (segment ends, the kernel's ``w``, its ``sign``)
    and column ``labels``, in picture units (a box is 1 x 1)."""
    columns = list(columns or network_columns(meta, grid))
    bottoms, rows = _tops(columns)
    pitch_x = 1 + GAP_X
    pixels = []
    for c, column in enumerate(columns):
        count, g = column.pictures.shape[0], column.pictures.shape[1]
        unit, i, j = np.indices((count, g, g))
        pixels.append(pd.DataFrame({
            "x": (c * pitch_x + j / g).ravel().astype(np.float32),
            "y": (bottoms[c][unit] + i / g).ravel().astype(np.float32),
            "v": column.pictures.ravel().astype(np.float32),
            "layer": np.full(unit.size, c, np.int16),
            "unit": unit.ravel().astype(np.int16)}))
    links = []
    for c in range(1, len(columns)):
        kernel = grid.kernels.get(columns[c].name)
        if kernel is None or kernel.shape[0] != columns[c - 1].units:
            continue               # a layer between them, or no kernel: no links drawn
        here, there = len(columns[c - 1].pictures), len(columns[c].pictures)
        a, b = np.indices((here, there))
        w = kernel[:here, :there].astype(np.float32)
        links.append(pd.DataFrame({
            "x": np.full(a.size, (c - 1) * pitch_x + 1, np.float32),
            "x_end": np.full(a.size, c * pitch_x, np.float32),
            "y": (bottoms[c - 1][a] + 0.5).ravel().astype(np.float32),
            "y_end": (bottoms[c][b] + 0.5).ravel().astype(np.float32),
            "w": w.ravel(), "size": np.abs(w).ravel(),
            "sign": np.where(w.ravel() >= 0, "+", "-")}))
    top = rows * (1 + GAP_Y)
    labels = pd.DataFrame({"x": [c * pitch_x + 0.5 for c in range(len(columns))],
                           "y": [top] * len(columns),
                           "text": [c.title if c.units == len(c.pictures)
                                    else f"{c.title} ({len(c.pictures)}/{c.units})"
                                    for c in columns]})
    empty = pd.DataFrame({k: pd.Series(dtype="float32")
                          for k in ("x", "x_end", "y", "y_end", "w", "size")})
    return {"pixels": pd.concat(pixels, ignore_index=True),
            "links": pd.concat(links, ignore_index=True) if links else empty.assign(sign=""),
            "labels": labels}


def network_chart(meta: InsightMeta, grid: InsightGrid, titles: Mapping[str, str],
                  style: InsightStyle = NORMAL) -> dict:
    """Every drawn unit's output over the plane as a small heatmap, layers left to right
    (input first, output last), joined by the kernel's links: blue positive, orange
    negative, wider for a larger ``|w|``. ``titles``: ``value``, ``weight``."""
    columns = network_columns(meta, grid)
    frames = network_frames(meta, grid, columns)
    rows = max(len(c.pictures) for c in columns)
    span_x = len(columns) + (len(columns) - 1) * GAP_X
    span_y = rows * (1 + GAP_Y) + 0.9                   # room for the column titles
    box = min(style.box, style.network_width / span_x)
    g = columns[0].pictures.shape[1]
    x = {"field": "x", "type": "quantitative", "axis": None,
         "scale": {"domain": [0, span_x], "nice": False, "zero": False}}
    y = {"field": "y", "type": "quantitative", "axis": None,
         "scale": {"domain": [-GAP_Y, span_y], "nice": False, "zero": False}}
    peak = float(frames["links"]["size"].max()) if len(frames["links"]) else 1.0
    links = {"data": {"name": "links"}, "mark": {"type": "rule", "opacity": 0.75},
             "encoding": {"x": x, "y": y, "x2": {"field": "x_end"}, "y2": {"field": "y_end"},
                          "color": {"field": "sign", "type": "nominal", "legend": None,
                                    "scale": {"domain": ["+", "-"],
                                              "range": [POSITIVE, NEGATIVE]}},
                          "strokeWidth": {"field": "size", "type": "quantitative",
                                          "legend": None,
                                          "scale": {"domain": [0, peak or 1.0],
                                                    "range": [0.3, style.line * 2.5]}},
                          "tooltip": [{"field": "w", "type": "quantitative",
                                       "title": titles["weight"], "format": ".3f"}]}}
    shade = {"field": "v", "type": "quantitative", "legend": None,
             "scale": {"domain": [-1, 1], "range": [NEGATIVE, "#f7f7f7", POSITIVE]}}
    pixels = {"data": {"name": "pixels"},
              "transform": [{"calculate": f"datum.x + {1 / g}", "as": "x_end"},
                            {"calculate": f"datum.y + {1 / g}", "as": "y_end"}],
              "mark": {"type": "rect", "strokeWidth": 0.6},
              "encoding": {"x": x, "y": y, "x2": {"field": "x_end"}, "y2": {"field": "y_end"},
                           "color": shade, "stroke": shade,
                           "tooltip": [{"field": "unit", "type": "quantitative",
                                        "title": titles["unit"]},
                                       {"field": "v", "type": "quantitative",
                                        "title": titles["value"], "format": ".2f"}]}}
    labels = {"data": {"name": "labels"},
              "mark": {"type": "text", "fontSize": style.font, "baseline": "bottom",
                       "dy": -2, "limit": box * (1 + GAP_X)},
              "encoding": {"x": x, "y": y, "text": {"field": "text"}}}
    return {"layer": [links, pixels, labels], "width": round(box * span_x),
            "height": round(box * span_y), "autosize": {"type": "pad"}, "datasets": frames,
            "config": {"view": {"stroke": None}}}


# ---------------------------------------------------------------------------- statistics
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
         "axis": _axis(style, tickCount=5), "scale": {"zero": False, "nice": False}}
    layers = []
    half = len(BANDS) // 2
    for depth in range(half):
        low, high = f"p{BANDS[depth]}", f"p{BANDS[-1 - depth]}"
        layers.append({"mark": {"type": "area", "opacity": 0.18 + 0.16 * depth,
                                "color": "#f57c00"},
                       "encoding": {"x": x, "y": {"field": low, "type": "quantitative",
                                                  "title": titles["value"],
                                                  "scale": {"zero": False},
                                                  "axis": _axis(style, tickCount=5)},
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
    return {"data": {"name": "bands"}, "layer": layers, "title": _title(title, style),
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
                               "title": titles["value"], "axis": _axis(style, tickCount=5),
                               "scale": {"zero": False}},
                         "x2": {"field": "end"},
                         "y": {"field": "count", "type": "quantitative",
                               "title": titles["count"],
                               "axis": _axis(style, tickCount=5, tickMinStep=1)},
                         "tooltip": [{"field": "start", "type": "quantitative",
                                      "format": ".4g", "title": titles["from"]},
                                     {"field": "end", "type": "quantitative",
                                      "format": ".4g", "title": titles["to"]},
                                     {"field": "count", "type": "quantitative",
                                      "title": titles["count"]}]},
            "title": _title(title, style), "height": style.chart,
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
    axis = _axis(style, tickCount=5, grid=True)
    if share:
        scale["domain"] = [0, 1]
        axis["format"] = "%"
    return {"data": {"name": "layers"},
            "mark": {"type": "line", "strokeWidth": style.line, "point": len(frame) <= 40,
                     "clip": True},
            "encoding": {
                "x": {"field": "step", "type": "quantitative", "title": titles["step"],
                      "axis": _axis(style, tickCount=5), "scale": {"zero": False}},
                "y": {"field": "value", "type": "quantitative", "title": titles["value"],
                      "scale": scale, "axis": axis},
                "color": {"field": "layer", "type": "ordinal", "sort": list(names),
                          "title": titles["layer"], "scale": {"scheme": "viridis"},
                          "legend": _legend(style, columns=4, symbolType="stroke")},
                "tooltip": [{"field": "layer", "title": titles["layer"]},
                            {"field": "step", "type": "quantitative",
                             "title": titles["step"]},
                            {"field": "value", "type": "quantitative",
                             "title": titles["value"], "format": ".3~%" if share else ".3e"}]},
            "title": _title(title, style), "height": style.chart,
            "datasets": {"layers": frame}}
