"""Pure data shaping and altair charts for the live training panel.

Series are kept as numpy-friendly column lists; every drawn series is smoothed on its
full length (TensorBoard's smoothing, :func:`tfcore.runs.smooth`), then decimated to at
most ``MAX_POINTS`` by keeping each bucket's minimum and maximum (spikes survive), so
100,000 logged steps draw as fast as 1,000.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Iterable, Mapping

import altair as alt
import numpy as np
import pandas as pd

from tfcore.runs import smooth
from ui.common import STEP_AXIS, class_color, metric_label

MAX_POINTS = 2000
SKIP = {"step", "epoch", "time", "elapsed", "split", "samples_per_sec"}


@dataclass
class SeriesBuffer:
    """Every record of one run seen so far, as columns per split (grows incrementally)."""

    run_id: str
    offset: int = 0
    columns: dict = field(default_factory=dict)   # split -> {column -> list}

    def add(self, records: Iterable[Mapping]) -> int:
        """Append records; returns how many were added."""
        count = 0
        for record in records:
            split = record.get("split", "train")
            cols = self.columns.setdefault(split, {})
            n = len(cols.get("step", []))
            for key, value in record.items():
                if key == "split":
                    continue
                column = cols.get(key)
                if column is None:                # a new key: pad its past with NaN
                    column = cols[key] = [math.nan] * n
                column.append(math.nan if value is None else value)
            if len(cols) > len(record) - 1:       # keys missing in this record
                for column in cols.values():
                    if len(column) < n + 1:
                        column.append(math.nan)
            count += 1
        return count

    def names(self) -> list[str]:
        """Loss first, then numeric metric names present in the train or val records."""
        found: list[str] = []
        for split in ("train", "val"):
            for key, column in self.columns.get(split, {}).items():
                numeric = isinstance(column[-1], (int, float)) and not isinstance(column[-1], bool)
                if key not in SKIP and key not in found and numeric:
                    found.append(key)
        return sorted(found, key=lambda k: (k != "loss", k))

    def size(self, split: str = "train") -> int:
        return len(self.columns.get(split, {}).get("step", []))

    def column(self, split: str, name: str) -> np.ndarray:
        return np.asarray(self.columns.get(split, {}).get(name, []), dtype=float)


def downsample(x: np.ndarray, y: np.ndarray,
               max_points: int = MAX_POINTS) -> tuple[np.ndarray, np.ndarray]:
    """At most ``max_points`` of (x, y), in order: the first and last point and, in each of
    ``(max_points - 2) // 2`` equal buckets, the point with the smallest and the one with the
    largest y, so spikes survive (min/max decimation). Values are never averaged."""
    x, y = np.asarray(x), np.asarray(y, dtype=float)
    n = len(x)
    if n <= max_points:
        return x, y
    buckets = max(1, (max_points - 2) // 2)
    size = math.ceil(n / buckets)
    buckets = math.ceil(n / size)
    pad = buckets * size - n
    finite = np.isfinite(y)
    low = np.pad(np.where(finite, y, np.inf), (0, pad), constant_values=np.inf)
    high = np.pad(np.where(finite, y, -np.inf), (0, pad), constant_values=-np.inf)
    starts = np.arange(buckets) * size
    picks = np.concatenate([[0, n - 1], starts + low.reshape(buckets, size).argmin(axis=1),
                            starts + high.reshape(buckets, size).argmax(axis=1)])
    index = np.unique(picks[picks < n])
    return x[index], y[index]


def step_frame(buffer: SeriesBuffer, name: str, smoothing: float,
               labels: Mapping[str, str]) -> pd.DataFrame:
    """Long-form frame (step, value, series) of one quantity: train raw, train smoothed,
    val; each series at most ``MAX_POINTS`` points."""
    frames = []
    steps = buffer.column("train", "step")
    values = buffer.column("train", name)
    if len(values):
        series = [("train", values)]
        if smoothing > 0:
            series.append(("smoothed", smooth(values, smoothing)))
        for key, ys in series:
            xs, yv = downsample(steps, ys)
            frames.append(pd.DataFrame({"step": xs, "value": yv, "series": labels[key]}))
    val = buffer.column("val", name)
    if len(val):
        frames.append(pd.DataFrame({"step": buffer.column("val", "step"), "value": val,
                                    "series": labels["val"]}))
    if not frames:
        return pd.DataFrame(columns=["step", "value", "series"])
    frame = pd.concat(frames, ignore_index=True)
    return frame[np.isfinite(frame["value"].astype(float))]


def epoch_frame(buffer: SeriesBuffer, name: str, labels: Mapping[str, str]) -> pd.DataFrame:
    """Per-epoch means of the train records and the val value of each epoch."""
    frames = []
    train = pd.DataFrame({"epoch": buffer.column("train", "epoch"),
                          "value": buffer.column("train", name)})
    if len(train):
        means = train.groupby("epoch", as_index=False)["value"].mean()
        frames.append(means.assign(series=labels["train"]))
    val = pd.DataFrame({"epoch": buffer.column("val", "epoch"),
                        "value": buffer.column("val", name)})
    if len(val):
        frames.append(val.groupby("epoch", as_index=False)["value"].last()
                      .assign(series=labels["val"]))
    if not frames:
        return pd.DataFrame(columns=["epoch", "value", "series"])
    frame = pd.concat(frames, ignore_index=True)
    return frame[np.isfinite(frame["value"].astype(float))]


@dataclass(frozen=True)
class ChartStyle:
    """Sizes of a live chart; ``PRESENTER`` is large enough to read on a projector.
    ``height`` is the whole chart's (Streamlit fits title, axes and legend inside it)."""

    height: int = 340
    font: int = 12
    title_font: int = 14
    line: float = 2.0
    point: int = 16


