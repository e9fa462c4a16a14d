"""Undo and redo of canvas edits: a list of specs in the session, so an undo is a spec
edit too (every page sees the same draft)."""

from __future__ import annotations

import streamlit as st

from tfcore.model import ModelSpec

HISTORY, AT = "canvas.history", "canvas.at"
LIMIT = 100


def sync(spec: ModelSpec) -> None:
    """Record a draft changed elsewhere (forms, Load, import) as a step."""
    steps = st.session_state.get(HISTORY) or []
    if not steps or steps[st.session_state.get(AT, 0)] != spec:
        record(spec)


def record(spec: ModelSpec) -> None:
    steps = list(st.session_state.get(HISTORY) or [])
    at = st.session_state.get(AT, len(steps) - 1)
    steps = steps[:at + 1] + [spec]
    steps = steps[-LIMIT:]
    st.session_state[HISTORY] = steps
    st.session_state[AT] = len(steps) - 1


def step(delta: int) -> ModelSpec | None:
    """Undo (-1) or redo (+1): the spec to show, or None at either end."""
    steps = st.session_state.get(HISTORY) or []
    at = st.session_state.get(AT, 0) + delta
    if not steps or not 0 <= at < len(steps):
        return None
    st.session_state[AT] = at
    return steps[at]


def can(delta: int) -> bool:
    steps = st.session_state.get(HISTORY) or []
    return bool(steps) and 0 <= st.session_state.get(AT, 0) + delta < len(steps)
