"""Weights lab: see, initialize and edit a model's parameters."""

import streamlit as st

from tfcore.errors import TFLabError
from tfcore.weights import is_deferred, safe_file_stem, variable_table
from ui.common import open_linked_model, pick_model, show_error, t
from ui.weights import (
    activations_panel,
    choose_variable,
    current_spec,
    deferred_panel,
    edit_panel,
    files_panel,
    forget_run_link,
    init_panel,
    inspector,
    open_linked_run,
    overview,
    path_browser,
    pick_run,
    spec_model,
)
from ui.weights import variable_table as table_panel

st.title(t("weights.title"))
st.caption(t("weights.intro"))
if open_linked_model("weights", "weights"):   # ?preset=NAME: a shared link, a lesson step
    st.session_state["weights.origin"] = "model"
if open_linked_run():                         # ?run=ID: a run's weights (after ?preset=)
    st.session_state["weights.origin"] = "run"

origin = st.radio(t("weights.origin"), ["model", "run"], horizontal=True, key="weights.origin",
                  format_func={o: t(f"weights.origin.{o}") for o in ("model", "run")}.get)
model = None
try:
    if origin == "run":
        found = pick_run()
        model = found[0] if found else None
    else:
        forget_run_link()
        spec = pick_model("weights", default_preset="mlp")
        model = spec_model(spec) if spec is not None else None
except TFLabError as exc:
    show_error(exc)
if model is None:
    st.stop()
spec = current_spec()

if is_deferred(model):
    deferred_panel()
    st.stop()

table = variable_table(model)
overview(table)
if not table.variables:
    st.info(t("weights.no_variables"))
    st.stop()
table_panel(table)

st.subheader(t("weights.inspect.title"))
info = choose_variable(table)
inspector(model, info)
path_browser(model, table)

init_panel(table)
edit_panel(info)
files_panel(safe_file_stem(spec.name, default="weights"))
st.subheader(t("weights.act.title"))
activations_panel(model)
