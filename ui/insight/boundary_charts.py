"""The decision boundary over the input plane (Playground's view): the predicted class (or
value) in every grid cell and the test points on top, at most ``MAX_POINTS`` of them."""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from tfcore.rundir import InsightGrid, InsightMeta
from ui.common import CLASS_COLORS, class_colors
from ui.insight.chart_style import NORMAL, InsightStyle, axis_spec, legend_spec, spread

MAX_POINTS = 1000        # test points drawn on the plane
PAD = 5                   # Vega's padding around a chart (px, each side)
TITLE_PAD = 4             # between an axis's labels and its title (px)
LEGEND_GAP = 6            # between the boundary's legend and its plot (px)


def plane_room(style: InsightStyle) -> tuple[int, int]:
    """The boundary chart's room (px) beside and above/below its square plot: the x2 axis
    with its title and the padding; the x1 axis with its title, the legend above the plot
    and the padding."""
    return (style.axis_x + TITLE_PAD + style.font + 2 * PAD,
            style.axis_y + TITLE_PAD + style.font + 2 * PAD + style.legend + LEGEND_GAP)


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
         "axis": axis_spec(style, grid=False, minExtent=style.axis_y, maxExtent=style.axis_y,
                       **_plane_ticks("width", style))}
    y = {"field": "y", "type": "quantitative", "title": titles["x2"],
         "scale": {"domain": [y_lo, y_hi], "nice": False, "zero": False},
         "axis": axis_spec(style, grid=False, minExtent=style.axis_x, maxExtent=style.axis_x,
                       **_plane_ticks("height", style))}
    if plane.output == "value":
        values = np.concatenate([frames["regions"]["value"], frames["points"]["label"]])
        low, high = float(np.nanmin(values)), float(np.nanmax(values))
        scale = {"scheme": "blueorange", "domain": [low, high if high > low else low + 1]}
        fill = {"field": "value", "type": "quantitative", "scale": scale,
                "title": titles["prediction"],
                "legend": legend_spec(style, direction="horizontal", titleOrient="left",
                                  gradientThickness=style.font, offset=LEGEND_GAP)}
        dot = {"field": "label", "type": "quantitative", "scale": scale, "legend": None}
    else:
        names = class_names(meta, grid, shown)
        scale = {"domain": names, "range": class_colors(len(names))}
        fill = {"field": "fill", "type": "nominal", "scale": None, "legend": None}
        dot = {"field": "label", "type": "nominal", "scale": scale, "title": titles["class"],
               "legend": legend_spec(style, orient="top", titleOrient="left",
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
