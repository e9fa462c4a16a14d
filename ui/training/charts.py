"""Pure data shaping and altair charts for the live training panel.

Series are kept as numpy-friendly column lists; every drawn series is smoothed on its
full length, then averaged into at most ``MAX_POINTS`` buckets so 100,000 logged steps
draw as fast as 1,000.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Iterable, Mapping

import altair as alt
import numpy as np
import pandas as pd

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
        """Loss first, then metric names present in the train or val records."""
        found: list[str] = []
        for split in ("train", "val"):
            for key in self.columns.get(split, {}):
                if key not in SKIP and key not in found:
                    found.append(key)
        return sorted(found, key=lambda k: (k != "loss", k))

    def size(self, split: str = "train") -> int:
        return len(self.columns.get(split, {}).get("step", []))

    def column(self, split: str, name: str) -> np.ndarray:
        return np.asarray(self.columns.get(split, {}).get(name, []), dtype=float)


def ema(values: np.ndarray, weight: float) -> np.ndarray:
    """TensorBoard-style debiased exponential moving average (NaNs are carried over)."""
    if weight <= 0 or len(values) == 0:
        return values
    from scipy.signal import lfilter

    clean = np.where(np.isfinite(values), values, 0.0)
    mask = np.isfinite(values).astype(float)
    num = lfilter([1 - weight], [1, -weight], clean)
    den = lfilter([1 - weight], [1, -weight], mask)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / den, np.nan)


def downsample(x: np.ndarray, y: np.ndarray, max_points: int = MAX_POINTS) -> tuple[np.ndarray, np.ndarray]:
    """Bucket means of (x, y) so at most ``max_points`` remain (the last point is kept)."""
    n = len(x)
    if n <= max_points:
        return x, y
    k = math.ceil(n / max_points)
    m = (n // k) * k
    xs = x[:m].reshape(-1, k).mean(axis=1)
    with np.errstate(invalid="ignore"):
        ys = np.nanmean(y[:m].reshape(-1, k), axis=1) if np.isfinite(y).any() else y[:m:k]
    return np.append(xs, x[-1]), np.append(ys, y[-1])


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
            series.append(("smoothed", ema(values, smoothing)))
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


def line_chart(frame: pd.DataFrame, x: str, title: str, log_scale: bool,
               x_title: str) -> alt.Chart:
    positive = frame[frame["value"] > 0] if log_scale else frame
    scale = alt.Scale(type="log") if log_scale else alt.Scale(zero=False)
    return (alt.Chart(positive, title=title)
            .mark_line(point=alt.OverlayMarkDef(size=12) if len(positive) < 60 else False)
            .encode(x=alt.X(f"{x}:Q", title=x_title),
                    y=alt.Y("value:Q", title=title, scale=scale),
                    color=alt.Color("series:N", title=None, legend=alt.Legend(orient="bottom")),
                    tooltip=[x, "series", alt.Tooltip("value:Q", format=".5g")])
            .properties(height=260))


def confusion_chart(matrix: np.ndarray, names: list[str], true_title: str,
                    pred_title: str) -> alt.Chart:
    rows = [{"true": names[i], "pred": names[j], "count": int(matrix[i, j])}
            for i in range(matrix.shape[0]) for j in range(matrix.shape[1])]
    frame = pd.DataFrame(rows)
    base = alt.Chart(frame).encode(x=alt.X("pred:N", title=pred_title, sort=names),
                                   y=alt.Y("true:N", title=true_title, sort=names))
    cells = base.mark_rect().encode(color=alt.Color("count:Q", scale=alt.Scale(scheme="blues")),
                                    tooltip=["true", "pred", "count"])
    text = base.mark_text(fontSize=11).encode(text="count:Q")
    return (cells + text).properties(height=320)


def boundary_chart(gx: np.ndarray, gy: np.ndarray, grid: np.ndarray, points: np.ndarray,
                   labels: np.ndarray) -> alt.Chart:
    """Predicted class over a grid (decision regions) with the test points on top."""
    xx, yy = np.meshgrid(gx, gy)
    dx, dy = float(gx[1] - gx[0]), float(gy[1] - gy[0])
    regions = pd.DataFrame({"x": xx.ravel(), "y": yy.ravel(), "x2": xx.ravel() + dx,
                            "y2": yy.ravel() + dy, "class": grid.ravel().astype(str)})
    pts = pd.DataFrame({"x": points[:, 0], "y": points[:, 1],
                        "class": labels.astype(int).astype(str)})
    area = alt.Chart(regions).mark_rect(opacity=0.35).encode(
        x=alt.X("x:Q", title="x1"), y=alt.Y("y:Q", title="x2"), x2="x2", y2="y2",
        color=alt.Color("class:N"))
    dots = alt.Chart(pts).mark_circle(size=28, stroke="black", strokeWidth=0.4).encode(
        x="x:Q", y="y:Q", color="class:N")
    return (area + dots).properties(height=360)
