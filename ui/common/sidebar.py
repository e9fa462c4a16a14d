"""The sidebar shared by every page: language, presenter mode, devices, live job count."""

from __future__ import annotations

import time

import streamlit as st

from tfcore.rundir import ACTIVE_STATES, RunStore
from ui.common.i18n import language_selector, t
from ui.common.resources import devices_now, workspace

PRESENTER_KEY = "presenter"            # the session's choice; not a widget key
PRESENTER_WIDGET = "presenter_widget"
PRESENTER_PARAM = "present"            # ?present=1 opens in presenter mode
JOBS_EVERY = 5.0    # seconds between refreshes of the active-run count (a classroom: 30 sessions)
PRESENTER_CSS = """<style>
[data-testid="stMetricValue"] { font-size: 2.6rem; }
[data-testid="stMetricLabel"] p { font-size: 1.4rem; }
[data-testid="stCaptionContainer"] { font-size: 1.15rem; }
[data-testid="stMainBlockContainer"] h1 { font-size: 3rem; }
[data-testid="stMainBlockContainer"] { padding-top: 3rem; }
</style>"""


def presenter_mode() -> bool:
    """Whether this session shows charts and numbers for a projector."""
    if PRESENTER_KEY not in st.session_state:
        st.session_state[PRESENTER_KEY] = st.query_params.get(PRESENTER_PARAM) in ("1", "true")
    return bool(st.session_state[PRESENTER_KEY])


def render() -> None:
    language_selector()
    _presenter_toggle()
    report = devices_now()           # None while TensorFlow loads: redrawn once it has
    st.sidebar.caption(t("app.sidebar.devices", gpus=report.gpu_count,
                         logical=len(report.logical)) if report else
                       t("app.sidebar.devices_loading"))
    with st.sidebar:
        _jobs()


def _presenter_toggle() -> None:
    """The sidebar's presenter switch, drawn with the session's choice as its default under
    a key that names it (never set through session state: see ``language_selector``)."""
    on = presenter_mode()
    key = f"{PRESENTER_WIDGET}.{int(on)}"

    def _changed() -> None:
        st.session_state[PRESENTER_KEY] = bool(st.session_state.get(key))

    st.sidebar.toggle(t("app.sidebar.presenter"), value=on, key=key, on_change=_changed,
                      help=t("app.sidebar.presenter_help"))
    if presenter_mode():
        st.html(PRESENTER_CSS)
        if st.query_params.get(PRESENTER_PARAM) != "1":
            st.query_params[PRESENTER_PARAM] = "1"
    elif PRESENTER_PARAM in st.query_params:
        del st.query_params[PRESENTER_PARAM]


def active_runs(runs_root: str) -> int:
    """How many runs are queued, running or stopping, as their status files say now.

    Not cached on a clock (a count cached for seconds outlived the run it counted): the
    store re-parses a run file only when its stat changed, shared by every session of the
    process, so a count costs a few ``stat`` calls per run.
    """
    return sum(1 for r in RunStore(runs_root).list() if r.status.state in ACTIVE_STATES)


@st.fragment(run_every=JOBS_EVERY)
def _jobs() -> None:
    """The active-run count; redraws itself every few seconds without a page rerun."""
    _reconcile_jobs()
    st.caption(t("app.sidebar.jobs", active=active_runs(str(workspace().runs))))


_RECONCILED = [0.0]
RECONCILE_EVERY = 5.0


def _reconcile_jobs() -> None:
    """At most every few seconds: mark runs whose worker died, start queued runs."""
    if time.time() - _RECONCILED[0] < RECONCILE_EVERY:
        return
    _RECONCILED[0] = time.time()
    try:
        from tfcore.training import reconcile

        reconcile(workspace().runs)
    except Exception:  # noqa: BLE001 - the sidebar never breaks a page
        pass
