"""Altair charts of weights: histogram, heatmap of a 2-D kernel, grid of conv filters (and
of any stack of small images, such as feature maps).

Each function takes numpy data and translated axis titles and returns an ``alt.Chart``;
large tensors are reduced (block means, first filters) so a chart stays small.
"""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from tfcore.weights import Histogram
from ui.common import t

MAX_SIDE = 64        # heatmap cells per side at most
MAX_FILTERS = 32     # filters shown in the grid at most


def histogram_chart(hist: Histogram, value_title: str, count_title: str,
                    color: str = "#4c78a8", height: int = 220) -> alt.Chart:
    """Bars from bin edges and counts."""
    frame = pd.DataFrame(hist.rows())
    return alt.Chart(frame).mark_bar(color=color).encode(
        x=alt.X("start:Q", title=value_title, bin="binned"),
        x2="end:Q",
        y=alt.Y("count:Q", title=count_title),
        tooltip=[alt.Tooltip("start:Q", format=".4g", title=t("chart.tip.from")),
                 alt.Tooltip("end:Q", format=".4g", title=t("chart.tip.to")),
                 alt.Tooltip("count:Q", title=count_title)],
    ).properties(height=height)


def reduce_matrix(matrix: np.ndarray, max_side: int = MAX_SIDE) -> tuple[np.ndarray, int, int]:
    """Block-average a 2-D array to at most ``max_side`` per side; return it and the factors."""
    rows, cols = matrix.shape
    fr, fc = max(1, -(-rows // max_side)), max(1, -(-cols // max_side))
    if fr == 1 and fc == 1:
        return matrix, 1, 1
    pad_r, pad_c = (-rows) % fr, (-cols) % fc
    padded = np.pad(matrix.astype(np.float64), ((0, pad_r), (0, pad_c)),
                    constant_values=np.nan)
    blocks = padded.reshape(padded.shape[0] // fr, fr, padded.shape[1] // fc, fc)
    return np.nanmean(blocks, axis=(1, 3)), fr, fc


def heatmap_chart(matrix: np.ndarray, row_title: str, col_title: str,
                  value_title: str) -> alt.Chart:
    """A heatmap of a 2-D array (rows = inputs, columns = units), reduced if large."""
    reduced, _, _ = reduce_matrix(np.asarray(matrix))
    rows, cols = np.indices(reduced.shape)
    frame = pd.DataFrame({"row": rows.ravel(), "col": cols.ravel(),
                          "value": reduced.ravel()})
    return alt.Chart(frame).mark_rect().encode(
        x=alt.X("col:O", title=col_title, axis=alt.Axis(labels=False, ticks=False)),
        y=alt.Y("row:O", title=row_title, axis=alt.Axis(labels=False, ticks=False)),
        color=alt.Color("value:Q", title=value_title, scale=alt.Scale(scheme="redblue",
                                                                      domainMid=0)),
        tooltip=[alt.Tooltip("row:O", title=row_title), alt.Tooltip("col:O", title=col_title),
                 alt.Tooltip("value:Q", format=".4g", title=value_title)],
    ).properties(height=320)


def filter_frame(kernel: np.ndarray, channel: int = 0,
                 max_filters: int = MAX_FILTERS) -> pd.DataFrame:
    """Long-form data of a conv kernel ``(kh, kw, in, out)``: one input channel per filter."""
    kernel = np.asarray(kernel)
    channel = int(np.clip(channel, 0, kernel.shape[2] - 1))
    return image_frame(kernel[:, :, channel, :max_filters], "filter")


def image_frame(stack: np.ndarray, name: str) -> pd.DataFrame:
    """Long-form data of a stack of 2-D images ``(h, w, n)``: columns ``name``, row, col,
    value."""
    stack = np.asarray(stack)
    rows, cols = np.indices(stack.shape[:2])
    parts = [pd.DataFrame({name: i, "row": rows.ravel(), "col": cols.ravel(),
                           "value": stack[:, :, i].ravel()}) for i in range(stack.shape[2])]
    return pd.concat(parts, ignore_index=True)


def diverging_scale(limit: float) -> alt.Scale:
    """One color scale from ``-limit`` to ``limit``, white at zero."""
    limit = float(limit) or 1.0
    return alt.Scale(scheme="redblue", domain=[-limit, limit], domainMid=0, clamp=True)


def grid_chart(frame: pd.DataFrame, name: str, facet_title: str, value_title: str,
               scale: alt.Scale, columns: int = 8, size: int = 56) -> alt.Chart:
    """Small images (``image_frame``) side by side on one shared color scale."""
    return alt.Chart(frame).mark_rect().encode(
        x=alt.X("col:O", axis=None),
        y=alt.Y("row:O", axis=None),
        color=alt.Color("value:Q", title=value_title, scale=scale),
        tooltip=[alt.Tooltip(f"{name}:O", title=facet_title),
                 alt.Tooltip("row:O", title=t("chart.tip.row")),
                 alt.Tooltip("col:O", title=t("chart.tip.col")),
                 alt.Tooltip("value:Q", format=".4f", title=value_title)],
    ).properties(width=size, height=size).facet(
        facet=alt.Facet(f"{name}:O", title=facet_title), columns=columns)


def filter_grid_chart(kernel: np.ndarray, channel: int, filter_title: str,
                      value_title: str, columns: int = 8,
                      limit: float | None = None) -> alt.Chart:
    """Small images of the first filters of a conv kernel, one input channel, shared scale:
    greys over the values shown, or (``limit``) red-blue from ``-limit`` to ``limit``."""
    scale = alt.Scale(scheme="greys") if limit is None else diverging_scale(limit)
    return grid_chart(filter_frame(kernel, channel), "filter", filter_title, value_title,
                      scale, columns)


def before_after_histograms(before: Histogram, after: Histogram, before_title: str,
                            after_title: str, value_title: str,
                            count_title: str) -> tuple[alt.Chart, alt.Chart]:
    """Two histograms (before / after an initialization), each as wide as its column."""
    left = histogram_chart(before, value_title, count_title, "#9ca3af", 200).properties(
        title=before_title)
    right = histogram_chart(after, value_title, count_title, "#4c78a8", 200).properties(
        title=after_title)
    return left, right


def activation_chart(frame: pd.DataFrame, layer_title: str, value_title: str) -> alt.Chart:
    """Bars of the dead-unit share per layer application (``order``, ``layer``, ``dead``)."""
    return alt.Chart(frame).mark_bar(color="#e45756").encode(
        x=alt.X("label:N", title=layer_title, sort=None),
        y=alt.Y("dead:Q", title=value_title, scale=alt.Scale(domain=[0, 1])),
        tooltip=[alt.Tooltip("label:N", title=layer_title),
                 alt.Tooltip("dead:Q", format=".0%", title=value_title)],
    ).properties(height=220)
