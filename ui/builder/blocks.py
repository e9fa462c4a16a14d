"""Nested blocks in the builder (scenario B3): which block is open, the breadcrumb back
out, grouping chosen layers into a block, opening and ungrouping one.

The open block is a *path* of block names (``()``: the model's top level) kept in
``st.session_state[OPEN]``; every edit is a :mod:`tfcore.model.spec_ops` operation run in
a button callback. An operation that refuses (layers not consecutive, a name taken, ...)
leaves the spec as it was and its located message is shown by the group row.
"""

from __future__ import annotations

from typing import Any, Callable

import streamlit as st

from tfcore.errors import TFLabError
from tfcore.model import ModelSpec, block_children, group_into_block, ungroup, unique_name
from ui.common import catalog, choose_placeholder, current_lang, plain, plain_params, t

OPEN, ERROR = "bld.open_block", "bld.block_error"


def open_path(spec: ModelSpec) -> tuple[str, ...]:
    """The open block's path, or ``()`` when it no longer exists in ``spec``."""
    path = tuple(st.session_state.get(OPEN, ()))
    try:
        block_children(spec, path)
    except TFLabError:
        path = ()
        st.session_state[OPEN] = path
    return path


def set_open(path: tuple[str, ...]) -> None:
    st.session_state[OPEN] = tuple(path)
    st.session_state.pop(ERROR, None)


def error_text(exc: TFLabError) -> str:
    """An engine error's message in the reader's language, values shown literally."""
    if exc.key in catalog(current_lang()):
        try:
            return t(exc.key, **plain_params(exc.params))
        except (KeyError, IndexError, ValueError):
            pass
    return plain(exc.message)


def guarded_edit(draft: Callable[[], ModelSpec], replace_draft: Callable[[ModelSpec], None],
                 edit: Callable[..., ModelSpec], *args: Any) -> Callable[[], None]:
    """A button callback: apply ``edit(spec, *args)``; on a refusal keep the spec and
    leave the message for :func:`show_block_error`."""
    def run() -> None:
        try:
            spec = edit(draft(), *args)
        except TFLabError as exc:
            st.session_state[ERROR] = exc
            return
        st.session_state.pop(ERROR, None)
        replace_draft(spec)
    return run


def show_block_error() -> None:
    exc = st.session_state.get(ERROR)
    if exc is not None:
        st.error(error_text(exc), icon=":material/error:")


def breadcrumb(path: tuple[str, ...]) -> None:
    """Where the editor is: the model, then each open block; buttons to go back out."""
    if not path:
        return
    trail = " › ".join([t("blocks.model"), *(plain(name) for name in path)])
    st.info(t("blocks.inside", trail=trail), icon=":material/folder_open:")
    with st.container(horizontal=True):
        st.button(t("blocks.back", name=plain(path[-2]) if len(path) > 1 else
                    t("blocks.model")), key="bld.block_up", icon=":material/arrow_back:",
                  on_click=set_open, args=(path[:-1],), width="content")
        if len(path) > 1:
            st.button(t("blocks.top"), key="bld.block_top", icon=":material/home:",
                      on_click=set_open, args=((),), width="content")


def block_buttons(path: tuple[str, ...], name: str, key: Callable[..., str],
                  draft: Callable[[], ModelSpec],
                  replace_draft: Callable[[ModelSpec], None]) -> None:
    """In a Block's form: open it to edit its layers, or put its layers back in place."""
    with st.container(horizontal=True):
        st.button(t("blocks.open"), key=key("open"), icon=":material/folder_open:",
                  on_click=set_open, args=(path + (name,),), help=t("blocks.open_help"),
                  width="content", type="primary")
        st.button(t("blocks.ungroup"), key=key("ungroup"), icon=":material/folder_off:",
                  on_click=guarded_edit(draft, replace_draft, ungroup, name),
                  help=t("blocks.ungroup_help"), width="content")


def _group(spec: ModelSpec, pick_key: str, name_key: str) -> ModelSpec:
    names = st.session_state.get(pick_key) or []
    block = str(st.session_state.get(name_key) or "").strip()
    return group_into_block(spec, names, block or None)


def group_row(spec: ModelSpec, path: tuple[str, ...], key: Callable[..., str],
              draft: Callable[[], ModelSpec],
              replace_draft: Callable[[ModelSpec], None]) -> None:
    """Choose consecutive layers of the open container and group them into a block."""
    names = [e.name for e in block_children(spec, path)]
    if not names:
        return
    with st.container(border=True):
        st.markdown(f"**{t('blocks.group_title')}**")
        cols = st.columns([3, 2], vertical_alignment="bottom")   # the button gets its own row
        pick_key, name_key = key("group", "pick"), key("group", "name")
        cols[0].multiselect(t("blocks.group_pick"), names, key=pick_key,
                            help=t("blocks.group_pick_help"),
                            placeholder=choose_placeholder(names, many=True))
        cols[1].text_input(t("blocks.group_name"), unique_name(spec, "block"),
                           key=name_key, help=t("blocks.group_name_help"))
        st.button(t("blocks.group"), key="bld.group", icon=":material/folder_special:",
                  on_click=guarded_edit(draft, replace_draft, _group, pick_key, name_key),
                  disabled=not names, width="stretch")
        show_block_error()
