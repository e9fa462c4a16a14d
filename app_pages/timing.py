"""Eager vs graph: time eager, tf.function, XLA and Keras's step; tracing lab; AutoGraph."""

import streamlit as st

from ui.common import linked_tabs, t
from ui.timing import autograph_panel, compare_panel, g1_panel, sweep_panel, tracing_panel

st.title(t("timing.title"))
st.markdown(t("timing.intro"))

compare, g1, sweep, tracing, autograph = linked_tabs("timing", {
    name: t(f"timing.tab.{name}") for name in ("compare", "g1", "sweep", "tracing", "autograph")})
with compare:
    compare_panel()
with g1:
    g1_panel()
with sweep:
    sweep_panel()
with tracing:
    tracing_panel()
with autograph:
    autograph_panel()