NORMAL = ChartStyle()
PRESENTER = ChartStyle(height=580, font=20, title_font=26, line=4.0, point=60)
BOUNDED = ("acc", "auc", "precision", "recall")     # metrics that live in [0, 1]
RAW_COLOR, SMOOTH_COLOR, VAL_COLOR = "#9ecae9", "#1f77b4", "#ff7f0e"


def bounded(name: str) -> bool:
    """Whether a metric is a fraction in [0, 1] (accuracy and friends)."""
    return any(word in name for word in BOUNDED)


def y_domain(name: str, values: np.ndarray, log_scale: bool = False) -> list[float] | None:
    """The y range a chart of ``name`` shows: [0, 1] for fractions that stay inside it,
    else the data's range with 5 % margin (never below 0 for non-negative data); for a
    log scale the positive range. None when there is nothing finite to draw."""
    values = np.asarray(values, dtype=float)
    values = values[np.isfinite(values) & ((values > 0) if log_scale else True)]
    if not len(values):
        return None
    low, high = float(values.min()), float(values.max())
    if log_scale:
        return [low, high] if high > low else [low / 2, high * 2]
    # float32 rounding (and runs recorded before rates were computed per batch: 1.000003)
    if bounded(name) and low >= -1e-4 and high <= 1 + 1e-4:
        return [0.0, 1.0]
    margin = 0.05 * (high - low) if high > low else (0.05 * abs(high) or 0.5)
    bottom = low - margin
    if low >= 0 > bottom:
        bottom = 0.0
    return [bottom, high + margin]


def series_colors(labels: Mapping[str, str], smoothing: float) -> dict[str, str]:
    """Series label -> colour: raw train light (behind), smoothed train dark, validation
    orange; without smoothing the raw train series is the dark one."""
    return {labels["train"]: RAW_COLOR if smoothing > 0 else SMOOTH_COLOR,
            labels["smoothed"]: SMOOTH_COLOR, labels["val"]: VAL_COLOR}


def line_chart(frame: pd.DataFrame, x: str, title: str, log_scale: bool, x_title: str,
               style: ChartStyle = NORMAL, colors: Mapping[str, str] | None = None,
               behind: str | None = None) -> dict:
    """Lines of the ``value`` column by ``series``; the y axis fits the data (fractions:
    [0, 1]) with ticks and a title. ``title`` is the Keras metric name; the chart shows its
    translated label (:func:`ui.common.metric_label`). ``colors`` maps series labels to
    colours; the series named ``behind`` (the raw train values) is drawn thin, under the others.

    A Vega-Lite spec written as a dict (no Altair: building and validating an Altair chart
    cost tens of milliseconds per new point, bench/bench_sessions.py), its data in the
    named datasets ``under`` and ``over`` (see :func:`ui.common.cached_chart`)."""
    data = frame[frame["value"] > 0] if log_scale else frame
    domain = y_domain(title, data["value"], log_scale)
    title = metric_label(title)
    scale: dict = {"type": "log" if log_scale else "linear", "zero": False,
                   "nice": not log_scale and domain != [0.0, 1.0]}
    if domain:
        scale["domain"] = domain
    legend = {"orient": "top", "labelFontSize": style.font, "symbolStrokeWidth": style.line,
              "symbolType": "stroke", "symbolSize": style.font * 20}
    color: dict = {"field": "series", "type": "nominal", "title": None, "legend": legend}
    if colors:
        color["scale"] = {"domain": list(colors), "range": list(colors.values())}
    axis = {"labelFontSize": style.font, "titleFontSize": style.font, "tickCount": 6}
    encoding = {
        "x": {"field": x, "type": "quantitative", "title": x_title,
              "axis": dict(axis, **(STEP_AXIS if x in ("step", "epoch") else {})),
              "scale": {"zero": False, "nice": True}},
        "y": {"field": "value", "type": "quantitative", "title": title, "scale": scale,
              "axis": {"grid": True, **axis}},
        "color": color,
        "tooltip": [{"field": x, "type": "quantitative", "title": x_title},
                    {"field": "series", "type": "nominal", "title": " "},
                    {"field": "value", "type": "quantitative", "format": ".5g",
                     "title": title}],
    }
    under = data[data["series"] == behind] if behind else data.iloc[:0]
    over = data[data["series"] != behind] if behind else data
    points = {"size": style.point} if len(over) < 60 else False
    layers, datasets = [], {}
    if len(under):
        layers.append({"data": {"name": "under"}, "encoding": encoding,
                       "mark": {"type": "line", "strokeWidth": max(1.0, style.line / 2),
                                "clip": True}})
        datasets["under"] = under
    layers.append({"data": {"name": "over"}, "encoding": encoding,
                   "mark": {"type": "line", "point": points, "strokeWidth": style.line,
                            "clip": True}})
    datasets["over"] = over
    return {"layer": layers, "title": {"text": title, "fontSize": style.title_font},
            "height": style.height, "datasets": datasets}


