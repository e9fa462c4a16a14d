"""Altair charts of the timing page, redrawn from result data (no state)."""

from __future__ import annotations

import math
from typing import Sequence

import altair as alt
import pandas as pd

from tfcore.timing import TimingResult, mode_title
from ui.common import pick, t

MODE_COLORS = {"eager": "#e45756", "graph": "#4c78a8", "xla": "#54a24b", "fit": "#f58518"}


def _mode_label(name: str) -> str:
    return pick(mode_title(name))


# A mode's name on an x axis: two lines where it has a qualifier ("Graph" over
# "(tf.function)", "即时执行" over "（Eager）"), so a half-width chart at 1280 px shows
# every name whole instead of cutting or hiding it.
TWO_LINES = "split(replace(replace(replace(datum.label, '（', '\\n（'), ' (', '\\n('), ' + ', '\\n+ '), '\\n')"


def _mode_axis(title: str) -> alt.Axis:
    return alt.Axis(labelAngle=0, labelExpr=TWO_LINES, labelLimit=0, labelOverlap=False,
                    labelFontSize=12, title=title)


def _color(domain: Sequence[str]) -> alt.Scale:
    return alt.Scale(domain=list(domain),
                     range=[MODE_COLORS.get(m, "#999999") for m in domain])


def _label_color(modes: Sequence[str]) -> alt.Scale:
    """The mode colors of the bar chart, keyed by translated label (for legends)."""
    names = list(dict.fromkeys(modes))
    return alt.Scale(domain=[_mode_label(m) for m in names],
                     range=[MODE_COLORS.get(m, "#999999") for m in names])


CHART_HEIGHT = 300
SVG = {"embedOptions": {"renderer": "svg"}}   # few marks; text a browser test can measure
AXIS = alt.Axis(grid=True, tickCount=6, labelFontSize=12, titleFontSize=12)


def _title(key: str) -> alt.TitleParams:
    """A chart title that starts at the left edge (a short one: it must fit a half-width
    column at 1280 px)."""
    return alt.TitleParams(t(key), anchor="start", fontSize=14)


def decade_ticks(values: Sequence[float]) -> list[float]:
    """Powers of ten from just below the smallest value to just above the largest: the
    labelled ticks of a log axis (at least two)."""
    low = math.floor(math.log10(min(values))) if values else 0
    high = max(low + 1, math.ceil(math.log10(max(values)))) if values else 1
    return [float(10.0 ** k) for k in range(low, high + 1)]


def step_time_chart(result: TimingResult) -> alt.Chart:
    """Per mode, wall and CPU time side by side: the median as a bar, every repeat as a
    point and the min-max range as a rule, on a ticked millisecond scale."""
    clocks = {"wall": t("timing.chart.wall"), "cpu": t("timing.chart.cpu")}
    rows, medians = [], []
    for m in result.modes:
        if not m.ok:
            continue
        for clock, times in (("wall", m.wall_times_s or m.times_s), ("cpu", m.cpu_times_s)):
            if not times:
                continue
            ms = [v * 1e3 for v in times]
            medians.append({"label": _mode_label(m.mode), "clock": clocks[clock],
                            "median": float(pd.Series(ms).median()),
                            "min": min(ms), "max": max(ms)})
            rows += [{"label": _mode_label(m.mode), "clock": clocks[clock], "ms": v,
                      "repeat": i + 1} for i, v in enumerate(ms)]
    x = alt.X("label:N", sort=None, axis=_mode_axis(t("timing.chart.mode")))
    offset = alt.XOffset("clock:N", sort=list(clocks.values()))
    color = alt.Color("clock:N", title=t("timing.chart.clock"),
                      scale=alt.Scale(domain=list(clocks.values()),
                                      range=["#4c78a8", "#f58518"]),
                      legend=alt.Legend(orient="top"))
    y_title = t("timing.chart.step_ms")
    base = alt.Chart(pd.DataFrame(medians)).encode(x=x, xOffset=offset, color=color)
    bars = base.mark_bar(opacity=0.55).encode(
        y=alt.Y("median:Q", title=y_title, axis=AXIS),
        tooltip=[alt.Tooltip("label:N", title=t("timing.chart.mode")),
                 alt.Tooltip("clock:N", title=t("timing.chart.clock")),
                 alt.Tooltip("median:Q", format=".3f", title=t("timing.chart.median_ms")),
                 alt.Tooltip("min:Q", format=".3f", title=t("timing.chart.min_ms")),
                 alt.Tooltip("max:Q", format=".3f", title=t("timing.chart.max_ms"))])
    spread = base.mark_rule(strokeWidth=2, color="black").encode(y="min:Q", y2="max:Q")
    points = alt.Chart(pd.DataFrame(rows)).mark_point(filled=True, size=28, opacity=0.8,
                                                      color="black").encode(
        x=x, xOffset=offset, y=alt.Y("ms:Q", title=y_title),
        tooltip=[alt.Tooltip("label:N", title=t("timing.chart.mode")),
                 alt.Tooltip("clock:N", title=t("timing.chart.clock")),
                 alt.Tooltip("repeat:Q", title=t("timing.chart.repeat")),
                 alt.Tooltip("ms:Q", format=".3f", title=y_title)])
    return (bars + spread + points).properties(height=CHART_HEIGHT, usermeta=SVG,
                                               title=_title("timing.chart.title"))


