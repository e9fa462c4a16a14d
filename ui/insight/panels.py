"""The insight panel of one run: its decision boundary and every neuron's picture at a
chosen step, and its weights and gradients over the steps.

Drawn by the Train page's live panel (a fragment that redraws every second: each redraw
reads only what is new, :func:`tfcore.rundir.insight_reader.read_insight`, and the plane file of
the step shown) and by the Runs page's run detail (a finished run: replay). While a run is
live the step follows the newest snapshot until the person moves the slider; then a
"Follow live" button brings the newest back.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np
import pandas as pd
import streamlit as st

from tfcore.rundir import Insight, InsightGrid, InsightMeta, read_grid, read_insight
from ui.common import (NO_VALUE, cached_chart, catalog, counted, current_lang,
                       located_text, plain_params, presenter_mode, t)
from ui.insight.boundary_charts import boundary_chart, plane_room
from ui.insight.chart_style import NORMAL, PRESENTER, InsightStyle
from ui.insight.network_charts import MAX_COLUMNS, MAX_DRAWN, network_chart
from ui.insight.stats_charts import (TINY, distribution_chart, distribution_frame, hist_names,
                                     histogram_chart, histogram_frame, layer_frame,
                                     layer_order, layers_chart)

FOLLOW = "follow"            # session key suffix: True while the step follows the newest


def _style() -> InsightStyle:
    return PRESENTER if presenter_mode() else NORMAL


def _digest(*arrays: np.ndarray) -> str:
    digest = hashlib.sha1()
    for array in arrays:
        digest.update(np.ascontiguousarray(array).tobytes())
    return digest.hexdigest()


def _problems(insight: Insight) -> None:
    """Each located problem as one warning line: the rest still draws, or, when the
    recording's description (meta.json) cannot be read, nothing does and it says so."""
    if not insight.problems:
        return
    lines = [located_text(p) for p in insight.problems]
    if insight.skipped > len(insight.problems):
        lines.append(t("insight.skipped", count=insight.skipped))
    text = "\n".join(f"- {line}" for line in lines)
    head = t("insight.problem") if insight.meta is not None else t("insight.unreadable")
    st.warning(f"{head}\n\n{text}", icon=":material/warning:")


def pair(style: InsightStyle) -> tuple:
    """Two places for two charts: side by side, or one under the other (presenter)."""
    if style.stacked:
        return st.container(), st.container()
    return tuple(st.columns(2, gap="medium"))


DRAWN_KEEP = 4      # the live slider's last drawn steps: a report of one of them is no move


def _pin(where: str, live_key: str) -> None:
    """The person moved the live slider: keep their step, stop following. A report of a
    step the page itself drew lately is no move (the browser may send the value it showed
    before the newest reached it)."""
    chosen = st.session_state.get(live_key)
    if chosen is None or chosen in st.session_state.get(f"{live_key}.drawn", ()):
        return
    st.session_state[f"{where}.{FOLLOW}"] = False
    st.session_state[f"{where}.step"] = chosen


def _follow(where: str) -> None:
    """Follow the newest snapshot again, and forget the step that was held: when the run
    ends while followed, its slider rests on the newest step, not on the one held before."""
    st.session_state[f"{where}.{FOLLOW}"] = True
    st.session_state.pop(f"{where}.step", None)


