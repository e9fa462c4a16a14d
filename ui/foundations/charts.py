"""Altair charts of the foundations labs, drawn from the engine's plain data.

Every function takes arrays plus already-translated axis titles and returns a chart;
nothing here calls TensorFlow.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import altair as alt
import numpy as np
import pandas as pd

from ui.common import STEP_AXIS

MAX_POINTS = 600


def _thin(n: int) -> np.ndarray:
    """Indices of at most MAX_POINTS evenly spread points out of ``n`` (last one kept)."""
    if n <= MAX_POINTS:
        return np.arange(n)
    return np.unique(np.linspace(0, n - 1, MAX_POINTS).astype(int))


def tangent_chart(xs, ys, tangent, x0: float, y0: float, labels: Mapping[str, str]) -> alt.Chart:
    """The function curve, its tangent at ``x0`` and the point itself."""
    frame = pd.DataFrame({"x": np.concatenate([xs, xs]),
                          "y": np.concatenate([ys, tangent]),
                          "curve": [labels["function"]] * len(xs) + [labels["tangent"]] * len(xs)})
    low, high = float(np.min(ys)), float(np.max(ys))
    pad = (high - low) * 0.15 + 1e-3
    frame = frame[(frame.y >= low - pad) & (frame.y <= high + pad)]
    lines = alt.Chart(frame).mark_line().encode(
        x=alt.X("x:Q", title=labels["x"]),
        y=alt.Y("y:Q", title=labels["y"], scale=alt.Scale(domain=[low - pad, high + pad])),
        color=alt.Color("curve:N", title=None),
        strokeDash=alt.StrokeDash("curve:N", legend=None))
    point = alt.Chart(pd.DataFrame({"x": [x0], "y": [y0]})).mark_point(
        filled=True, size=90, color="black").encode(x="x:Q", y="y:Q")
    return (lines + point).properties(height=320)


def loss_chart(losses: np.ndarray, labels: Mapping[str, str]) -> alt.Chart:
    """Loss per step (log scale), thinned to at most MAX_POINTS points."""
    idx = _thin(len(losses))
    frame = pd.DataFrame({"step": idx + 1, "loss": np.maximum(losses[idx], 1e-12)})
    return alt.Chart(frame).mark_line().encode(
        x=alt.X("step:Q", title=labels["step"], axis=alt.Axis(**STEP_AXIS)),
        y=alt.Y("loss:Q", title=labels["loss"], scale=alt.Scale(type="log")),
    ).properties(height=260)


def params_chart(history: Mapping[str, np.ndarray], targets: Mapping[str, Sequence[float]],
                 labels: Mapping[str, str]) -> alt.Chart:
    """Each parameter value per step, with the scenario's final value as a dashed rule."""
    rows, rules = [], []
    for name, values in history.items():
        values = np.asarray(values).reshape(len(values), -1)
        idx = _thin(len(values))
        for j in range(values.shape[1]):
            label = name if values.shape[1] == 1 else f"{name}[{j}]"
            rows.append(pd.DataFrame({"step": idx + 1, "value": values[idx, j],
                                      "param": label}))
            target = list(targets.get(name, ()))
            if j < len(target):
                rules.append({"param": label, "value": target[j]})
    frame = pd.concat(rows) if rows else pd.DataFrame(columns=["step", "value", "param"])
    lines = alt.Chart(frame).mark_line().encode(
        x=alt.X("step:Q", title=labels["step"], axis=alt.Axis(**STEP_AXIS)),
        y=alt.Y("value:Q", title=labels["value"]),
        color=alt.Color("param:N", title=labels["param"]))
    if not rules:
        return lines.properties(height=260)
    rule = alt.Chart(pd.DataFrame(rules)).mark_rule(strokeDash=[4, 4]).encode(
        y="value:Q", color=alt.Color("param:N"))
    return (lines + rule).properties(height=260)


def fit_chart(x: np.ndarray, y: np.ndarray, line_x: np.ndarray, line_y: np.ndarray,
              labels: Mapping[str, str]) -> alt.Chart:
    """Data points and the fitted line."""
    points = alt.Chart(pd.DataFrame({"x": x.ravel(), "y": y.ravel()})).mark_point(
        filled=True, size=80).encode(x=alt.X("x:Q", title=labels["x"]),
                                     y=alt.Y("y:Q", title=labels["y"]))
    line = alt.Chart(pd.DataFrame({"x": line_x, "y": line_y})).mark_line(color="orange") \
        .encode(x="x:Q", y="y:Q")
    return (points + line).properties(height=280)


def prediction_chart(target: np.ndarray, prediction: np.ndarray,
                     labels: Mapping[str, str]) -> alt.Chart:
    """Targets and predictions per example, side by side (M2)."""
    n = len(target.ravel())
    frame = pd.DataFrame({"example": list(range(1, n + 1)) * 2,
                          "value": np.concatenate([target.ravel(), prediction.ravel()]),
                          "kind": [labels["target"]] * n + [labels["prediction"]] * n})
    return alt.Chart(frame).mark_bar().encode(
        x=alt.X("example:O", title=labels["example"]),
        xOffset="kind:N", y=alt.Y("value:Q", title=labels["value"]),
        color=alt.Color("kind:N", title=None)).properties(height=260)


def label_order_chart(positions, labels_, batch, titles: Mapping[str, str]) -> alt.Chart:
    """Label of each element in the order the pipeline yields it, colored by batch parity."""
    frame = pd.DataFrame({"position": positions, "label": labels_,
                          "batch": batch, "parity": (np.asarray(batch) % 2).astype(str)})
    return alt.Chart(frame).mark_circle(size=30).encode(
        x=alt.X("position:Q", title=titles["position"]),
        y=alt.Y("label:O", title=titles["label"], sort="descending"),
        color=alt.Color("parity:N", legend=None),
        tooltip=[alt.Tooltip("position:Q", title=titles["position"]),
                 alt.Tooltip("label:O", title=titles["label"]),
                 alt.Tooltip("batch:Q", title=titles["batch"])]).properties(height=260)


def composition_chart(composition: np.ndarray, titles: Mapping[str, str]) -> alt.Chart:
    """Heat map: count of each class in each batch."""
    b, c = composition.shape
    frame = pd.DataFrame({"batch": np.repeat(np.arange(b), c), "label": np.tile(np.arange(c), b),
                          "count": composition.ravel()})
    return alt.Chart(frame).mark_rect().encode(
        x=alt.X("batch:O", title=titles["batch"]), y=alt.Y("label:O", title=titles["label"]),
        color=alt.Color("count:Q", title=titles["count"]),
        tooltip=[alt.Tooltip("batch:O", title=titles["batch"]),
                 alt.Tooltip("label:O", title=titles["label"]),
                 alt.Tooltip("count:Q", title=titles["count"])]).properties(height=260)


def throughput_chart(names: Sequence[str], per_second: Sequence[float],
                     titles: Mapping[str, str]) -> alt.Chart:
    """Elements per second of each pipeline variant."""
    frame = pd.DataFrame({"variant": list(names), "rate": list(per_second)})
    return alt.Chart(frame).mark_bar().encode(
        x=alt.X("rate:Q", title=titles["rate"]),
        y=alt.Y("variant:N", title=titles["variant"], sort=None),
        tooltip=[alt.Tooltip("variant:N", title=titles["variant"]),
                 alt.Tooltip("rate:Q", format=",.0f", title=titles["rate"])]).properties(
                     height=180)