def confusion_chart(matrix: np.ndarray, names: list[str], titles: Mapping[str, str],
                    style: ChartStyle = NORMAL) -> alt.Chart:
    """Counts of (true, predicted) classes; ``titles``: ``true``, ``pred`` and ``count`` (the
    legend's) in the page's language. The counts are written in the cells in a size a room
    can read, white on the dark cells."""
    rows = [{"true": names[i], "pred": names[j], "count": int(matrix[i, j])}
            for i in range(matrix.shape[0]) for j in range(matrix.shape[1])]
    frame = pd.DataFrame(rows)
    half = max(1, int(matrix.max())) / 2
    axis = alt.Axis(labelFontSize=style.font, titleFontSize=style.font)
    base = alt.Chart(frame).encode(
        x=alt.X("pred:N", title=titles["pred"], sort=names, axis=axis),
        y=alt.Y("true:N", title=titles["true"], sort=names, axis=axis))
    cells = base.mark_rect().encode(
        color=alt.Color("count:Q", scale=alt.Scale(scheme="blues"), title=titles["count"],
                        legend=alt.Legend(labelFontSize=style.font, titleFontSize=style.font)),
        tooltip=[alt.Tooltip("true:N", title=titles["true"]),
                 alt.Tooltip("pred:N", title=titles["pred"]),
                 alt.Tooltip("count:Q", title=titles["count"])])
    size = style.font + 4 if len(names) <= 10 else style.font
    text = base.mark_text(fontSize=size, fontWeight="bold").encode(
        text="count:Q",
        color=alt.condition(alt.datum.count > half, alt.value("white"), alt.value("#262730")))
    return (cells + text).properties(height=320 if style is NORMAL else style.height)


def boundary_chart(gx: np.ndarray, gy: np.ndarray, grid: np.ndarray, points: np.ndarray,
                   labels: np.ndarray, names: list[str], class_title: str,
                   style: ChartStyle = NORMAL) -> alt.Chart:
    """Predicted class over a grid (decision regions) with the test points on top, each class
    in its colour (:data:`ui.common.CLASS_COLORS`, as the live boundary) and named."""
    xx, yy = np.meshgrid(gx, gy)
    dx, dy = float(gx[1] - gx[0]), float(gy[1] - gy[0])
    codes = sorted({int(c) for c in grid.ravel()} | {int(c) for c in labels})
    shown = [names[c] if 0 <= c < len(names) else str(c) for c in codes]
    name = dict(zip(codes, shown))
    regions = pd.DataFrame({"x": xx.ravel(), "y": yy.ravel(), "x2": xx.ravel() + dx,
                            "y2": yy.ravel() + dy,
                            "class": [name[int(c)] for c in grid.ravel()]})
    pts = pd.DataFrame({"x": points[:, 0], "y": points[:, 1],
                        "class": [name[int(c)] for c in labels]})
    color = alt.Color("class:N", title=class_title,
                      scale=alt.Scale(domain=shown, range=[class_color(c) for c in codes]),
                      legend=alt.Legend(labelFontSize=style.font, titleFontSize=style.font))
    axis = alt.Axis(labelFontSize=style.font, titleFontSize=style.font)
    area = alt.Chart(regions).mark_rect(opacity=0.35).encode(
        x=alt.X("x:Q", title="x1", axis=axis), y=alt.Y("y:Q", title="x2", axis=axis),
        x2="x2", y2="y2", color=color)
    dots = alt.Chart(pts).mark_circle(size=28 if style is NORMAL else 60, stroke="black",
                                      strokeWidth=0.4).encode(x="x:Q", y="y:Q", color=color)
    return (area + dots).properties(height=360 if style is NORMAL else style.height)
