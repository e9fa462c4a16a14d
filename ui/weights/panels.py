"""The weights page's panels: overview, variable table, inspector, initialize, edit, files.

Widgets read and write ``st.session_state``; the work happens in the callbacks of
:mod:`ui.weights.actions`, which call the engine.
"""

from __future__ import annotations

import hashlib
import math
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

from tfcore.model import INITIALIZERS
from tfcore.weights import TensorStats, VariableInfo, WeightTable, histogram, variable_values
from ui.common import PAGES, counted, linked, pick, plain, show_error, t, url_keeps
from ui.weights import actions as act
from ui.weights import charts


RUN_PARAM = "run"                  # ?run=<run id>: the run whose weights the page shows


def show_flash(area: str) -> None:
    """The success message or error a callback left for this panel."""
    found = act.take_flash(area)
    if found is None:
        return
    kind, payload = found
    if kind == "error":
        show_error(payload)
    else:
        st.success(payload, icon=":material/check_circle:")


def _runs_with_weights() -> list[str]:
    from tfcore.weights import has_weights
    from ui.common import workspace

    return [r for r in workspace_runs() if has_weights(workspace().runs / r)]


def open_linked_run() -> bool:
    """``?run=<id>`` (a shared link, a lesson step): choose that run's weights; True when
    the link chose it (a run without weights is named in a warning)."""
    run_id = linked("weights", RUN_PARAM, _runs_with_weights())
    if run_id is None:
        return False
    st.session_state["weights.run"] = run_id
    return True


def forget_run_link() -> None:
    """The model is not a run's: the address no longer names one."""
    if RUN_PARAM in st.query_params:
        del st.query_params[RUN_PARAM]


def pick_run() -> tuple[Any, Any] | None:
    """Choose a run that left weights; return its model and ``RunModel`` (or None). The
    choice is kept in the address (``?run=``)."""
    runs = _runs_with_weights()
    if not runs:
        st.info(t("weights.run.none"))
        return None
    run_id = st.selectbox(t("weights.run.pick"), runs, key="weights.run")
    url_keeps("weights", RUN_PARAM, run_id)
    st.button(t("weights.run.reload"), on_click=act.on_reload_run, key="weights.run.reload")
    model, record = act.run_model(run_id)
    step = "-" if record.step is None else record.step
    st.caption(t("weights.run.loaded", run=plain(run_id), step=step,
                 source=t(f"weights.run.source.{record.source}")))
    return model, record


def workspace_runs() -> list[str]:
    from ui.common import run_store

    return run_store().run_ids()


def deferred_panel() -> None:
    """A model without input shape: say so; build it for a given input shape."""
    st.info(t("weights.deferred.none"), icon=":material/hourglass_empty:")
    st.text_input(t("weights.deferred.shape"), value="2, 20", key="weights.build_shape")
    st.button(t("weights.deferred.build"), on_click=act.on_build, key="weights.build_btn")
    show_flash("build")


def overview(table: WeightTable) -> None:
    """Counts, the layer list (repeats of a shared layer shown) and a tied-weights note."""
    cols = st.columns(3)
    cols[0].metric(t("weights.overview.variables"), len(table.variables))
    cols[1].metric(t("weights.overview.params"), f"{table.total_params:,}")
    cols[2].metric(t("weights.overview.trainable"), f"{table.trainable_params:,}")
    show_flash("build")
    if table.shared_layers:
        st.info(t("weights.overview.shared", layers=", ".join(table.shared_layers),
                  entries=len(table.layers), variables=len(table.variables)),
                icon=":material/link:")
    with st.expander(t("weights.overview.layers")):
        st.dataframe(pd.DataFrame([{
            t("weights.col.layer"): e.name, t("weights.col.class"): e.class_name,
            t("weights.col.params"): e.params,
            t("weights.col.repeat"): e.repeat} for e in table.layers]),
            hide_index=True, width="stretch", column_config=counted(t("weights.col.params")))


def _fmt(value: float) -> float | None:
    return None if math.isnan(value) else round(value, 6)


