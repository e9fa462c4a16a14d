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
)
CONTEXT_FIELDS = ("cursors",)          # ScriptRunContext: replaced at the start of each run

__all__ = ["altair_to_vega_lite", "arrow_bytes", "cleanup_hook", "get_script_run_ctx",
           "set_cleanup_hook", "PRIVATE", "WRITTEN_FOR"]


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
