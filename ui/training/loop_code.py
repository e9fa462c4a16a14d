"""The Train page's view of the hand-written GradientTape loop (scenario T1).

Shown when the GradientTape loop is chosen: the code the run trains with for the chosen
loss and optimizer, produced by the engine (:func:`tfcore.training.tape_loop_code`, the real
step's source plus a header), so the page never keeps its own copy of the loop.
"""

from __future__ import annotations

from typing import Any, Mapping

import streamlit as st

from tfcore.training import LOOP_KINDS, tape_loop_code
from ui.common import guarded, t


def show_loop_code(config: Mapping[str, Any]) -> None:
    """An expander with the loop's code; nothing for a loop that shows none (Keras ``fit``)."""
    loop = LOOP_KINDS.get(config.get("loop"))
    if loop is None or not loop.shows_code:
        return
    with st.expander(t("train.loop_code.title")):
        st.caption(t("train.loop_code.help"))
        with guarded():
            st.code(tape_loop_code(config), language="python")
