"""The home page's table of recent runs, fitted to 1280 px like the runs table
(:mod:`ui.common.columns`): it sized its columns to their longest text, and a suite's long
run names hid 51 to 69 px of its columns at 1280x800. Kept out of ``ui.runs``, whose import
(charts, checkpoints) the first page should not wait for."""

from __future__ import annotations

from datetime import datetime
from typing import Sequence

import pandas as pd
import streamlit as st

from ui.common.columns import fitted
from ui.common.errors import located_text
from ui.common.i18n import catalog, t

# Widths in px within the 820 px the table has at 1280x800 (no row-selection column here),
# a scrollbar's width spare; names and problems are shortened to their line.
RECENT = {"run": 250, "state": 95, "step": 70, "created": 160, "problems": 220}


def recent_rows(rows: Sequence[tuple], lang: str | None = None) -> tuple[pd.DataFrame, dict]:
    """The home page's recent runs (name, state label, step, created, problems per row) as a
    frame labelled in ``lang`` (the current language when None) whose names and problems
    fit their columns, and its ``column_config``."""
    say = t if lang is None else catalog(lang).__getitem__
    labels = {k: say(f"home.recent.{k}") for k in RECENT}
    return fitted([dict(zip(labels.values(), row)) for row in rows],
                  {labels[k]: px for k, px in RECENT.items()},
                  (labels["run"], labels["problems"]))


def when(created: str) -> str:
    """A run's creation time (ISO 8601, as run.json records it) in the server's local time
    to the minute: ``2026-12-04T22:47:48+00:00`` was cut in its column. Text that is not
    such a time is shown as it is."""
    try:
        return datetime.fromisoformat(created).astimezone().strftime("%Y-%m-%d %H:%M")
    except (TypeError, ValueError):
        return created


def recent_table(runs: Sequence) -> None:
    """The home page's table of recent runs (``RunRecord``s, newest first)."""
    frame, config = recent_rows([(run.name, t(f"state.{run.status.state}"), run.status.step,
                                  when(run.created or ""),
                                  "; ".join(located_text(p, markdown=False)
                                            for p in run.problems)) for run in runs])
    st.dataframe(frame, hide_index=True, width="stretch", column_config=config)
