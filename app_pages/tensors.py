"""Tensors & gradients: tensors and operations, GradientTape, gradient descent live, saving."""

import streamlit as st

from ui.common import linked_tabs, t
from ui.foundations import gd_tab, saving_tab, tape_tab, tensors_tab

st.title(t("foundations.tensors.title"))
st.markdown(t("foundations.tensors.intro"))

tabs = linked_tabs("tensors", {name: t(f"foundations.tab.{name}")
                               for name in ("tensors", "tape", "gd", "save")})
with tabs[0]:
    tensors_tab()
with tabs[1]:
    tape_tab()
with tabs[2]:
    gd_tab()
with tabs[3]:
    saving_tab()
