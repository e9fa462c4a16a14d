"""The builder's draft across pages, reloads and restarts: autosaved per browser session
(``?draft=<id>`` in the URL names the file in the workspace), and a Load that asks before
it replaces unsaved edits."""

from __future__ import annotations

import streamlit as st

from tfcore.errors import TFLabError
from tfcore.model import (
    Draft,
    ModelSpec,
    get_preset,
    new_draft_id,
    preset_names,
    read_draft,
    spec_digest,
    valid_draft_id,
    write_draft,
)
from ui.builder.editor import DRAFT, replace_draft
from ui.common import CURRENT_SPEC_KEY, choose, error_text, linked, plain, t, workspace

PARAM = "draft"                      # the URL's query parameter
ID, BASE, WRITTEN = "builder.draft_id", "builder.base", "builder.written"
PENDING = "builder.pending"          # a spec waiting for "Replace" (unsaved edits)
START = "bld.start"                  # the page's "Start from" box


def restore_draft() -> None:
    """Name this session's draft in the URL; on the session's first builder run, bring the
    autosaved draft back (a damaged file: a located warning, then the default model)."""
    draft_id = st.session_state.get(ID)
    if not valid_draft_id(draft_id):
        wanted = st.query_params.get(PARAM)
        draft_id = st.session_state[ID] = wanted if valid_draft_id(wanted) else new_draft_id()
    if st.query_params.get(PARAM) != draft_id:
        st.query_params[PARAM] = draft_id          # a page switch drops it from the URL
    if DRAFT in st.session_state:
        return
    found = None
    try:
        found = read_draft(workspace().root, draft_id)
    except TFLabError as exc:
        st.warning(error_text(exc), icon=":material/warning:")
    if found is not None:
        st.session_state[DRAFT], st.session_state[BASE] = found.spec, found.base
        return
    spec = st.session_state.get(CURRENT_SPEC_KEY) or get_preset("mlp")
    st.session_state[DRAFT], st.session_state[BASE] = spec, spec_digest(spec)


def autosave_draft(spec: ModelSpec) -> None:
    """Write the draft to the workspace when it changed since the last write."""
    draft_id = st.session_state.get(ID)
    if not valid_draft_id(draft_id):
        return
    draft = Draft(spec, st.session_state.get(BASE, ""))
    try:
        st.session_state[WRITTEN] = write_draft(workspace().root, draft_id, draft,
                                                st.session_state.get(WRITTEN))
    except OSError as exc:  # a full or read-only disk: the builder still works
        st.warning(error_text(exc), icon=":material/warning:")


def unsaved() -> bool:
    """Whether the draft differs from the model last saved or loaded."""
    spec = st.session_state.get(DRAFT)
    return spec is not None and spec_digest(spec) != st.session_state.get(BASE)


def mark_saved(spec: ModelSpec) -> None:
    """``spec`` was saved or loaded: the baseline of "unsaved"."""
    st.session_state[BASE] = spec_digest(spec)


def ask_load(spec: ModelSpec) -> None:
    """Open ``spec`` in the editor; with unsaved edits, only after "Replace" is pressed."""
    if unsaved():
        st.session_state[PENDING] = spec
        return
    _open(spec)


def open_linked_preset() -> None:
    """``?preset=NAME`` (a shared link, a lesson step) opens that preset as the Load button
    does: chosen in the start box, asking first when there are unsaved edits."""
    name = linked("builder", "preset", preset_names())
    if name is not None:
        choose(START, name)                    # the box shows it (and sends it back)
        ask_load(get_preset(name))


def _open(spec: ModelSpec) -> None:
    st.session_state.pop(PENDING, None)
    replace_draft(spec)
    mark_saved(spec)


def confirm_load() -> None:
    """The question a pending Load asks: replace the unsaved model, or keep editing."""
    pending = st.session_state.get(PENDING)
    if pending is None:
        return
    current = st.session_state[DRAFT]
    st.warning(t("builder.confirm_load", current=plain(current.name), new=plain(pending.name)),
               icon=":material/warning:")
    with st.container(horizontal=True, gap="small"):
        st.button(t("builder.confirm_replace"), key="bld.confirm_replace", type="primary",
                  icon=":material/check:", on_click=_open, args=(pending,), width="content")
        st.button(t("builder.confirm_keep"), key="bld.confirm_keep", icon=":material/close:",
                  on_click=lambda: st.session_state.pop(PENDING, None), width="content")
