"""Train: pick a model, a dataset and a device; start a run; watch it live."""

import streamlit as st

from tfcore.training import jobs
from ui.common import guarded, run_store, t, workspace
from ui.training import BUFFER_KEY, RUN_KEY, live_panel, setup_form

st.title(t("train.title"))
st.caption(t("train.intro"))

request = setup_form()
if st.button(t("train.start"), type="primary", icon=":material/model_training:",
             disabled=request is None, key="train.start"):
    with guarded():
        st.session_state[RUN_KEY] = jobs.start_run(workspace().runs, request)
        st.session_state.pop(BUFFER_KEY, None)

st.divider()
st.subheader(t("train.live"))
runs = run_store().run_ids()
if not runs:
    st.info(t("train.no_runs"))
else:
    current = st.session_state.get(RUN_KEY)
    if current not in runs:
        current = runs[0]               # after a reload: the newest run
    run_id = st.selectbox(t("train.watch"), runs, index=runs.index(current),
                          key=f"train.watch.{current}")
    st.session_state[RUN_KEY] = run_id
    with guarded():
        live_panel(run_id)
