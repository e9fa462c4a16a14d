"""Train: pick a model, a dataset and a device; start a run; watch it live."""

import streamlit as st

from tfcore.training import start_run
from ui.common import guarded, presenter_mode, run_store, t, workspace
from ui.lessons import followed_run
from ui.training import (
    RUN_KEY,
    empty_panel,
    live_panel,
    mark_started,
    run_picker,
    setup_form,
    watched_run,
)

presenting = presenter_mode()
# Presenter mode, 1280x800 on a projector: the Train button beside the title, no divider
# or heading above the live panel, the run picker below it, so the chart is in view.
head, action = st.columns([4, 1], vertical_alignment="bottom") if presenting \
    else (st.container(), st.container())
head.title(t("train.title"))
if not presenting:
    st.caption(t("train.intro"))

with st.expander(t("train.setup"), expanded=False) if presenting else st.container():
    form = setup_form()
for problem in form.problems:
    st.warning(problem, icon=":material/block:")
if action.button(t("train.start"), type="primary", icon=":material/model_training:",
                 disabled=form.request is None, key="train.start"):
    with guarded():
        st.session_state[RUN_KEY] = start_run(workspace().runs, form.request)
        mark_started(st.session_state[RUN_KEY])

if not presenting:
    st.divider()
    st.subheader(t("train.live"))
records = run_store().list()               # newest first
current = watched_run(records)
followed = followed_run()                  # a student following the teacher's run
if followed is not None:
    st.caption(t("lessons.follow.run"))
    with guarded():
        live_panel(followed, read_only=True)
elif current is None:
    empty_panel()
else:
    panel = st.container() if presenting else None          # drawn above the picker
    run_id = run_picker(records, current)    # its labels redraw when a state changes
    with panel if panel is not None else st.container(), guarded():
        live_panel(run_id)
