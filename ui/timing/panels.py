"""Timing page panels: compare modes on a model, reproduce G1, sweep batch or width.

Every timing runs in a worker process (``tfcore.timing.runner``) with a progress bar.
"""

from __future__ import annotations

import os
from typing import Any, Callable

import pandas as pd
import streamlit as st

from tfcore.model import get_preset
from tfcore.timing import (
    BUSY_LIMITS,
    SweepResult,
    TimingResult,
    explain,
    mode_names,
    mode_title,
    parse_values,
    run_in_worker,
)
from ui.common import (
    choose_placeholder,
    devices_report,
    fitted,
    guarded,
    pick,
    pick_model,
    plain,
    t,
)
from ui.timing import charts

RESULT_KEY, G1_KEY, SWEEP_KEY = "timing.result", "timing.g1_result", "timing.sweep_result"
G1_TUTORIAL = {"eager": 43.8, "graph": 35.5}  # seconds for 400 batches of 50 (scenario G1)
G1_BATCHES = (400, 200, 100, 50, 20)


def _device_options() -> list[str]:
    return ["cpu"] + [f"gpu:{i}" for i in range(devices_report().gpu_count)]


def _run(spec, **settings) -> dict:
    """Run in a worker with a progress bar; the bar's text says which phase runs."""
    bar = st.progress(0.0, text=t("timing.progress.start"))

    def update(fraction: float, message: str) -> None:
        bar.progress(min(1.0, max(0.0, fraction)), text=t("timing.progress.step",
                                                          percent=100 * fraction,
                                                          message=message))

    doc = run_in_worker(spec, update, **settings)
    bar.empty()
    return doc


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3f}"


def _time(field: str) -> Callable[[Any], str]:
    """A time measure: the ModeResult field (seconds) in ms, empty for a failed mode."""
    return lambda m: _ms(getattr(m, field)) if m.ok else ""


# The mode table's rows: a measure's catalog key ``timing.col.<name>`` and its cell's text.
MEASURES: dict[str, Callable[[Any], str]] = {
    "first_call": _time("first_call_s"), "median": _time("median_s"),
    "p10": _time("p10_s"), "p90": _time("p90_s"), "min": _time("min_s"),
    "max": _time("max_s"), "wall": _time("wall_median_s"), "cpu": _time("cpu_median_s"),
    "first_cpu": _time("first_call_cpu_s"),
    "first_loss": lambda m: f"{m.first_loss:.5f}" if m.first_loss is not None else "",
    "gflops": lambda m: f"{m.achieved_flops / 1e9:.2f}" if m.achieved_flops else "",
    "util": lambda m: f"{100 * m.utilization:.1f}%" if m.utilization else "",
    "error": lambda m: m.error or "",
}
MEASURE_PX, MODE_PX = 220, 150      # the mode table's columns: 220 + 4 x 150 fit 820 px
ROW_PX = 35                         # a table row's height (the glide grid's)


def mode_table(result: TimingResult) -> tuple[pd.DataFrame, dict]:
    """One row per measure and one column per mode (at most four: they fit a 1280 px page;
    the fourteen measures as columns hid 810 px of them), rows no mode has a value for left
    out; and the column config giving each column its width."""
    modes = [(pick(mode_title(m.mode)), m) for m in result.modes]
    measure_col = t("timing.col.measure")
    rows = []
    for measure, text in MEASURES.items():
        values = {title: text(m) for title, m in modes}
        if any(values.values()):
            rows.append({measure_col: t(f"timing.col.{measure}")} | values)
    widths = {measure_col: MEASURE_PX} | {title: MODE_PX for title, _ in modes}
    return fitted(rows, widths, [title for title, _ in modes])


