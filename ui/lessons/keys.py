"""The keyboard's Left / Right arrows as Previous / Next: a few lines of JavaScript in the
page itself (a Streamlit component of our own, nothing fetched), which ignore keys typed
into a field, a slider, a tab strip or a list, and keys held with a modifier."""

from __future__ import annotations

import streamlit as st
from streamlit.components.v2 import component

JS = """
export default function ({ setTriggerValue }) {
  const MARK = 'data-lesson-keys';
  const SKIP = 'input, textarea, select, [contenteditable=""], [contenteditable="true"], '
    + '[role="slider"], [role="tab"], [role="listbox"], [role="option"], [role="combobox"], '
    + '[role="textbox"], [role="menu"], [role="grid"], iframe';
  const onKey = (event) => {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey
        || event.shiftKey || event.repeat) return;
    const move = {ArrowLeft: 'prev', ArrowRight: 'next'}[event.key];
    const target = event.target;
    if (!move || (target && target.closest && target.closest(SKIP))) return;
    event.preventDefault();
    setTriggerValue('move', move);
  };
  const root = document.documentElement;
  document.addEventListener('keydown', onKey);
  root.setAttribute(MARK, 'on');                    // tests wait for it: the keys listen
  return () => {
    document.removeEventListener('keydown', onKey);
    root.removeAttribute(MARK);
  };
}
"""
_keys = component("tflab_lesson_keys", js=JS)


def arrow_keys() -> str | None:
    """``"prev"`` or ``"next"`` when an arrow key was pressed since the last run, else None."""
    result = _keys(key="lessons.keys", on_move_change=lambda: None)
    move = getattr(result, "move", None) if result is not None else None
    return move if move in ("prev", "next") else None
