"""Which step each presenting window is on, for its notes window (a second browser window,
a session of its own) to follow: one small map per server process."""

from __future__ import annotations

from collections import OrderedDict
from threading import Lock

import streamlit as st

MAX_PAIRS = 1000


@st.cache_resource(show_spinner=False)
def _pairs() -> tuple[OrderedDict, Lock]:
    return OrderedDict(), Lock()


def publish(pair: str, lesson: str, number: int) -> None:
    """The window ``pair`` is now on step ``number`` of ``lesson``."""
    pairs, lock = _pairs()
    with lock:
        pairs[pair] = (lesson, number)
        pairs.move_to_end(pair)
        while len(pairs) > MAX_PAIRS:
            pairs.popitem(last=False)


def followed(pair: str | None) -> tuple[str, int] | None:
    """The lesson and step the window ``pair`` is on, None when no such window is known
    (the server restarted, or the link names none)."""
    if not pair:
        return None
    pairs, lock = _pairs()
    with lock:
        return pairs.get(pair)
