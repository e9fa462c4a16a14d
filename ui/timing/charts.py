"""Altair charts of the timing page, redrawn from result data (no state)."""

from __future__ import annotations

from typing import Sequence

import altair as alt
import pandas as pd

from tfcore.timing import TimingResult, mode_title
from ui.common import pick, t

MODE_COLORS = {"eager": "#e45756", "graph": "#4c78a8", "xla": "#54a24b", "fit": "#f58518"}


def _mode_label(name: str) -> str:
    return pick(mode_title(name))


def _color(domain: Sequence[str]) -> alt.Scale:
    return alt.Scale(domain=list(domain),
                     range=[MODE_COLORS.get(m, "#999999") for m in domain])


def _label_color(modes: Sequence[str]) -> alt.Scale:
    """The mode colors of the bar chart, keyed by translated label (for legends)."""
    names = list(dict.fromkeys(modes))
    return alt.Scale(domain=[_mode_label(m) for m in names],
                     range=[MODE_COLORS.get(m, "#999999") for m in names])


def step_time_chart(result: TimingResult) -> alt.Chart:
    """Median step time per mode as bars, with the p10-p90 spread as a rule."""
    rows = [{"mode": m.mode, "label": _mode_label(m.mode), "median": m.median_s * 1e3,
             "p10": m.p10_s * 1e3, "p90": m.p90_s * 1e3} for m in result.modes if m.ok]
    data = pd.DataFrame(rows)
    x = alt.X("label:N", title=t("timing.chart.mode"), sort=None)
    bars = alt.Chart(data).mark_bar().encode(
        x=x, y=alt.Y("median:Q", title=t("timing.chart.median_ms")),
        color=alt.Color("mode:N", scale=_color(data["mode"].tolist()), legend=None),
        tooltip=[alt.Tooltip("label:N", title=t("timing.chart.mode")),
                 alt.Tooltip("median:Q", format=".3f", title=t("timing.chart.median_ms")),
                 alt.Tooltip("p10:Q", format=".3f", title="p10"),
                 alt.Tooltip("p90:Q", format=".3f", title="p90")])
    spread = alt.Chart(data).mark_rule(strokeWidth=2, color="black").encode(
        x=x, y="p10:Q", y2="p90:Q")
    return (bars + spread).properties(height=280, title=t("timing.chart.title"))


def first_call_chart(result: TimingResult) -> alt.Chart:
    """First call (tracing/compiling) next to one steady-state step, per mode."""
    rows = []
    for m in result.modes:
        if not m.ok:
            continue
        rows.append({"label": _mode_label(m.mode), "kind": t("timing.chart.first_call"),
                     "ms": m.first_call_s * 1e3})
        rows.append({"label": _mode_label(m.mode), "kind": t("timing.chart.steady"),
                     "ms": m.median_s * 1e3})
    return alt.Chart(pd.DataFrame(rows)).mark_bar().encode(
        x=alt.X("label:N", title=t("timing.chart.mode"), sort=None),
        xOffset="kind:N",
        y=alt.Y("ms:Q", title=t("timing.chart.ms"), scale=alt.Scale(type="symlog")),
        color=alt.Color("kind:N", title=""),
        tooltip=["label:N", "kind:N", alt.Tooltip("ms:Q", format=".2f")],
    ).properties(height=240, title=t("timing.chart.first_title"))


def sweep_time_chart(rows: list[dict], axis_title: str) -> alt.Chart:
    """Median time per example (batch sweep) or per step (width sweep) vs the sweep value."""
    data = pd.DataFrame(rows)
    data["label"] = data["mode"].map(_mode_label)
    data["ms"] = data["median_s"] * 1e3
    return alt.Chart(data).mark_line(point=True).encode(
        x=alt.X("value:Q", title=axis_title, scale=alt.Scale(type="log")),
        y=alt.Y("ms:Q", title=t("timing.chart.median_ms"), scale=alt.Scale(type="log")),
        color=alt.Color("label:N", title=t("timing.chart.mode"),
                        scale=_label_color(data["mode"].tolist())),
        tooltip=["value:Q", "label:N", alt.Tooltip("ms:Q", format=".3f")],
    ).properties(height=260, title=t("timing.sweep.chart_time"))


def sweep_speedup_chart(rows: list[dict], axis_title: str) -> alt.Chart:
    """Speedup over eager vs the sweep value; the line at 1 is 'no gain'."""
    data = pd.DataFrame([r for r in rows if r["mode"] != "eager"])
    data["label"] = data["mode"].map(_mode_label)
    line = alt.Chart(data).mark_line(point=True).encode(
        x=alt.X("value:Q", title=axis_title, scale=alt.Scale(type="log")),
        y=alt.Y("speedup:Q", title=t("timing.chart.speedup")),
        color=alt.Color("label:N", title=t("timing.chart.mode"),
                        scale=_label_color(data["mode"].tolist())),
        tooltip=["value:Q", "label:N", alt.Tooltip("speedup:Q", format=".2f")])
    one = alt.Chart(pd.DataFrame({"y": [1.0]})).mark_rule(strokeDash=[4, 4]).encode(y="y:Q")
    return (line + one).properties(height=260, title=t("timing.sweep.chart_speedup"))


def sweep_utilization_chart(rows: list[dict], axis_title: str) -> alt.Chart:
    """Share of the device's matmul peak vs the sweep value: overhead- or compute-bound."""
    data = pd.DataFrame([r for r in rows if r.get("utilization")])
    if data.empty:
        data = pd.DataFrame({"value": [], "mode": [], "utilization": []})
    data["label"] = data["mode"].map(_mode_label)
    data["percent"] = data["utilization"] * 100
    return alt.Chart(data).mark_line(point=True).encode(
        x=alt.X("value:Q", title=axis_title, scale=alt.Scale(type="log")),
        y=alt.Y("percent:Q", title=t("timing.chart.percent_peak")),
        color=alt.Color("label:N", title=t("timing.chart.mode"),
                        scale=_label_color(data["mode"].tolist())),
        tooltip=["value:Q", "label:N", alt.Tooltip("percent:Q", format=".1f")],
    ).properties(height=260, title=t("timing.sweep.chart_util"))


def g1_chart(result: TimingResult, tutorial: dict) -> alt.Chart:
    """Total seconds for the batches: the tutorial's figures beside this machine's."""
    rows = [{"who": t("timing.g1.tutorial"), "mode": _mode_label(name), "seconds": secs}
            for name, secs in tutorial.items()]
    rows += [{"who": t("timing.g1.here"), "mode": _mode_label(m.mode), "seconds": m.total_s}
             for m in result.modes if m.ok]
    return alt.Chart(pd.DataFrame(rows)).mark_bar().encode(
        x=alt.X("mode:N", title=t("timing.chart.mode"), sort=None),
        xOffset="who:N",
        y=alt.Y("seconds:Q", title=t("timing.chart.seconds")),
        color=alt.Color("who:N", title=""),
        tooltip=["who:N", "mode:N", alt.Tooltip("seconds:Q", format=".2f")],
    ).properties(height=260, title=t("timing.g1.chart"))
