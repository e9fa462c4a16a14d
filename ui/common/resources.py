"""Heavy, shared objects cached once per server process.

TensorFlow's import takes 5-15 s of a busy server's CPU, so no page waits for it unless it
needs TensorFlow itself: the router starts it in a background thread once the first page
has been drawn (:func:`preload_tensorflow`); the sidebar, the home page and the Train form
ask :func:`devices_now` / :func:`versions_now`, which answer None until it is loaded, and
:func:`rerun_when_tensorflow_loads` redraws a page that showed such a placeholder.
"""

from __future__ import annotations

import threading
from pathlib import Path

import streamlit as st

from tfcore.rundir import RunStore
from tfcore.tfenv import DevicesReport, VersionsReport, configure_server_process
from tfcore.workspace import Workspace, default_workspace


@st.cache_resource(show_spinner=False)
def tensorflow_ready() -> bool:
    """Configure TensorFlow for the server process once (GPU memory growth); blocks
    until TensorFlow is imported."""
    configure_server_process()
    _LOADED.set()
    return True


_LOADED = threading.Event()            # TensorFlow is imported and configured
_PRELOAD = threading.Lock()
_PRELOADER: list[threading.Thread] = []
PENDING_KEY = "tflab.tf_pending"       # this session drew a placeholder for TensorFlow
WATCH_EVERY = 0.5                      # seconds between checks while TensorFlow loads


def _preload() -> None:
    try:
        configure_server_process()
    finally:
        _LOADED.set()            # a failed import fails again, located, where it is needed


def preload_tensorflow() -> None:
    """Import and configure TensorFlow in a background thread, once per process; returns
    at once. Pages that need it still call :func:`tensorflow_ready` (which waits)."""
    with _PRELOAD:
        if not _PRELOADER and not _LOADED.is_set():
            thread = threading.Thread(target=_preload, name="tflab-tensorflow-preload",
                                      daemon=True)
            _PRELOADER.append(thread)
            thread.start()


def tensorflow_loaded() -> bool:
    """Whether TensorFlow is imported and configured in this process (never waits)."""
    return _LOADED.is_set()


def devices_now() -> DevicesReport | None:
    """:func:`devices_report` once TensorFlow is loaded; None (and the page is redrawn
    when it is) before."""
    return devices_report() if _available() else None


def versions_now() -> VersionsReport | None:
    """:func:`versions_report` once TensorFlow is loaded; None (redrawn later) before."""
    return versions_report() if _available() else None


def _available() -> bool:
    if tensorflow_loaded():
        return True
    st.session_state[PENDING_KEY] = True
    return False


def rerun_when_tensorflow_loads() -> None:
    """While TensorFlow loads and this session drew a placeholder for it, check every
    :data:`WATCH_EVERY` seconds (a fragment, no page rerun) and redraw the page once it is
    loaded. Draws nothing."""
    if tensorflow_loaded() or not st.session_state.get(PENDING_KEY):
        return

    @st.fragment(run_every=WATCH_EVERY)
    def watch() -> None:
        if tensorflow_loaded():
            st.session_state.pop(PENDING_KEY, None)
            st.rerun()

    with st.sidebar:
        watch()


def warm_worker() -> None:
    """Keep a warm training worker ready so Start does not wait for TensorFlow's import.

    Cheap on every rerun: the pool only starts a process when none is idle or warming.
    ``TFLAB_WARM_WORKER=0`` turns it off.
    """
    from tfcore.training import prewarm

    prewarm()


def workspace() -> Workspace:
    """The workspace ``TFLAB_WORKSPACE`` names now (each folder created once per process)."""
    return _workspace(default_workspace().root)


@st.cache_resource(show_spinner=False)
def _workspace(root: Path) -> Workspace:
    return Workspace(root).ensure()


def run_store() -> RunStore:
    return RunStore(workspace().runs)


@st.cache_resource(show_spinner=False)
def devices_report() -> DevicesReport:
    from tfcore.tfenv import describe_devices

    tensorflow_ready()
    return describe_devices()


@st.cache_resource(show_spinner=False)
def versions_report() -> VersionsReport:
    from tfcore.tfenv import versions

    tensorflow_ready()
    return versions()
