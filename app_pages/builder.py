"""Model builder: edit a spec by point-and-click; diagram, summary, problems, code, save."""

import streamlit as st

from tfcore.model import get_preset, preset_names, preset_title, scratch_spec, summarize
from ui.builder import (
    DRAFT,
    ask_load,
    autosave_draft,
    code_tab,
    confirm_load,
    deferred_panel,
    diagram,
    header_editor,
    inputs_editor,
    io_tab,
    labels,
    layers_editor,
    open_linked_preset,
    outputs_editor,
    problems_panel,
    restore_draft,
    save_tab,
    summary_table,
    try_panel,
)
from ui.canvas import canvas_mode
from ui.common import CURRENT_SPEC_KEY, kept, linked_tabs, pick, plain, t

st.title(t("builder.title"))
st.caption(t("builder.intro"))

restore_draft()     # this session's autosaved model (after a reload or a restart too)
open_linked_preset()  # ?preset=NAME: a shared link or a lesson step

starts = ["scratch", *preset_names()]
cols = st.columns([3, 1], vertical_alignment="bottom")
kept(cols[0].selectbox, t("builder.start"), starts, key="bld.start", index=starts.index("mlp"),
     format_func=labels({n: t("builder.scratch") if n == "scratch"
                         else pick(preset_title(n)) for n in starts}))
cols[1].button(t("builder.load"), key="bld.load", icon=":material/restart_alt:",
               on_click=lambda: ask_load(scratch_spec() if st.session_state["bld.start"] ==
                                         "scratch" else get_preset(st.session_state["bld.start"])))
confirm_load()      # Load with unsaved edits asks first

if canvas_mode():  # the Canvas mode draws its own editor and panels (ui/canvas)
    autosave_draft(st.session_state[DRAFT])
    st.stop()
draft = st.session_state[DRAFT]
before = summarize(draft)
by_layer: dict[str, list] = {}
for problem in before.problems:
    by_layer.setdefault(problem.location, []).append(problem)

left, right = st.columns([9, 11], gap="large")   # the summary table needs the wider half
with left:
    spec = header_editor(draft)
    spec = inputs_editor(spec)
    spec = layers_editor(spec, by_layer)
    spec = outputs_editor(spec)
st.session_state[DRAFT] = spec
autosave_draft(spec)

summary = summarize(spec)
if list(map(str, summary.problems)) != list(map(str, before.problems)):
    st.rerun()  # pin the new problems (a new value at the same place too) to their forms
if summary.ok:
    st.session_state[CURRENT_SPEC_KEY] = spec
good = st.session_state.get(CURRENT_SPEC_KEY)

with right:
    problems_panel(summary)
    if not summary.ok and good is not None and good != spec:
        st.caption(t("builder.last_good", name=plain(good.name)))
    shown, shown_summary = (spec, summary) if summary.ok or good is None else (
        good, summarize(good))
    st.subheader(t("builder.diagram"))
    diagram(shown, shown_summary, {p.location for p in summary.problems})
    st.subheader(t("builder.summary"))
    summary_table(shown_summary)
    if summary.deferred:
        deferred_panel(spec)

trial, code, io, save = linked_tabs("builder", {
    "tryit": t("tryit.tab"), "code": t("builder.tab.code"), "io": t("builder.tab.io"),
    "save": t("builder.tab.save")})
with trial:
    try_panel(shown)
with code:
    code_tab(shown)
with io:
    io_tab(spec)
with save:
    save_tab(spec, summary.ok)
