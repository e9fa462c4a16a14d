"""Every Streamlit internal this app leans on, in one place, written for one version.

Streamlit's public API has no way to do these things, so they reach into its modules:
the script run context (a per-run memo of the language), the script runner's cleanup hook
(so Keras models survive a rerun), and the conversions ``st.altair_chart`` does (so a
chart is converted once for every session). A Streamlit upgrade must start here: the
pin in requirements.txt, :data:`WRITTEN_FOR` and every name in :data:`PRIVATE` are
checked by ``tests/unit/test_st_compat.py``. No other module imports Streamlit's
internals (the same test reads them all).
"""

from __future__ import annotations

import importlib
from typing import Any, Callable

from streamlit.runtime.scriptrunner import get_script_run_ctx

WRITTEN_FOR = "1.67.0"

# (module, attribute) for every internal used below, and the context fields read.
PRIVATE = (
    ("streamlit.runtime.scriptrunner", "get_script_run_ctx"),
    ("streamlit.runtime.scriptrunner.script_runner", "_clean_problem_modules"),
    ("streamlit.dataframe_util", "convert_anything_to_arrow_bytes"),
    ("streamlit.elements.vega_charts", "_convert_altair_to_vega_lite_spec"),
    ("streamlit.runtime.state", "get_session_state"),
    ("streamlit.proto.BackMsg_pb2", "BackMsg"),
    ("streamlit.proto.ForwardMsg_pb2", "ForwardMsg"),
)
# SessionState (behind get_session_state()._state): the methods read, and the widget
# metadata fields they return
SESSION_METHODS = ("get_widget_id_from_key", "get_widget_metadata")
METADATA_FIELDS = ("formatted_options", "value_type")
CONTEXT_FIELDS = ("cursors",)          # ScriptRunContext: replaced at the start of each run

__all__ = ["altair_to_vega_lite", "arrow_bytes", "choice_widget_keys", "cleanup_hook",
           "get_script_run_ctx", "protocol_messages", "set_cleanup_hook", "PRIVATE",
           "WRITTEN_FOR"]


def protocol_messages() -> tuple[type, type]:
    """Streamlit's websocket messages (``BackMsg``, ``ForwardMsg``), for the class setup's
    warm-up, which runs a page the way a browser tab does."""
    back = importlib.import_module("streamlit.proto.BackMsg_pb2").BackMsg
    forward = importlib.import_module("streamlit.proto.ForwardMsg_pb2").ForwardMsg
    return back, forward


def _runner() -> Any | None:
    try:
        return importlib.import_module("streamlit.runtime.scriptrunner.script_runner")
    except ImportError:                   # pragma: no cover - Streamlit is pinned
        return None


def cleanup_hook() -> Callable[[], None] | None:
    """The function Streamlit's script runner calls after each run, or None if it has none."""
    hook = getattr(_runner(), "_clean_problem_modules", None)
    return hook if callable(hook) else None


def set_cleanup_hook(hook: Callable[[], None]) -> bool:
    """Make the script runner call ``hook`` after each run; False when this Streamlit has
    no such hook (nothing is changed)."""
    runner = _runner()
    if runner is None or cleanup_hook() is None:
        return False
    runner._clean_problem_modules = hook
    return True


def arrow_bytes(frame: Any) -> bytes:
    """The Arrow IPC bytes Streamlit itself sends for a chart's dataset."""
    try:
        from streamlit.dataframe_util import convert_anything_to_arrow_bytes
    except ImportError:                    # pragma: no cover - Streamlit is pinned
        import pyarrow as pa

        table = pa.Table.from_pandas(frame)
        sink = pa.BufferOutputStream()
        with pa.ipc.new_stream(sink, table.schema) as writer:
            writer.write_table(table)
        return sink.getvalue().to_pybytes()
    return convert_anything_to_arrow_bytes(frame)


def altair_to_vega_lite(chart: Any) -> dict:
    """An Altair chart as the Vega-Lite spec ``st.altair_chart`` sends (datasets as Arrow)."""
    try:
        from streamlit.elements.vega_charts import _convert_altair_to_vega_lite_spec
    except ImportError:                    # pragma: no cover - Streamlit is pinned
        return chart.to_dict()
    return _convert_altair_to_vega_lite_spec(chart)


def choice_widget_keys(keys: Any) -> list[str]:
    """Those of ``keys`` (user keys in session state) that belong to a choice widget with a
    fixed list of options: selectbox, radio, multiselect, pills, segmented control.

    Such a widget travels to the browser as the *formatted label* of its value, and a keyed
    one keeps its identity when its labels change. So after a language switch the browser
    still holds the old language's label (a Chinese name in an English list: the box shows
    it, a radio shows nothing selected) until the value is sent again. Buttons and other
    trigger widgets are left out (their value cannot be set)."""
    try:
        from streamlit.runtime.state import get_session_state

        state = get_session_state()._state
    except (ImportError, AttributeError):   # pragma: no cover - Streamlit is pinned
        return []
    found = []
    for key in keys:
        if not isinstance(key, str):
            continue
        widget_id = state.get_widget_id_from_key(key)
        meta = state.get_widget_metadata(widget_id) if widget_id else None
        if meta is None or getattr(meta, "formatted_options", None) is None:
            continue
        if "trigger" in str(getattr(meta, "value_type", "")):
            continue
        found.append(key)
    return found