def pick_step(steps: Sequence[int], where: str, live: bool) -> int:
    """A slider over the snapshot ``steps``; while ``live`` it shows the newest until the
    person moves it (a "Follow live" button then brings the newest back).

    While it follows, one slider (``<where>.step.live``, its key its identity as its
    options grow) is set to the newest step before each draw, so a press always reaches
    the slider it was made on, however many snapshots arrived meanwhile (a slider per step
    lost a press that came just after its slider was replaced). The steps it was drawn at
    lately are remembered: the browser reporting one of them back is no move. Once moved,
    one slider (``<where>.step``) keeps the chosen step as snapshots arrive."""
    key, follow_key = f"{where}.step", f"{where}.{FOLLOW}"
    following = live and st.session_state.get(follow_key, True)
    if len(steps) == 1:
        st.caption(t("insight.one_step", step=steps[0]))
        return steps[0]
    left, right = (st.columns([5, 1], vertical_alignment="bottom") if live and not following
                   else (st.container(), None))
    common = {"options": list(steps), "format_func": lambda s: f"{s:,}",
              "help": t("insight.step_help")}
    if following:
        live_key = f"{key}.live"
        drawn = [s for s in st.session_state.get(f"{live_key}.drawn", ()) if s != steps[-1]]
        st.session_state[f"{live_key}.drawn"] = (drawn + [steps[-1]])[-DRAWN_KEEP:]
        st.session_state[live_key] = steps[-1]
        step = left.select_slider(t("insight.step"), key=live_key, on_change=_pin,
                                  args=(where, live_key), **common)
    else:
        if st.session_state.get(key) not in steps:
            st.session_state[key] = steps[-1]
        step = left.select_slider(t("insight.step"), key=key, **common)
    if right is not None:
        right.button(t("insight.follow"), key=f"{where}.follow_button",
                     icon=":material/fast_forward:", on_click=_follow, args=(where,))
    return int(step)


def _record_at(records: Sequence[Mapping], step: int) -> Mapping | None:
    """The last snapshot at or before ``step``."""
    found = None
    for record in records:
        if record["step"] > step:
            break
        found = record
    return found


def _recorded_text(text: Mapping | None, fallback: str) -> str:
    """A text the run recorded (``{"key", "params"}``) in the reader's language;
    ``fallback`` when its key is not in the catalog or its params do not fit it."""
    text = text or {}
    key, params = text.get("key"), text.get("params") or {}
    if isinstance(key, str) and key in catalog(current_lang()):
        try:
            return t(key, **plain_params(params))
        except (KeyError, IndexError, ValueError):
            pass
    return fallback


def _reason(meta: InsightMeta) -> str:
    """Why the neurons are not drawn, in the reader's language."""
    return _recorded_text(meta.neurons_reason, t("insight.neurons_none"))


def class_labels(meta: InsightMeta) -> list[str]:
    """The plane's class names in the reader's language (a built-in set's recorded texts;
    the names as they are otherwise)."""
    plane = meta.plane
    if plane is None or len(plane.class_texts) != len(plane.class_names):
        return list(plane.class_names) if plane is not None else []
    return [_recorded_text(text, name) for text, name in zip(plane.class_texts,
                                                             plane.class_names)]


def _shown(value: object, form: str) -> str:
    """``value`` in ``form``, or the dash of what a layer does not have (a Flatten's units)."""
    return NO_VALUE if value is None else form.format(value)


def layer_summary(meta: InsightMeta, record: Mapping | None) -> pd.DataFrame:
    """One row per layer: kind, units, activation, parameters, and at the snapshot its
    gradient norm and dead-unit share (a percentage), as the text a class reads: what a
    layer does not have (a Flatten's units, activation, gradient) is a dash, not the
    "None" the grid draws for a missing value."""
    record = record or {}
    grads, dead = record.get("grad_norm", {}), record.get("dead", {})
    rows = [{t("insight.col.layer"): layer.name, t("insight.col.kind"): layer.kind,
             t("insight.col.units"): _shown(layer.units, "{:,}"),
             t("insight.col.activation"): _shown(layer.activation, "{}"),
             t("insight.col.params"): layer.params,
             t("insight.col.grad"): _shown(grads.get(layer.name), "{:.4g}"),
             t("insight.col.dead"): _shown(dead.get(layer.name), "{:.0%}")}
            for layer in meta.layers]
    return pd.DataFrame(rows)


def _titles() -> dict[str, str]:
    return {"x1": "x1", "x2": "x2", "class": t("insight.chart.class"),
            "label": t("insight.chart.label"), "value": t("insight.chart.output"),
            "prediction": t("insight.chart.prediction"),
            "weight": t("insight.chart.weight"), "unit": t("insight.chart.unit")}


