"""The Train page's run picker, whose labels show each run's state, and the watch that
redraws the page when a listed run changes state (so no label says "running" after the run
finished or stopped).

Why a watch: the picker is drawn by the page, not by the live panel's fragment, so a state
change must rerun the page. And why the widget's key carries a digest of its labels: the
browser keeps the text of the choice it was first given, so a new label reaches it only
with a new widget.
"""

from __future__ import annotations

import zlib
from typing import Mapping

import streamlit as st

from tfcore.rundir import ACTIVE_STATES, RunRecord
from ui.common import run_store, t

RUN_KEY = "train.run_id"
PICKER_KEY = "train.watch"
WATCH_POLL_S = 1.0      # how often the watch reads the status files of the listed active runs


def watched_run(records: list[RunRecord]) -> str | None:
    """The run the panel shows: this session's choice while it exists, else (after a
    reload or in a new tab) the newest active run, else the newest run."""
    ids = [r.run_id for r in records]
    current = st.session_state.get(RUN_KEY)
    if current in ids:
        return current
    active = next((r.run_id for r in records if r.status.state in ACTIVE_STATES), None)
    return active or (ids[0] if ids else None)


def run_label(record: RunRecord) -> str:
    """``name · state · created`` for the run selector."""
    created = (record.created or "")[:19].replace("T", " ")
    return t("train.run_label", name=record.name, state=t(f"state.{record.status.state}"),
             created=created or "-")


def picker_key(current: str, labels: Mapping[str, str]) -> str:
    """The picker's widget key: the chosen run and a digest of every label shown."""
    digest = zlib.crc32("\n".join(f"{k}\t{v}" for k, v in labels.items()).encode())
    return f"{PICKER_KEY}.{current}.{digest:08x}"


def run_picker(records: list[RunRecord], current: str) -> str:
    """Draw the picker (labels as of now) and the state watch; return the chosen run id."""
    labels = {r.run_id: run_label(r) for r in records}
    ids = list(labels)
    run_id = st.selectbox(t("train.watch"), ids, index=ids.index(current),
                          format_func=labels.get, key=picker_key(current, labels))
    st.session_state[RUN_KEY] = run_id
    watch_states({r.run_id: r.status.state for r in records})
    return run_id


def changed_states(shown: Mapping[str, str]) -> list[str]:
    """The runs among ``shown`` (id -> state as drawn) whose state is no longer that one,
    or that are gone; reads only status files that changed (the store caches on stat)."""
    store = run_store()
    changed = []
    for run_id, state in shown.items():
        try:
            now = store.get(run_id).status.state
        except Exception:  # noqa: BLE001 - deleted meanwhile: its label is stale too
            now = None
        if now != state:
            changed.append(run_id)
    return changed


def stale(active: Mapping[str, str], listed: list[str]) -> bool:
    """Whether a page drawn with the runs ``listed`` (folder names) and ``active`` (id ->
    state as drawn) must be drawn again: an active run's state changed, or a run was added
    or deleted (one ``stat`` of the runs folder while nothing changed)."""
    return bool(changed_states(active)) or run_store().folder_ids() != listed


def watch_states(states: Mapping[str, str]) -> None:
    """While a listed run is active, check its state every ``WATCH_POLL_S`` and rerun the
    page when it changed, or when a run was added or deleted meanwhile (by another
    browser, perhaps served by another server process); a page whose runs are all final
    polls nothing."""
    active = {run_id: state for run_id, state in states.items() if state in ACTIVE_STATES}
    if not active:
        return
    listed = run_store().folder_ids()          # as drawn (list() reads these folders)

    @st.fragment(run_every=WATCH_POLL_S)
    def watch() -> None:
        if stale(active, listed):
            st.rerun()

    watch()
