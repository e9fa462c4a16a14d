"""Every neuron's picture (Playground's view): each drawn unit's output over the input plane
as a small heatmap, layers left to right, joined by the kernel's links; at most
``MAX_DRAWN`` units per layer and ``MAX_COLUMNS`` columns."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from tfcore.rundir import InsightGrid, InsightMeta
from ui.insight.chart_style import NORMAL, InsightStyle

MAX_DRAWN = 12           # units drawn per layer in the neuron picture
MAX_COLUMNS = 8          # layers drawn in the neuron picture (input included)
POSITIVE, NEGATIVE = "#0877bd", "#f59322"          # links: the kernel's sign
GAP_X, GAP_Y = 1.7, 0.3                            # neuron picture: gaps in box sides


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