def box_key(where: str, name: str) -> str:
    """The key of the container around a chart (its CSS class ``st-key-<key>``)."""
    return f"{where}.{name}".replace(".", "_")


HEADER = 96            # px above a chart scrolled to the top of the window: the app's header


def boundary_css(key: str, style: InsightStyle) -> str:
    """The boundary chart's box ``key``: as wide as its column, within the window's height
    (the whole chart in view when scrolled to it, at 1280x800 too), and as much taller than
    wide as its axes and legend need (:func:`ui.insight.boundary_charts.plane_room`) for a
    square plot."""
    beside, above = plane_room(style)
    cap = f"max({style.plane + beside}px, calc(100vh - {HEADER + above - beside}px))"
    box = f".st-key-{key}"
    return (f"<style>{box} {{ container-type: inline-size; width: min(100%, {cap}); }}\n"
            f"{box} > [data-testid='stElementContainer'] {{ height: calc(100cqw + "
            f"{above - beside}px); }}\n"
            f"{box} [data-testid='stFullScreenFrame'], "
            f"{box} [data-testid='stFullScreenFrame'] > div {{ height: 100%; }}</style>")


def _plane(run_dir: Path, insight: Insight, step: int, where: str,
           style: InsightStyle) -> None:
    """The boundary and the neurons (or why not, and per-layer summaries) at ``step``."""
    meta = insight.meta
    grid, problem = read_grid(run_dir, step, meta)
    if problem is not None:
        st.warning(f"{t('insight.problem')} {located_text(problem)}", icon=":material/warning:")
    record = _record_at(insight.records, step) or {}
    left, right = pair(style)
    lang, titles = current_lang(), _titles()
    with left:
        st.markdown(f"**{t('insight.boundary', step=step, epoch=record.get('epoch', '-'))}**")
        if grid is not None:
            key = box_key(where, "boundary")
            st.html(boundary_css(key, style))
            with st.container(key=key):         # the column's width, square: the CSS above
                cached_chart(("insight.boundary", str(run_dir), step, _digest(grid.conf),
                              style == PRESENTER, lang),
                             lambda: boundary_chart(meta, grid, titles, style,
                                                    class_labels(meta)),
                             width="stretch", height="stretch")
        st.caption(t("insight.value_help" if meta.plane.output == "value"
                     else "insight.boundary_help"))
    with right:
        if not meta.neurons:
            st.info(_reason(meta), icon=":material/info:")
        elif grid is not None:
            with st.container(key=box_key(where, "network")):
                _network(run_dir, meta, grid, style, titles)
    if not meta.neurons:                # the whole width: every column of the table shows
        _summary(meta, record)


def _network(run_dir: Path, meta: InsightMeta, grid: InsightGrid, style: InsightStyle,
             titles: Mapping[str, str]) -> None:
    st.markdown(f"**{t('insight.neurons', step=grid.step)}**")
    arrays = [grid.neurons[n] for n in meta.neurons if n in grid.neurons]
    arrays += [grid.kernels[n] for n in meta.neurons if n in grid.kernels]
    cached_chart(("insight.network", str(run_dir), grid.step, _digest(*arrays),
                  style == PRESENTER, current_lang()),
                 lambda: network_chart(meta, grid, titles, style), width="content")
    st.caption(t("insight.neurons_help"))
    drawn = [n for n in meta.neurons if n in grid.neurons]
    if len(drawn) > MAX_COLUMNS - 1 or any(len(grid.neurons[n]) > MAX_DRAWN for n in drawn):
        st.caption(t("insight.neurons_capped", units=MAX_DRAWN, layers=MAX_COLUMNS - 1))


