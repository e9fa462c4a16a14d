"""Altair charts of the runs page, redrawn from engine data (no state)."""

from __future__ import annotations

from typing import Iterable, Sequence

import altair as alt
import pandas as pd

from ui.common import t

X_FIELDS = {"step": "step", "time": "time"}
PALETTE = alt.Scale(scheme="category10")


def _x(axis: str) -> alt.X:
    return alt.X(f"{X_FIELDS[axis]}:Q", title=t(f"runs.x.{axis}"))


def compare_chart(curves: pd.DataFrame, axis: str, metric: str) -> alt.Chart:
    """The selected runs' curves overlaid: colour = run, dash = split; raw values faint."""
    data = curves.assign(split_label=curves["split"].map(lambda s: t(f"runs.split.{s}")))
    base = alt.Chart(data).encode(
        x=_x(axis),
        color=alt.Color("label:N", title=t("runs.chart.run"), scale=PALETTE),
        strokeDash=alt.StrokeDash("split_label:N", title=t("runs.chart.split")),
        detail="split:N")
    raw = base.mark_line(opacity=0.25).encode(y=alt.Y("value:Q", title=metric))
    smooth = base.mark_line(point=alt.OverlayMarkDef(size=18)).encode(
        y=alt.Y("smoothed:Q", title=metric),
        tooltip=[alt.Tooltip("label:N", title=t("runs.chart.run")),
                 alt.Tooltip("split_label:N", title=t("runs.chart.split")),
                 alt.Tooltip("step:Q", title=t("runs.x.step")),
                 alt.Tooltip("time:Q", format=".1f", title=t("runs.x.time")),
                 alt.Tooltip("value:Q", format=".4f", title=metric)])
    return (raw + smooth).properties(height=320, title=t("runs.chart.compare", metric=metric))


def group_chart(stats: pd.DataFrame, labels: dict[str, str], metric: str) -> alt.Chart:
    """Mean of each seed group with its min-max band and a mean +- std band."""
    data = stats.assign(label=stats["group"].map(labels).fillna(stats["group"]),
                        lo=stats["mean"] - stats["std"], hi=stats["mean"] + stats["std"])
    data = data[data["split"] == data["split"].iloc[0]] if len(data) else data
    base = alt.Chart(data).encode(x=alt.X("step:Q", title=t("runs.x.step")),
                                  color=alt.Color("label:N", title=t("runs.chart.group"),
                                                  scale=PALETTE))
    band = base.mark_area(opacity=0.15).encode(y="min:Q", y2="max:Q")
    spread = base.mark_area(opacity=0.3).encode(y="lo:Q", y2="hi:Q")
    mean = base.mark_line().encode(
        y=alt.Y("mean:Q", title=metric),
        tooltip=["label:N", "step:Q", alt.Tooltip("mean:Q", format=".4f"),
                 alt.Tooltip("std:Q", format=".4f"), "count:Q"])
    return (band + spread + mean).properties(height=300,
                                             title=t("runs.chart.groups", metric=metric))


def run_chart(curves: pd.DataFrame, checkpoint_steps: Sequence[int], metric: str) -> alt.Chart:
    """One run's curves with a vertical rule at each kept checkpoint (the timeline)."""
    data = curves.assign(split_label=curves["split"].map(lambda s: t(f"runs.split.{s}")))
    lines = alt.Chart(data).mark_line(point=alt.OverlayMarkDef(size=18)).encode(
        x=alt.X("step:Q", title=t("runs.x.step")), y=alt.Y("smoothed:Q", title=metric),
        color=alt.Color("split_label:N", title=t("runs.chart.split"), scale=PALETTE),
        tooltip=["step:Q", alt.Tooltip("value:Q", format=".4f")])
    marks = pd.DataFrame({"step": list(checkpoint_steps),
                          "name": [f"ckpt-{s}" for s in checkpoint_steps]})
    rules = alt.Chart(marks).mark_rule(color="#888888", strokeDash=[4, 3]).encode(
        x="step:Q", tooltip=[alt.Tooltip("name:N", title=t("runs.chart.checkpoint"))])
    return (lines + rules).properties(height=280, title=t("runs.chart.timeline", metric=metric))


def histogram_chart(counts: Iterable[int], edges: Sequence[float], title: str) -> alt.Chart:
    """A histogram from counts and bin edges."""
    counts = list(counts)
    data = pd.DataFrame({"start": list(edges[:-1]), "end": list(edges[1:]), "count": counts})
    return alt.Chart(data).mark_bar().encode(
        x=alt.X("start:Q", bin="binned", title=t("runs.chart.value")), x2="end:Q",
        y=alt.Y("count:Q", title=t("runs.chart.count"))).properties(height=220, title=title)


def diff_chart(rows: pd.DataFrame) -> alt.Chart:
    """Relative change per variable (norm of the change / norm before)."""
    return alt.Chart(rows).mark_bar().encode(
        y=alt.Y("label:N", sort="-x", title=t("runs.chart.variable")),
        x=alt.X("relative:Q", title=t("runs.chart.relative")),
        tooltip=["label:N", alt.Tooltip("relative:Q", format=".4g"),
                 alt.Tooltip("norm:Q", format=".4g"), alt.Tooltip("max_abs:Q", format=".4g")],
    ).properties(height=max(120, 22 * len(rows)), title=t("runs.chart.diff"))
