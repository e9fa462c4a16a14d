"""Placement page, MirroredStrategy section (D3): "Number of devices: N" and the
per-replica values of a variable created in the strategy's scope."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from tfcore.labs import STEP, mirrored_demo
from ui.common import guarded, t

RESULT_KEY = "foundations.mirrored.result"


def _table(copies) -> pd.DataFrame:
    return pd.DataFrame([{t("devices.mirrored.col.replica"): i,
                          t("devices.mirrored.col.device"): copy.device,
                          t("devices.mirrored.col.values"): ", ".join(f"{v:g}"
                                                                      for v in copy.values)}
                         for i, copy in enumerate(copies)])


def mirrored_section() -> None:
    """Split into N logical CPUs in a fresh process, mirror a variable, show its copies."""
    st.subheader(t("devices.mirrored.title"))
    st.caption(t("devices.mirrored.intro"))
    cols = st.columns([1, 1])
    logical = cols[0].number_input(t("devices.mirrored.logical"), 0, 8, value=2,
                                   key="foundations.mirrored.logical")
    if cols[1].button(t("devices.mirrored.run"), key="foundations.mirrored.run"):
        with st.spinner(t("devices.mirrored.running")), guarded():
            st.session_state[RESULT_KEY] = mirrored_demo(int(logical))
    demo = st.session_state.get(RESULT_KEY)
    if demo is None:
        return
    st.markdown(f"**{t('devices.mirrored.count', n=demo.number_of_devices)}**")
    st.markdown(t("devices.mirrored.type", type=f"`{demo.variable_type}`"))
    st.caption(t("devices.mirrored.created"))
    st.dataframe(_table(demo.created), hide_index=True)
    st.caption(t("devices.mirrored.updated", step=list(STEP)))
    st.dataframe(_table(demo.updated), hide_index=True)
    st.markdown(t("devices.mirrored.ids", ids=list(demo.replica_ids), sum=demo.replica_id_sum))
    st.code(demo.code, language="python")
