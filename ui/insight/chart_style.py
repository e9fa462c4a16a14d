"""What the insight charts share: their sizes (:class:`InsightStyle`, ``NORMAL`` and
``PRESENTER``), the axis, legend and title specs they draw with, and :func:`spread`, which
keeps every frame small.

The charts (:mod:`ui.insight.boundary_charts`, :mod:`ui.insight.network_charts`,
:mod:`ui.insight.stats_charts`) are pure data shaping (numpy and pandas in, small frames
out) and Vega-Lite specs written as dicts whose data sit in named ``datasets``, as the live
loss chart's (:func:`ui.training.charts.line_chart`): a new snapshot changes the data, not
the spec, so the browser redraws a live chart in place, and no Altair build or schema check
runs per snapshot (:mod:`ui.common.chart_cache`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


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


def axis_spec(style: InsightStyle, **extra) -> dict:
    return {"labelFontSize": style.font, "titleFontSize": style.font, **extra}


def legend_spec(style: InsightStyle, **extra) -> dict:
    return {"orient": "top", "labelFontSize": style.font, "titleFontSize": style.font,
            "labelLimit": 240, **extra}


def title_spec(text: str, style: InsightStyle) -> dict:
    return {"text": text, "fontSize": style.title_font, "anchor": "start"}


def spread(count: int, limit: int) -> np.ndarray:
    """At most ``limit`` indices of ``range(count)``, evenly spaced, first and last kept."""
    if count <= limit:
        return np.arange(count)
    return np.unique(np.linspace(0, count - 1, limit).round().astype(int))
