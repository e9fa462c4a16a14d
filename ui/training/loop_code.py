"""The Train page's view of the hand-written GradientTape loop (scenario T1).

Shown when the GradientTape loop is chosen: the code the run trains with for the chosen
loss and optimizer, produced by the engine (:func:`tfcore.training.tape_loop_code`, the real
step's source plus a header), so the page never keeps its own copy of the loop.
"""

from __future__ import annotations

from typing import Any, Mapping

import streamlit as st

from tfcore.training import tape_loop_code
from ui.common import guarded, t


def show_loop_code(config: Mapping[str, Any]) -> None:
    """An expander with the loop's code; nothing when the Keras ``fit`` loop is chosen."""
    if config.get("loop") != "custom":
        return
    with st.expander(t("train.loop_code.title")):
        st.caption(t("train.loop_code.help"))
        with guarded():
            st.code(tape_loop_code(config), language="python")