def show_result(result: TimingResult) -> None:
    """Chart, speedups, first-call costs, utilization and the plain-language reading."""
    st.caption(t("timing.result.header", model=plain(result.model), params=result.params,
                 batch=result.batch_size, steps=result.steps, device=result.device["name"],
                 device_model=result.device.get("model", ""), workload=t(
                     f"timing.workload.{result.workload}"),
                 clock=t(f"timing.clock.{result.clock}")))
    busy_warning(result)
    speeds = [s for s in result.speedups if s.baseline == "eager"]
    if speeds:
        cols = st.columns(len(speeds))
        for col, s in zip(cols, speeds):
            col.metric(t("timing.metric.speedup", mode=pick(mode_title(s.mode))),
                       f"{s.ratio:.2f}×", t("timing.metric.range", low=s.low, high=s.high),
                       delta_color="off", delta_arrow="off")
        st.caption(t("timing.metric.statistic", clock=t(f"timing.clock.{result.clock}")))
    left, right = st.columns(2)
    left.altair_chart(charts.step_time_chart(result), width="stretch")
    right.altair_chart(charts.first_call_chart(result), width="stretch")
    st.caption(t("timing.chart.caption"))
    table, columns = mode_table(result)
    st.dataframe(table, hide_index=True, column_config=columns,
                 height=ROW_PX * (len(table) + 1) + 3)          # every measure, no scrolling
    if result.flops_per_step:
        st.caption(t("timing.result.flops", mflops=result.flops_per_step / 1e6,
                     peak=(result.peak_flops or 0) / 1e9, method=result.flops_method))
        if result.peak_raised:
            st.caption(t("timing.result.peak_raised"))
    st.subheader(t("timing.explain.title"))
    for sentence in explain(result):
        st.markdown("- " + t(sentence.key, **sentence.params))
    with st.expander(t("timing.result.details")):
        st.json({"versions": result.versions, "threads": result.threads,
                 "device": result.device, "loss": result.loss, "created": result.created,
                 "wall_s": result.wall_s, "request": result.request})


def busy_warning(result: TimingResult) -> None:
    """The engine's busy verdict (:mod:`tfcore.timing.busy`) as a warning with its reasons."""
    busy = result.busy
    if not busy.busy:
        return
    shown = {"load": lambda: t("timing.busy.load", load=busy.load_per_core or 0.0,
                               limit=BUSY_LIMITS["load"], cpus=busy.cpus,
                               before=_load(busy.load_before), after=_load(busy.load_after)),
             "wall_cpu": lambda: t("timing.busy.wall_cpu", ratio=busy.wall_cpu_ratio or 0.0,
                                   limit=BUSY_LIMITS["wall_cpu"],
                                   mode=pick(mode_title(busy.wall_cpu_mode)))}
    lines = [shown[r]() for r in busy.reasons if r in shown]
    st.warning("\n\n".join([t("timing.busy.warning")] + lines))


def _load(value: float | None) -> str:
    return "?" if value is None else f"{value:.2f}"


def compare_panel() -> None:
    """Choose model, workload, batch size, steps and modes; run; show the result."""
    spec = pick_model("timing.model")
    c1, c2, c3 = st.columns(3)
    workload = c1.radio(t("timing.workload"), ["step", "forward"], key="timing.workload",
                        format_func=lambda w: t(f"timing.workload.{w}"), horizontal=True)
    batch = c2.number_input(t("timing.batch"), 1, 4096, 50, key="timing.batch")
    steps = c3.number_input(t("timing.steps"), 1, 2000, 20, key="timing.steps")
    allowed = [m for m in mode_names() if workload == "step" or m != "fit"]
    modes = st.multiselect(t("timing.modes"), allowed, default=["eager", "graph", "xla"],
                           key="timing.modes", format_func=lambda m: pick(mode_title(m)),
                           placeholder=choose_placeholder(allowed, many=True))
    with st.expander(t("timing.advanced")):
        a1, a2, a3 = st.columns(3)
        device = a1.selectbox(t("timing.device"), _device_options(), key="timing.device")
        warmup = a2.number_input(t("timing.warmup"), 0, 100, 2, key="timing.warmup")
        rounds = a3.number_input(t("timing.rounds"), 1, 50, 4, key="timing.rounds")
        b1, b2, b3 = st.columns(3)
        data = b1.selectbox(t("timing.data"), ["synthetic", "digits28"], key="timing.data",
                            format_func=lambda d: t(f"timing.data.{d}"))
        clock = b2.selectbox(t("timing.clock"), ["wall", "cpu"], key="timing.clock",
                             format_func=lambda c: t(f"timing.clock.{c}"))
        threads = b3.number_input(t("timing.threads"), 0, 256, 0, key="timing.threads")
    st.caption(t("timing.method"))
    if st.button(t("timing.run"), type="primary", key="timing.run",
                 disabled=spec is None or not modes):
        with guarded():
            st.session_state[RESULT_KEY] = _run(
                spec, batch_size=int(batch), steps=int(steps), modes=tuple(modes),
                workload=workload, device=device, warmup=int(warmup), rounds=int(rounds),
                data=data, clock=clock, threads=int(threads))
    if st.session_state.get(RESULT_KEY):
        show_result(TimingResult.from_dict(st.session_state[RESULT_KEY]))


