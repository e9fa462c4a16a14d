"""One copy of a live run's series per server, shared by every session watching it.

Thirty sessions watching one run used to keep thirty buffers and read the new lines of
``metrics.jsonl`` thirty times a second. Here the server keeps one immutable
:class:`~ui.training.charts.SeriesBuffer` snapshot per run (``st.cache_resource``). The
first session to look after :data:`REFRESH_S` reads the new bytes and publishes a new
snapshot; the others reuse it, and their charts come from the chart cache keyed on its
content (offset and sizes; ui/common/chart_cache.py). Before a run's first point, and
once the run has ended (its panel then draws once and stops polling), every look checks
the file, so the first point shows as soon as it is written and the last steps are drawn.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, field

import streamlit as st

from ui.common import run_store
from ui.training.charts import SeriesBuffer

REFRESH_S = 0.5          # the longest a snapshot is reused before the file is looked at
MAX_RUNS = 16            # runs kept; the least recently watched are dropped


@dataclass
class LiveSeries:
    """A run's published snapshot: never mutated once published (readers need no lock)."""

    buffer: SeriesBuffer                       # replaced, never mutated
    checked: float = 0.0
    inode: int | None = None
    lock: threading.Lock = field(default_factory=threading.Lock, compare=False)


@st.cache_resource(show_spinner=False)
def _registry() -> dict:
    return {"runs": {}, "lock": threading.Lock()}


def _copy(buffer: SeriesBuffer) -> SeriesBuffer:
    return SeriesBuffer(buffer.run_id, buffer.offset,
                        {split: {k: list(v) for k, v in cols.items()}
                         for split, cols in buffer.columns.items()})


def _fresh(entry: LiveSeries, buffer: SeriesBuffer, ended: bool) -> bool:
    """Whether the snapshot may be reused: it has points and was checked just now, while
    the run is active. An ended run's panel draws once and stops polling, so its snapshot
    is always checked against the file: a run that stopped within ``REFRESH_S`` of the
    last look kept a chart short of its last steps (26 of 60 drawn, for good)."""
    has_points = bool(buffer.size("train") or buffer.size("val"))
    return has_points and not ended and time.monotonic() - entry.checked < REFRESH_S


def live_series(run_id: str, ended: bool = False) -> SeriesBuffer:
    """The run's records so far (``ended``: the run is no longer active, so every record
    it wrote). Chart keys use the buffer's ``offset`` and sizes, which name its content
    even after the registry dropped and re-created the run's entry."""
    registry = _registry()
    with registry["lock"]:
        runs = registry["runs"]
        entry = runs.pop(run_id, None) or LiveSeries(SeriesBuffer(run_id))
        runs[run_id] = entry                       # most recently watched last
        while len(runs) > MAX_RUNS:
            runs.pop(next(iter(runs)))
    buffer = entry.buffer
    if _fresh(entry, buffer, ended):
        return buffer
    with entry.lock:
        if _fresh(entry, entry.buffer, ended):
            return entry.buffer                    # another session refreshed meanwhile
        buffer = entry.buffer
        path = run_store().paths(run_id).metrics
        try:
            st_file = os.stat(path)
        except OSError:
            st_file = None
        inode = st_file.st_ino if st_file else None
        if inode != entry.inode or (st_file and st_file.st_size < buffer.offset):
            buffer = SeriesBuffer(run_id)           # replaced or truncated: read it again
        if st_file and st_file.st_size > buffer.offset:
            chunk = run_store().metrics(run_id, buffer.offset)
            if chunk.offset != buffer.offset:     # complete lines were added
                buffer = _copy(buffer)
                buffer.add(chunk.records)
                buffer.offset = chunk.offset
        entry.buffer, entry.inode, entry.checked = buffer, inode, time.monotonic()
        return buffer
