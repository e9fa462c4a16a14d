"""Charts converted once per content and drawn by every session that shows the same one.

``st.altair_chart`` converts its chart to a Vega-Lite spec on every call: Altair's
``to_dict`` validates the whole spec against the JSON schema and copies it, and the data
go to Arrow; for a live chart that is tens of milliseconds per session per second, the
largest cost of a classroom watching one run (bench/bench_sessions.py). ``cached_chart``
builds and converts a chart once per ``key`` (``st.cache_data``, shared by all sessions)
and hands the spec, with its data already in Arrow, to ``st.vega_lite_chart``: what the
browser receives is the same as ``st.altair_chart`` would send.

``build`` returns an Altair chart or a Vega-Lite spec written as a dict whose
``datasets`` hold DataFrames (the live and runs charts: no Altair build or schema
validation, and fixed dataset names, so a new point changes data, not the spec).

The key must name everything the chart shows: the data (a version, file stamps or
:func:`frame_digest`), every option and the language of its titles.
"""

from __future__ import annotations

import hashlib
from typing import Any, Callable, Hashable

import pandas as pd
import streamlit as st

from ui.common.st_compat import altair_to_vega_lite, arrow_bytes


def _to_spec(chart: Any) -> dict:
    if isinstance(chart, dict):           # a hand-written Vega-Lite spec: frames to Arrow
        datasets = chart.get("datasets") or {}
        return {**chart, "datasets": {name: data if isinstance(data, bytes) else arrow_bytes(data)
                                      for name, data in datasets.items()}}
    return altair_to_vega_lite(chart)     # datasets become Arrow bytes, as altair_chart does


@st.cache_data(max_entries=256, show_spinner=False)
def _spec(key: Hashable, _build: Callable[[], Any]) -> dict:
    return _to_spec(_build())


def cached_chart(key: Hashable, build: Callable[[], Any], **kwargs: Any) -> None:
    """Draw ``build()`` like ``st.altair_chart(build(), **kwargs)``, building and converting
    it only when no session has drawn ``key`` yet."""
    kwargs.setdefault("width", "stretch")
    st.vega_lite_chart(spec=_spec(key, build), **kwargs)


def frame_digest(frame: pd.DataFrame) -> str:
    """A content hash of a frame (values, columns, dtypes) for chart keys."""
    digest = hashlib.sha1(repr((list(frame.columns), [str(d) for d in frame.dtypes]))
                          .encode())
    if len(frame):
        digest.update(pd.util.hash_pandas_object(frame, index=False).to_numpy().tobytes())
    return digest.hexdigest()