def _stats_row(stats: TensorStats) -> dict:
    return {t("weights.col.mean"): _fmt(stats.mean), t("weights.col.std"): _fmt(stats.std),
            t("weights.col.min"): _fmt(stats.min), t("weights.col.max"): _fmt(stats.max),
            t("weights.col.zeros"): round(stats.zero_share, 4),
            t("weights.col.nan"): stats.nan_count, t("weights.col.inf"): stats.inf_count}


def variable_table(table: WeightTable) -> None:
    """One row per variable (tied ones once), with the layers that use it."""
    st.subheader(t("weights.table.title"))
    rows = [{t("weights.col.path"): v.path, t("weights.col.layers"): ", ".join(v.layers),
             t("weights.col.shape"): str(v.shape), t("weights.col.dtype"): v.dtype,
             t("weights.col.trainable"): v.trainable, t("weights.col.params"): v.params,
             t("weights.col.device"): v.device} for v in table.variables]
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch", key="weights.table",
                 column_config=counted(t("weights.col.params")))
    st.caption(t("weights.table.stats"))   # a second table: all 14 columns do not fit 1280 px
    stats = [{t("weights.col.path"): v.path, **_stats_row(v.stats)} for v in table.variables]
    st.dataframe(pd.DataFrame(stats), hide_index=True, width="stretch",
                 key="weights.table.stats")


def choose_variable(table: WeightTable) -> VariableInfo:
    """The variable selector, kept valid and correctly labelled when the model changes.

    The widget keeps one key across models, and the browser keeps showing the label it
    last drew while the server sends no value. So when the model's variables (paths and
    shapes) change, the choice is written again: the kept path if the new model has it,
    else its first variable, and the browser is sent the new model's label for it.
    """
    labels = {v.path: f"{v.path}  {v.shape}" for v in table.variables}
    fingerprint = hashlib.sha1("\n".join(labels.values()).encode()).hexdigest()
    chosen = st.session_state.get(act.VAR)
    if chosen not in labels or st.session_state.get(act.VAR_MODEL) != fingerprint:
        st.session_state[act.VAR] = chosen if chosen in labels else next(iter(labels))
        st.session_state[act.VAR_MODEL] = fingerprint
    path = st.selectbox(t("weights.inspect.variable"), list(labels), key=act.VAR,
                        format_func=lambda p: labels.get(p, str(p)))
    return table.variable(path)


def inspector(model: Any, info: VariableInfo) -> None:
    """Statistics and charts of the selected variable."""
    values = variable_values(model, info.path)
    st.dataframe(pd.DataFrame([_stats_row(info.stats)]), hide_index=True, width="stretch")
    names = ["histogram"] + (["heatmap"] if values.ndim == 2 else []) + \
        (["filters"] if values.ndim == 4 else [])
    tabs = st.tabs([t(f"weights.inspect.{n}") for n in names])
    with tabs[0]:
        st.altair_chart(charts.histogram_chart(histogram(values), t("weights.axis.value"),
                                               t("weights.axis.count")), width="stretch")
    if "heatmap" in names:
        with tabs[names.index("heatmap")]:
            _, fr, fc = charts.reduce_matrix(values)
            if fr > 1 or fc > 1:
                st.caption(t("weights.inspect.reduced", rows=fr, cols=fc))
            st.altair_chart(charts.heatmap_chart(values, t("weights.axis.inputs"),
                                                 t("weights.axis.units"),
                                                 t("weights.axis.value")), width="stretch")
    if "filters" in names:
        with tabs[names.index("filters")]:
            channel = st.number_input(t("weights.inspect.channel"), 0, values.shape[2] - 1, 0,
                                      key="weights.channel")
            st.caption(t("weights.inspect.filters_note", shown=min(values.shape[3],
                                                                    charts.MAX_FILTERS),
                         total=values.shape[3]))
            st.altair_chart(charts.filter_grid_chart(values, channel,
                                                     t("weights.axis.filter"),
                                                     t("weights.axis.value")))


