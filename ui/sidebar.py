"""The sidebar shared by every page: language, devices, jobs."""

from __future__ import annotations

import streamlit as st

from tfcore.runs import ACTIVE_STATES
from ui.i18n import language_selector, t
from ui.resources import devices_report, run_store


def render() -> None:
    language_selector()
    report = devices_report()
    st.sidebar.caption(t("app.sidebar.devices", gpus=report.gpu_count,
                         logical=len(report.logical)))
    active = [r for r in run_store().list() if r.status.state in ACTIVE_STATES]
    st.sidebar.caption(t("app.sidebar.jobs", active=len(active)))
