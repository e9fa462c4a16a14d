"""Altair charts of the runs page, redrawn from engine data (no state)."""

from __future__ import annotations

from typing import Iterable, Sequence

import altair as alt
import pandas as pd

from ui.common import STEP_AXIS, metric_label, t

X_FIELDS = {"step": "step", "time": "time"}
PALETTE = alt.Scale(scheme="category10")
# Run names are long ("cats and dogs CNN, lr 0.003, ..."): their legend goes under the
# chart, one name a line, uncut (a legend beside it cuts names at 160 px).
RUN_LEGEND = {"orient": "bottom", "direction": "vertical", "labelLimit": 0}


def _q(name: str, title: str, **extra: object) -> dict:
    return {"field": name, "type": "quantitative", "title": title, **extra}


def _n(name: str, title: str | None, **extra: object) -> dict:
    return {"field": name, "type": "nominal", "title": title, **extra}


def compare_chart(curves: pd.DataFrame, axis: str, metric: str) -> dict:
    """The selected runs' curves overlaid: colour = run, dash = split; raw values faint.

    A Vega-Lite spec written as a dict, its data in the dataset ``curves`` (no Altair build
    and validation per snapshot: bench/bench_sessions.py)."""
    data = curves.assign(split_label=curves["split"].map(lambda s: t(f"runs.split.{s}")))
    metric = metric_label(metric)
    base = {"x": _q(X_FIELDS[axis], t(f"runs.x.{axis}"),
                    **({"axis": dict(STEP_AXIS)} if axis == "step" else {})),
            "color": _n("label", t("runs.chart.run"), scale={"scheme": "category10"},
                        legend=RUN_LEGEND),
            "strokeDash": _n("split_label", t("runs.chart.split")),
            "detail": {"field": "split", "type": "nominal"}}
    tooltip = [_n("label", t("runs.chart.run")), _n("split_label", t("runs.chart.split")),
               _q("step", t("runs.x.step")), _q("time", t("runs.x.time"), format=".1f"),
               _q("value", metric, format=".4f")]
    raw = {"mark": {"type": "line", "opacity": 0.25},
           "encoding": {**base, "y": _q("value", metric)}}
    smooth = {"mark": {"type": "line", "point": {"size": 18}},
              "encoding": {**base, "y": _q("smoothed", metric), "tooltip": tooltip}}
    return {"data": {"name": "curves"}, "layer": [raw, smooth], "height": 320,
            "title": t("runs.chart.compare", metric=metric), "datasets": {"curves": data}}


def group_chart(stats: pd.DataFrame, labels: dict[str, str], metric: str) -> alt.Chart:
    """Mean of each seed group with its min-max band and a mean +- std band."""
    metric = metric_label(metric)
    data = stats.assign(label=stats["group"].map(labels).fillna(stats["group"]),
                        lo=stats["mean"] - stats["std"], hi=stats["mean"] + stats["std"])
    data = data[data["split"] == data["split"].iloc[0]] if len(data) else data
    base = alt.Chart(data).encode(x=alt.X("step:Q", title=t("runs.x.step"),
                                          axis=alt.Axis(**STEP_AXIS)),
                                  color=alt.Color("label:N", title=t("runs.chart.group"),
                                                  scale=PALETTE))
    band = base.mark_area(opacity=0.15).encode(y="min:Q", y2="max:Q")
    spread = base.mark_area(opacity=0.3).encode(y="lo:Q", y2="hi:Q")
    mean = base.mark_line().encode(
        y=alt.Y("mean:Q", title=metric),
        tooltip=[alt.Tooltip("label:N", title=t("runs.chart.group")),
                 alt.Tooltip("step:Q", title=t("runs.x.step")),
                 alt.Tooltip("mean:Q", format=".4f", title=metric),
                 alt.Tooltip("std:Q", format=".4f", title=t("chart.tip.std")),
                 alt.Tooltip("count:Q", title=t("chart.tip.runs"))])
    return (band + spread + mean).properties(height=300,
                                             title=t("runs.chart.groups", metric=metric))


def run_chart(curves: pd.DataFrame, checkpoint_steps: Sequence[int], metric: str,
              names: Sequence[str] | None = None) -> dict:
    """One run's curves with a vertical rule at each kept checkpoint (the timeline), named
    as the run's files are (``ckpt-N`` unless ``names`` says ``model.ckpt-N``).

    A Vega-Lite spec written as a dict, its data in the datasets ``curves`` and ``marks``."""
    data = curves.assign(split_label=curves["split"].map(lambda s: t(f"runs.split.{s}")))
    metric = metric_label(metric)
    lines = {"data": {"name": "curves"}, "mark": {"type": "line", "point": {"size": 18}},
             "encoding": {"x": _q("step", t("runs.x.step"), axis=dict(STEP_AXIS)),
                          "y": _q("smoothed", metric),
                          "color": _n("split_label", t("runs.chart.split"),
                                      scale={"scheme": "category10"}),
                          "tooltip": [_q("step", t("runs.x.step")),
                                      _q("value", metric, format=".4f")]}}
    marks = pd.DataFrame({"step": list(checkpoint_steps),
                          "name": list(names) if names is not None
                          else [f"ckpt-{s}" for s in checkpoint_steps]})
    rules = {"data": {"name": "marks"},
             "mark": {"type": "rule", "color": "#888888", "strokeDash": [4, 3]},
             "encoding": {"x": {"field": "step", "type": "quantitative"},
                          "tooltip": [_n("name", t("runs.chart.checkpoint"))]}}
    return {"layer": [lines, rules], "height": 280,
            "title": t("runs.chart.timeline", metric=metric),
            "datasets": {"curves": data, "marks": marks}}


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
        tooltip=[alt.Tooltip("label:N", title=t("runs.chart.variable")),
                 alt.Tooltip("relative:Q", format=".4g", title=t("runs.chart.relative")),
                 alt.Tooltip("norm:Q", format=".4g", title=t("chart.tip.norm")),
                 alt.Tooltip("max_abs:Q", format=".4g", title=t("chart.tip.max_abs"))],
    ).properties(height=max(120, 22 * len(rows)), title=t("runs.chart.diff"))
