"""Weights lab: see, initialize and edit a model's parameters."""

import streamlit as st

from tfcore.errors import TFLabError
from tfcore.weights import is_deferred, safe_file_stem, variable_table
from ui.common import pick_model, show_error, t
from ui.weights import actions as act
from ui.weights import panels, path_browser

st.title(t("weights.title"))
st.caption(t("weights.intro"))

origin = st.radio(t("weights.origin"), ["model", "run"], horizontal=True, key="weights.origin",
                  format_func={o: t(f"weights.origin.{o}") for o in ("model", "run")}.get)
model = None
try:
    if origin == "run":
        found = panels.pick_run()
        model = found[0] if found else None
    else:
        spec = pick_model("weights", default_preset="mlp")
        model = act.spec_model(spec) if spec is not None else None
except TFLabError as exc:
    show_error(exc)
if model is None:
    st.stop()
spec = act.current_spec()

if is_deferred(model):
    panels.deferred_panel()
    st.stop()

table = variable_table(model)
panels.overview(table)
if not table.variables:
    st.info(t("weights.no_variables"))
    st.stop()
panels.variable_table(table)

st.subheader(t("weights.inspect.title"))
info = panels.choose_variable(table)
panels.inspector(model, info)
path_browser.path_browser(model, table)

panels.init_panel(table)
panels.edit_panel(info)
panels.files_panel(safe_file_stem(spec.name, default="weights"))
st.subheader(t("weights.act.title"))
panels.activations_panel(model)
