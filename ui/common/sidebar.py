"""The sidebar shared by every page: language, devices, jobs."""

from __future__ import annotations

import time

import streamlit as st

from tfcore.rundir import ACTIVE_STATES
from ui.common.i18n import language_selector, t
from ui.common.resources import devices_report, run_store


def render() -> None:
    language_selector()
    report = devices_report()
    st.sidebar.caption(t("app.sidebar.devices", gpus=report.gpu_count,
                         logical=len(report.logical)))
    _reconcile_jobs()
    active = [r for r in run_store().list() if r.status.state in ACTIVE_STATES]
    st.sidebar.caption(t("app.sidebar.jobs", active=len(active)))


_RECONCILED = [0.0]
RECONCILE_EVERY = 5.0


def _reconcile_jobs() -> None:
    """At most every few seconds: mark runs whose worker died, start queued runs."""
    if time.time() - _RECONCILED[0] < RECONCILE_EVERY:
        return
    _RECONCILED[0] = time.time()
    try:
        from tfcore.training import jobs
        from ui.common.resources import workspace

        jobs.reconcile(workspace().runs)
    except Exception:  # noqa: BLE001 - the sidebar never breaks a page
        pass