def first_call_chart(result: TimingResult) -> alt.Chart:
    """First call (tracing/compiling) next to the median steady step, per mode, on a
    logarithmic millisecond scale with labelled ticks (the two differ a thousandfold)."""
    rows = []
    for m in result.modes:
        if not m.ok:
            continue
        rows.append({"label": _mode_label(m.mode), "kind": t("timing.chart.first_call"),
                     "ms": max(m.first_call_s * 1e3, 1e-3)})
        rows.append({"label": _mode_label(m.mode), "kind": t("timing.chart.steady"),
                     "ms": max(m.median_s * 1e3, 1e-3)})
    kinds = [t("timing.chart.first_call"), t("timing.chart.steady")]
    ticks = decade_ticks([row["ms"] for row in rows])
    for row in rows:                # a log scale has no 0: bars rise from the lowest tick
        row["base"] = ticks[0]
    return alt.Chart(pd.DataFrame(rows)).mark_bar().encode(
        x=alt.X("label:N", sort=None, axis=_mode_axis(t("timing.chart.mode"))),
        xOffset=alt.XOffset("kind:N", sort=kinds),
        y=alt.Y("ms:Q", title=t("timing.chart.ms_log"),
                scale=alt.Scale(type="log", domain=[ticks[0], ticks[-1]], nice=False),
                axis=alt.Axis(values=ticks, format="~g", grid=True, labelFontSize=12,
                              titleFontSize=12)),
        y2=alt.Y2("base:Q"),
        color=alt.Color("kind:N", title=t("timing.chart.kind"), sort=kinds,
                        legend=alt.Legend(orient="top")),
        tooltip=[alt.Tooltip("label:N", title=t("timing.chart.mode")),
                 alt.Tooltip("kind:N", title=t("timing.chart.kind")),
                 alt.Tooltip("ms:Q", format=".2f", title=t("timing.chart.ms"))],
    ).properties(height=CHART_HEIGHT, usermeta=SVG, title=_title("timing.chart.first_title"))


def sweep_time_chart(rows: list[dict], axis_title: str) -> alt.Chart:
    """Median time per example (batch sweep) or per step (width sweep) vs the sweep value."""
    data = pd.DataFrame(rows)
    data["label"] = data["mode"].map(_mode_label)
    data["ms"] = data["median_s"] * 1e3
    return alt.Chart(data).mark_line(point=True).encode(
        x=alt.X("value:Q", title=axis_title, scale=alt.Scale(type="log")),
        y=alt.Y("ms:Q", title=t("timing.chart.median_ms"), scale=alt.Scale(type="log"),
                axis=AXIS),
        color=alt.Color("label:N", title=t("timing.chart.mode"),
                        scale=_label_color(data["mode"].tolist())),
        tooltip=[alt.Tooltip("value:Q", title=axis_title),
                 alt.Tooltip("label:N", title=t("timing.chart.mode")),
                 alt.Tooltip("ms:Q", format=".3f", title=t("timing.chart.median_ms"))],
    ).properties(height=CHART_HEIGHT, title=_title("timing.sweep.chart_time"))


