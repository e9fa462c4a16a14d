"""Train: pick a model, a dataset and a device; start a run; watch it live."""

import streamlit as st

from tfcore.training import start_run
from ui.common import guarded, presenter_mode, run_store, t, workspace
from ui.training import (
    RUN_KEY,
    empty_panel,
    live_panel,
    mark_started,
    run_picker,
    setup_form,
    watched_run,
)

st.title(t("train.title"))
presenting = presenter_mode()
if not presenting:
    st.caption(t("train.intro"))

with st.expander(t("train.setup"), expanded=False) if presenting else st.container():
    form = setup_form()
for problem in form.problems:
    st.warning(problem, icon=":material/block:")
if st.button(t("train.start"), type="primary", icon=":material/model_training:",
             disabled=form.request is None, key="train.start"):
    with guarded():
        st.session_state[RUN_KEY] = start_run(workspace().runs, form.request)
        mark_started(st.session_state[RUN_KEY])

st.divider()
st.subheader(t("train.live"))
records = run_store().list()               # newest first
current = watched_run(records)
if current is None:
    empty_panel()
else:
    run_id = run_picker(records, current)    # its labels redraw when a state changes
    with guarded():
        live_panel(run_id)