def _summary(meta: InsightMeta, record: Mapping | None) -> None:
    st.caption(t("insight.summary", step=(record or {}).get("step", "-")))
    st.dataframe(layer_summary(meta, record), hide_index=True, width="stretch",
                 column_config=counted(t("insight.col.params")))   # 3,212,288, as 1,024


def _stat_titles() -> dict[str, str]:
    return {"step": t("insight.chart.step"), "value": t("insight.chart.value"),
            "count": t("insight.chart.count"), "median": t("insight.chart.median"),
            "min": t("insight.chart.min"), "max": t("insight.chart.max"),
            "from": t("insight.chart.from"), "to": t("insight.chart.to"),
            "layer": t("insight.chart.layer")}


def _stats(run_dir: Path, insight: Insight, step: int, where: str,
           style: InsightStyle) -> None:
    """Distributions over steps and the histogram at ``step`` of a chosen variable, the
    gradient norm per layer and the dead-ReLU share per layer."""
    meta, records = insight.meta, insight.records
    st.markdown(f"**{t('insight.weights')}**")
    version = (str(run_dir), len(records), records[-1]["step"], style == PRESENTER,
               current_lang())
    titles = _stat_titles()
    names = hist_names(records, meta)
    record = _record_at(records, step) or records[-1]
    if names:
        name = st.selectbox(t("insight.var"), names, key=f"{where}.var")
        left, right = pair(style)
        with left:
            cached_chart(("insight.dist", version, name),
                         lambda: distribution_chart(
                             distribution_frame(records, name),
                             t("insight.dist", name=name), titles, style))
        with right:
            frame = histogram_frame(record, name)
            if len(frame):
                cached_chart(("insight.hist", version, name, record["step"]),
                             lambda: histogram_chart(
                                 frame, t("insight.hist", name=name, step=record["step"]),
                                 titles, style))
            else:
                st.caption(t("insight.no_hist"))
    left, right = pair(style)
    with left:
        _layers(records, meta, "grad_norm", version, style,
                {**titles, "value": t("insight.chart.norm")})
        st.caption(t("insight.grad_help"))
    with right:
        _layers(records, meta, "dead", version, style,
                {**titles, "value": t("insight.chart.dead")})


def _layers(records: Sequence[Mapping], meta: InsightMeta, group: str, version: tuple,
            style: InsightStyle, titles: Mapping[str, str]) -> None:
    names = layer_order(records, meta, group)
    if not names:
        st.caption(t("insight.dead_none" if group == "dead" else "insight.grad_none"))
        return
    log = group == "grad_norm"
    title = t("insight.grad") if log else t("insight.dead")
    cached_chart(("insight.layers", version, group),
                 lambda: layers_chart(
                     layer_frame(records, group, names, TINY if log else None),
                     names, title, titles, style, log=log, share=not log))


def insight_panel(run_dir: Path | str, where: str, live: bool = False) -> None:
    """The run's insides: a step slider, the boundary and the neurons (plane runs), the
    weights and gradients over time; located problems as warnings; one line when the run
    recorded none. ``where`` prefixes the widget keys; ``live``: the run is training."""
    run_dir = Path(run_dir)
    insight = read_insight(run_dir)
    meta = insight.meta
    if meta is None:
        _problems(insight)
        if not insight.problems:
            st.caption(t("insight.none"))
        return
    style = _style()
    st.subheader(t("insight.title"))
    _problems(insight)
    steps = insight.grid_steps if meta.plane is not None else ()
    steps = steps or tuple(r["step"] for r in insight.records)
    if not steps:
        st.caption(t("insight.waiting"))
        return
    step = pick_step(steps, where, live)
    if meta.every and not style.stacked:
        st.caption(t("insight.every", every=meta.every, count=len(insight.records)))
    if meta.plane is not None and insight.grid_steps:
        _plane(run_dir, insight, step, where, style)
    elif not meta.neurons:
        st.info(_reason(meta), icon=":material/info:")
        _summary(meta, _record_at(insight.records, step))
    if insight.records:
        _stats(run_dir, insight, step, where, style)
