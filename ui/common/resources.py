"""Heavy, shared objects cached once per server process.

TensorFlow's import takes 5-15 s of a busy server's CPU, so no page waits for it unless it
needs TensorFlow itself: the router starts it in a background thread once the first page
has been drawn (:func:`preload_tensorflow`); the sidebar, the home page and the Train form
ask :func:`devices_now`, which answers None until it is loaded, and
:func:`rerun_when_tensorflow_loads` redraws a page that showed such a placeholder.
"""

from __future__ import annotations

import builtins
import sys
import threading
from pathlib import Path
from typing import Any

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


HEAVY = ("tensorflow", "keras", "tf_keras", "tensorboard")
_IMPORT = builtins.__import__


def _heavy(name: str) -> bool:
    top = name.partition(".")[0]
    return top in HEAVY or top.startswith("tensorflow")


def _gated_import(name: str, globals: Any = None, locals: Any = None, fromlist: Any = (),
                  level: int = 0) -> Any:
    """``import`` while the background thread imports TensorFlow: another thread's import
    of TensorFlow or Keras waits until it is done, then imports as usual. Two threads that
    import TensorFlow at once deadlock on its circular imports (Python gives up on one with
    ``_DeadlockError``, leaving TensorFlow half imported). Waiting here, before the import
    takes any module lock, holds nothing the background import needs (a meta-path finder
    would wait holding the module's lock: ``keras``, which TensorFlow's import takes too)."""
    if level == 0 and not _LOADED.is_set() and _heavy(name) \
            and threading.current_thread() not in _PRELOADER:
        _LOADED.wait()
    return _IMPORT(name, globals, locals, fromlist, level)


def _preload() -> None:
    try:
        configure_server_process()
    finally:
        _LOADED.set()            # a failed import fails again, located, where it is needed
        if builtins.__import__ is _gated_import:
            builtins.__import__ = _IMPORT


def preload_tensorflow() -> None:
    """Import and configure TensorFlow in a background thread, once per process; returns
    at once. Meanwhile other threads' imports of TensorFlow wait for it
    (:func:`_gated_import`); pages that need it call :func:`tensorflow_ready` (which
    waits)."""
    with _PRELOAD:
        if not _PRELOADER and not _LOADED.is_set():
            thread = threading.Thread(target=_preload, name="tflab-tensorflow-preload",
                                      daemon=True)
            _PRELOADER.append(thread)
            if builtins.__import__ is _IMPORT and not any(n in sys.modules for n in HEAVY):
                builtins.__import__ = _gated_import      # no import of it under way
            thread.start()


def tensorflow_loaded() -> bool:
    """Whether TensorFlow is imported and configured in this process (never waits)."""
    return _LOADED.is_set()


def devices_now() -> DevicesReport | None:
    """:func:`devices_report` once TensorFlow is loaded; None (and the page is redrawn
    when it is) before."""
    return devices_report() if _available() else None


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
    """The software versions, read without importing TensorFlow."""
    from tfcore.tfenv import versions

    return versions()
