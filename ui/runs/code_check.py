"""Runs page, one run: does the workspace still have the user-written code this run trained
with? Restore, evaluate and export build the model in this process with the code loaded
from the workspace now; when a file of the run's own copy (``<run>/custom/``) differs, say
so and offer to put the run's code back (trusted servers; the teacher on a shared one)."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from tfcore.custom import (
    TRUSTED_ENV,
    load_workspace,
    restore_run_code,
    run_code_changes,
    run_code_stamp,
    trusted_code_enabled,
)
from ui.common import guarded, plain, t, teacher_login, workspace
from ui.runs.actions import EVAL, EXPORT, FRESH

FLASH = "runs.code.flash"
RESTORABLE = ("changed", "missing")


# Comparing reads every file of the run's copy and of the workspace; the answer is kept for
# the whole server until a name, size or modification time changes (stat only per rerun).
@st.cache_data(max_entries=128, show_spinner=False)
def _changes(run_dir: str, workspace_root: str, stamp: tuple) -> list[tuple[str, str]]:
    return [(c.name, c.status) for c in run_code_changes(run_dir, workspace_root)]


def code_changes(run_dir: Path) -> list[tuple[str, str]]:
    """(file stem, status) for each file of the run's code the workspace no longer has as
    the run used it: ``changed``, ``missing`` or ``unreadable``."""
    root = workspace().root
    return _changes(str(run_dir), str(root), run_code_stamp(run_dir, root))


def code_panel(run_dir: Path) -> None:
    """The warning, naming each file and its status, and "Put this run's code back"."""
    found = st.session_state.get(FLASH)
    if found and found[0] == str(run_dir):
        st.success(found[1], icon=":material/check_circle:")
        st.session_state.pop(FLASH, None)
    changes = code_changes(run_dir)
    if not changes:
        return
    items = t("runs.code.sep").join(t(f"runs.code.{status}", file=plain(f"{name}.py"))
                                    for name, status in changes)
    st.warning(t("runs.code.warning", files=items), icon=":material/warning:")
    names = [name for name, status in changes if status in RESTORABLE]
    if not names:
        return
    if not trusted_code_enabled():
        st.caption(t("runs.code.untrusted", env=TRUSTED_ENV))
        return
    allowed = teacher_login("runs.code.teacher")     # writes the workspace's code
    if st.button(t("runs.code.restore"), key="runs.code.restore", disabled=not allowed,
                 icon=":material/restore:"):
        with guarded():
            root = workspace().root
            written = restore_run_code(run_dir, root, names)
            _changes.clear()
            loaded = load_workspace(root)            # what the page builds models with now
            for key in (EVAL, EXPORT, FRESH):        # made with the other code
                st.session_state.pop(key, None)
            problem = next((loaded.problems[n] for n in written if n in loaded.problems), None)
            if problem is not None:
                raise problem
            st.session_state[FLASH] = (str(run_dir), t(
                "runs.code.restored", files=", ".join(plain(f"{n}.py") for n in written)))
            st.rerun()
