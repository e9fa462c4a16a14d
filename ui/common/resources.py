"""Heavy, shared objects cached once per server process."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from tfcore.rundir import RunStore
from tfcore.tfenv import DevicesReport, VersionsReport, configure_server_process
from tfcore.workspace import Workspace, default_workspace


@st.cache_resource(show_spinner=False)
def tensorflow_ready() -> bool:
    """Configure TensorFlow for the server process once (GPU memory growth)."""
    configure_server_process()
    return True


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