def init_panel(table: WeightTable) -> None:
    """Choose scope, initializer, parameters and seed; before/after histograms; rewind."""
    st.subheader(t("weights.init.title"))
    left, right = st.columns(2)
    with left:
        scope = st.radio(t("weights.init.scope"), ["layer", "variable", "model"],
                         horizontal=True, key="weights.init.scope",
                         format_func={s: t(f"weights.init.scope.{s}") for s in
                                      ("layer", "variable", "model")}.get)
        if scope == "layer":
            layers = list(dict.fromkeys(v.layer for v in table.variables))
            if st.session_state.get("weights.init.layer") not in layers:
                st.session_state["weights.init.layer"] = layers[0]
            st.selectbox(t("weights.init.layer"), layers, key="weights.init.layer")
        name = st.selectbox(t("weights.init.name"), list(INITIALIZERS),
                            index=list(INITIALIZERS).index("glorot_uniform"),
                            key="weights.init.name",
                            format_func={n: pick(i.title) for n, i in INITIALIZERS.items()}.get)
        for param in INITIALIZERS[name].params:
            st.number_input(t("weights.init.param", name=param.name), value=param.default,
                            min_value=param.minimum, format="%.4f",
                            key=f"weights.init.{name}.{param.name}")
        st.number_input(t("weights.init.seed"), 0, 2**31 - 1, 0, key="weights.init.seed")
        if scope != "variable":
            st.checkbox(t("weights.init.bias_zero"), key="weights.init.bias_zero")
        st.button(t("weights.init.apply"), type="primary", on_click=act.on_init,
                  key="weights.init.btn")
        st.divider()
        st.number_input(t("weights.init.rewind_seed"), 0, 2**31 - 1, 0,
                        key="weights.rewind_seed")
        st.button(t("weights.init.rewind"), on_click=act.on_rewind, key="weights.rewind_btn",
                  help=t("weights.init.rewind_help"))
    with right:
        show_flash("init")
        last = st.session_state.get(act.LAST_INIT)
        if last:
            _before_after(last)
        else:
            st.caption(t("weights.init.none_yet"))
    if last:   # the five columns need the page's whole width
        _compare_table(last)


def _before_after(last: dict) -> None:
    st.caption(t("weights.init.compare", path=last["path"]))
    pair = charts.before_after_histograms(
        last["before"], last["after"], t("weights.init.before"), t("weights.init.after"),
        t("weights.axis.value"), t("weights.axis.count"))
    for column, chart in zip(st.columns(2), pair):   # each as wide as its half: never cut
        column.altair_chart(chart, width="stretch")


def _compare_table(last: dict) -> None:
    st.dataframe(pd.DataFrame([{
        t("weights.col.path"): c.path,
        t("weights.col.mean_before"): _fmt(c.before.mean),
        t("weights.col.mean_after"): _fmt(c.after.mean),
        t("weights.col.std_before"): _fmt(c.before.std),
        t("weights.col.std_after"): _fmt(c.after.std)} for c in last["report"].changes]),
        hide_index=True, width="stretch")


def edit_panel(info: VariableInfo) -> None:
    """Set one element, add a constant, fill a slice of the selected variable."""
    st.subheader(t("weights.edit.title"))
    st.caption(t("weights.edit.target", path=info.path, shape=str(info.shape)))
    show_flash("edit")
    tab_set, tab_add, tab_fill = st.tabs([t("weights.edit.set"), t("weights.edit.add"),
                                          t("weights.edit.fill")])
    with tab_set:
        st.text_input(t("weights.edit.index"), value=", ".join("0" * len(info.shape)),
                      key="weights.edit.index", help=t("weights.edit.index_help"))
        st.number_input(t("weights.edit.value"), value=42.0, key="weights.edit.set_value")
        st.button(t("weights.edit.set_btn"), on_click=act.on_set, key="weights.edit.set_btn")
    with tab_add:
        st.number_input(t("weights.edit.constant"), value=1.0, key="weights.edit.add_value")
        st.button(t("weights.edit.add_btn"), on_click=act.on_add, key="weights.edit.add_btn")
    with tab_fill:
        st.text_input(t("weights.edit.slice"), value="0:2", key="weights.edit.slice",
                      help=t("weights.edit.slice_help"))
        st.number_input(t("weights.edit.value"), value=0.0, key="weights.edit.fill_value")
        st.button(t("weights.edit.fill_btn"), on_click=act.on_fill,
                  key="weights.edit.fill_btn")