def sweep_speedup_chart(rows: list[dict], axis_title: str) -> alt.Chart:
    """Speedup over eager vs the sweep value; the line at 1 is 'no gain'."""
    data = pd.DataFrame([r for r in rows if r["mode"] != "eager"])
    data["label"] = data["mode"].map(_mode_label)
    line = alt.Chart(data).mark_line(point=True).encode(
        x=alt.X("value:Q", title=axis_title, scale=alt.Scale(type="log")),
        y=alt.Y("speedup:Q", title=t("timing.chart.speedup"), axis=AXIS),
        color=alt.Color("label:N", title=t("timing.chart.mode"),
                        scale=_label_color(data["mode"].tolist())),
        tooltip=[alt.Tooltip("value:Q", title=axis_title),
                 alt.Tooltip("label:N", title=t("timing.chart.mode")),
                 alt.Tooltip("speedup:Q", format=".2f", title=t("timing.chart.speedup"))])
    one = alt.Chart(pd.DataFrame({"y": [1.0]})).mark_rule(strokeDash=[4, 4]).encode(y="y:Q")
    return (line + one).properties(height=CHART_HEIGHT,
                                   title=_title("timing.sweep.chart_speedup"))


def sweep_utilization_chart(rows: list[dict], axis_title: str) -> alt.Chart:
    """Share of the device's matmul peak vs the sweep value: overhead- or compute-bound."""
    data = pd.DataFrame([r for r in rows if r.get("utilization")])
    if data.empty:
        data = pd.DataFrame({"value": [], "mode": [], "utilization": []})
    data["label"] = data["mode"].map(_mode_label)
    data["percent"] = data["utilization"] * 100
    return alt.Chart(data).mark_line(point=True).encode(
        x=alt.X("value:Q", title=axis_title, scale=alt.Scale(type="log")),
        y=alt.Y("percent:Q", title=t("timing.chart.percent_peak"), axis=AXIS),
        color=alt.Color("label:N", title=t("timing.chart.mode"),
                        scale=_label_color(data["mode"].tolist())),
        tooltip=[alt.Tooltip("value:Q", title=axis_title),
                 alt.Tooltip("label:N", title=t("timing.chart.mode")),
                 alt.Tooltip("percent:Q", format=".1f", title=t("timing.chart.percent_peak"))],
    ).properties(height=CHART_HEIGHT, title=_title("timing.sweep.chart_util"))


def g1_chart(result: TimingResult, tutorial: dict) -> alt.Chart:
    """Total seconds for the batches: the tutorial's figures beside this machine's."""
    rows = [{"who": t("timing.g1.tutorial"), "mode": _mode_label(name), "seconds": secs}
            for name, secs in tutorial.items()]
    rows += [{"who": t("timing.g1.here"), "mode": _mode_label(m.mode), "seconds": m.total_s}
             for m in result.modes if m.ok]
    return alt.Chart(pd.DataFrame(rows)).mark_bar().encode(
        x=alt.X("mode:N", title=t("timing.chart.mode"), sort=None),
        xOffset="who:N",
        y=alt.Y("seconds:Q", title=t("timing.chart.seconds"), axis=AXIS),
        color=alt.Color("who:N", title=""),
        tooltip=[alt.Tooltip("who:N", title=t("timing.g1.who")),
                 alt.Tooltip("mode:N", title=t("timing.chart.mode")),
                 alt.Tooltip("seconds:Q", format=".2f", title=t("timing.chart.seconds"))],
    ).properties(height=CHART_HEIGHT, title=_title("timing.g1.chart"))