def _suggested_batches() -> int:
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
    return 400 if devices_report().gpu_count or cpus >= 8 else 50


def g1_panel() -> None:
    """One click: the CNN, N batches of 50, eager vs tf.function, beside the tutorial."""
    st.markdown(t("timing.g1.intro"))
    suggested = _suggested_batches()
    st.caption(t("timing.g1.suggest", batches=suggested,
                 cpus=os.cpu_count() or 1, gpus=devices_report().gpu_count))
    batches = st.selectbox(t("timing.g1.batches"), G1_BATCHES,
                           index=G1_BATCHES.index(suggested), key="timing.g1.batches")
    if st.button(t("timing.g1.run"), type="primary", key="timing.g1.run"):
        with guarded():
            warmup = 2
            st.session_state[G1_KEY] = _run(
                get_preset("cnn"), batch_size=50, steps=max(1, int(batches) - 1 - warmup),
                modes=("eager", "graph"), workload="step", warmup=warmup, rounds=4)
    doc = st.session_state.get(G1_KEY)
    if not doc:
        return
    result = TimingResult.from_dict(doc)
    n = result.mode("eager").batches if result.mode("eager").ok else 0
    scale = 400 / max(n, 1)
    scaled = TimingResult.from_dict({**doc, "modes": [
        {**m, "total_s": m["total_s"] * scale} for m in doc["modes"]]})
    st.altair_chart(charts.g1_chart(scaled, G1_TUTORIAL), width="stretch")
    eager, graph = result.mode("eager"), result.mode("graph")
    if eager.ok and graph.ok:
        st.markdown(t("timing.g1.result", batches=n, eager=eager.total_s, graph=graph.total_s,
                      ratio=eager.total_s / graph.total_s,
                      tutorial_ratio=G1_TUTORIAL["eager"] / G1_TUTORIAL["graph"],
                      eager400=eager.total_s * scale, graph400=graph.total_s * scale))
    show_result(result)


def sweep_panel() -> None:
    """Sweep batch size or hidden width; show time per step and speedup vs the value."""
    spec = pick_model("timing.sweep.model")
    c1, c2, c3 = st.columns(3)
    axis = c1.radio(t("timing.sweep.axis"), ["batch", "width"], key="timing.sweep.axis",
                    format_func=lambda a: t(f"timing.sweep.axis.{a}"), horizontal=True)
    default = "8,64,512,4096" if axis == "batch" else "16,256,2048,16384"
    values = c2.text_input(t("timing.sweep.values"), default, key=f"timing.sweep.values.{axis}")
    steps = c3.number_input(t("timing.steps"), 1, 500, 10, key="timing.sweep.steps")
    modes = st.multiselect(t("timing.modes"), ["eager", "graph", "xla"],
                           default=["eager", "graph"], key="timing.sweep.modes",
                           format_func=lambda m: pick(mode_title(m)),
                           placeholder=t("common.placeholder.choose_many"))
    batch = 50
    if axis == "width":
        batch = st.number_input(t("timing.batch"), 1, 4096, 50, key="timing.sweep.batch")
    if st.button(t("timing.sweep.run"), type="primary", key="timing.sweep.run",
                 disabled=spec is None or not modes):
        with guarded():
            parsed = parse_values(values)
            st.session_state[SWEEP_KEY] = _run(
                spec, batch_size=int(batch), steps=int(steps), modes=tuple(modes),
                warmup=1, rounds=2, sweep=axis, values=parsed)
    doc = st.session_state.get(SWEEP_KEY)
    if not doc:
        return
    sweep = SweepResult.from_dict(doc)
    rows = sweep.rows()
    title = t(f"timing.sweep.axis.{sweep.axis}")
    left, right = st.columns(2)
    left.altair_chart(charts.sweep_time_chart(rows, title), width="stretch")
    right.altair_chart(charts.sweep_speedup_chart(rows, title), width="stretch")
    st.altair_chart(charts.sweep_utilization_chart(rows, title), width="stretch")
    st.dataframe(pd.DataFrame([{
        title: r["value"], t("timing.col.mode"): pick(mode_title(r["mode"])),
        t("timing.col.median"): _ms(r["median_s"]),
        t("timing.col.speedup"): f"{r['speedup']:.2f}",
        t("timing.col.util"): f"{100 * r['utilization']:.1f}%" if r["utilization"] else "",
    } for r in rows]), hide_index=True, width="stretch")
    st.markdown(t("timing.sweep.explain"))