def files_panel(default_name: str) -> None:
    """Save/load the whole model's weights; export the selected tensor; send to training."""
    st.subheader(t("weights.file.title"))
    if "weights.file.name" not in st.session_state:
        st.session_state["weights.file.name"] = default_name
    st.text_input(t("weights.file.name"), key="weights.file.name",
                  help=t("weights.file.name_help"))
    cols = st.columns(4)
    cols[0].button(t("weights.file.save"), on_click=act.on_save, key="weights.file.save")
    cols[1].button(t("weights.file.load"), on_click=act.on_load, key="weights.file.load")
    cols[2].button(t("weights.file.export"), on_click=act.on_export,
                   key="weights.file.export")
    cols[3].button(t("weights.send.btn"), type="primary", on_click=act.on_send,
                   key="weights.send.btn")
    show_flash("file")
    show_flash("send")
    if st.session_state.get(act.TRAIN_WEIGHTS):
        st.caption(t("weights.send.ready", path=st.session_state[act.TRAIN_WEIGHTS]))
        train = next(p for p in PAGES if p.path == "app_pages/train.py")
        if train.exists:
            st.page_link(train.path, label=t("weights.send.link"), icon=train.icon)


def activations_panel(model: Any) -> None:
    """Optional: each layer's activation statistics on one batch."""
    from tfcore.weights import activation_stats, model_input_shape, random_batch

    if not st.toggle(t("weights.act.toggle"), key="weights.act.show"):
        return
    shape = model_input_shape(model)
    if shape is None:
        st.info(t("weights.act.no_input"))
        return
    source = st.radio(t("weights.act.source"), ["random", "dataset"], horizontal=True,
                      key="weights.act.source",
                      format_func={s: t(f"weights.act.{s}") for s in ("random", "dataset")}.get)
    size = st.slider(t("weights.act.batch"), 8, 256, 64, key="weights.act.batch")
    batch = _dataset_batch(shape, size) if source == "dataset" else None
    if source == "dataset" and batch is None:
        st.caption(t("weights.act.dataset_mismatch", shape=str(shape)))
    if batch is None:
        batch = random_batch(shape, size)
    try:
        stats = activation_stats(model, batch)
    except Exception as exc:  # noqa: BLE001 - shown, never raised on the page
        show_error(exc)
        return
    frame = pd.DataFrame([{"label": f"{i + 1}. {s.layer}", "dead": s.dead_share}
                          for i, s in enumerate(stats)])
    st.altair_chart(charts.activation_chart(frame, t("weights.act.layer"),
                                            t("weights.act.dead")), width="stretch")
    st.dataframe(pd.DataFrame([{
        t("weights.act.layer"): s.layer, t("weights.col.class"): s.class_name,
        t("weights.col.shape"): str(s.shape), t("weights.col.mean"): round(s.mean, 5),
        t("weights.col.std"): round(s.std, 5), t("weights.act.zeros"): round(s.zero_share, 4),
        t("weights.act.dead"): round(s.dead_share, 4)} for s in stats]),
        hide_index=True, width="stretch")


@st.cache_resource(show_spinner=False)
def _default_dataset() -> Any:
    from tfcore.data import DEFAULT_DATASET, DatasetRequest, load_dataset

    return load_dataset(DatasetRequest(DEFAULT_DATASET))


def _dataset_batch(shape: tuple, size: int) -> np.ndarray | None:
    """Validation images of the default dataset when they fit the model's input shape."""
    try:
        bundle = _default_dataset()
    except Exception:  # noqa: BLE001 - no dataset module or data yet: random input instead
        return None
    x = bundle.x_val if len(bundle.x_val) else bundle.x_train
    if tuple(x.shape[1:]) != tuple(shape):
        return None
    return x[:size]
