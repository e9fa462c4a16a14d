"""The "Open in TensorBoard" button (scenario T4): starts the real TensorBoard for the
runs folder on 127.0.0.1 (one per folder for every server process, reused, stopped when
the last server using it exits) and links to it, filtered to one run."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from tfcore.runs import TensorBoardInfo, open_tensorboard, run_url, running_tensorboard
from ui.common import guarded, plain, t


def _running(logdir: Path) -> TensorBoardInfo | None:
    """The TensorBoard this server uses when it lives and reads ``logdir``."""
    info = running_tensorboard()
    return info if info is not None and info.logdir == logdir.resolve() else None


def open_button(logdir: Path, run_dir: Path | None, key: str) -> None:
    """A button that starts (or reuses) TensorBoard for ``logdir`` and a link to
    ``run_dir``'s curves in it."""
    logdir = Path(logdir)
    info = _running(logdir)
    if st.button(t("tensorboard.open"), key=f"{key}.tensorboard", icon=":material/insights:"):
        with st.spinner(t("tensorboard.starting")), guarded():
            info = open_tensorboard(logdir)
    if info is None:
        return
    url = run_url(info, run_dir)
    st.link_button(t("tensorboard.link"), url, icon=":material/open_in_new:")
    st.caption(t("tensorboard.where", url=plain(url), pid=info.pid))
