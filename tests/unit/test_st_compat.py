"""Streamlit internals go through ``ui/common/st_compat.py`` only, for the pinned version."""

from __future__ import annotations

import ast
import dataclasses
import importlib
import re
from pathlib import Path

import altair as alt
import pandas as pd
import pyarrow as pa
import pytest
import streamlit

from ui.common import st_compat

ROOT = Path(__file__).resolve().parents[2]
# what the rest of the app may import: the documented API (st.components.v2.component is
# the public registration of a custom component, docs.streamlit.io/develop/api-reference)
PUBLIC = {"streamlit", "streamlit.components.v1", "streamlit.components.v2"}


def test_written_for_the_pinned_and_installed_streamlit():
    pin = re.search(r"^streamlit==(\S+)", (ROOT / "requirements.txt").read_text(), re.M)
    assert pin, "requirements.txt does not pin streamlit"
    assert st_compat.WRITTEN_FOR == pin.group(1) == streamlit.__version__, (
        "a Streamlit upgrade: check every name in ui/common/st_compat.py, then update "
        "WRITTEN_FOR and the pin together")


@pytest.mark.parametrize("module,name", st_compat.PRIVATE, ids=lambda x: str(x))
def test_every_internal_it_uses_exists(module, name):
    assert callable(getattr(importlib.import_module(module), name, None)), f"{module}.{name}"


def test_the_run_context_has_the_fields_read_from_it():
    from streamlit.runtime.scriptrunner import ScriptRunContext

    fields = {f.name for f in dataclasses.fields(ScriptRunContext)}
    assert set(st_compat.CONTEXT_FIELDS) <= fields


def test_no_other_module_imports_streamlit_internals():
    files = [p for root in ("ui", "app_pages") for p in (ROOT / root).rglob("*.py")]
    bad = []
    for path in files + [ROOT / "app.py"]:
        if path == ROOT / "ui" / "common" / "st_compat.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                    and node.value.id in ("st", "streamlit") and node.attr.startswith("_"):
                names = [f"streamlit.{node.attr}"]
            bad += [f"{path.relative_to(ROOT)}:{node.lineno} uses {n}" for n in names
                    if n.split(".")[0] == "streamlit" and n not in PUBLIC]
    assert not bad, "go through ui/common/st_compat.py:\n" + "\n".join(bad)


def test_chart_conversions_give_what_streamlit_sends():
    frame = pd.DataFrame({"x": [1, 2, 3], "y": [0.5, 0.25, 0.125]})
    table = pa.ipc.open_stream(st_compat.arrow_bytes(frame)).read_all()
    assert table.column("y").to_pylist() == [0.5, 0.25, 0.125]
    spec = st_compat.altair_to_vega_lite(alt.Chart(frame).mark_line().encode(x="x", y="y"))
    assert spec["mark"] == {"type": "line"}
    name = spec["data"]["name"]                  # the data travels as Arrow, by name
    rows = pa.ipc.open_stream(spec["datasets"][name]).read_all()
    assert rows.column("x").to_pylist() == [1, 2, 3]


def test_the_cleanup_hook_is_ours_once_the_app_is_imported():
    import ui.common  # noqa: F401 - installs the hook (script_hooks)

    assert st_compat.cleanup_hook().__module__ == "ui.common.script_hooks"


def test_the_session_state_has_the_methods_and_metadata_fields_read_from_it():
    from streamlit.runtime.state.common import WidgetMetadata
    from streamlit.runtime.state.session_state import SessionState

    assert all(callable(getattr(SessionState, m, None)) for m in st_compat.SESSION_METHODS)
    fields = {f.name for f in dataclasses.fields(WidgetMetadata)}
    assert set(st_compat.METADATA_FIELDS) <= fields


def test_the_server_loop_is_uvloop_as_pinned():
    """requirements.txt pins uvloop for the server's event loop (a script thread's message
    wakes it without a syscall each: bench_sessions --follow 30, p95 2.1-2.5 s -> 1.8 s);
    Streamlit picks it up by itself when it is installed. A Streamlit upgrade that stops
    doing so fails here."""
    import uvloop
    from streamlit.web import bootstrap

    pin = re.search(r"^uvloop==(\S+);", (ROOT / "requirements.txt").read_text(), re.M)
    assert pin and pin.group(1) == uvloop.__version__
    assert bootstrap._get_uvloop_loop_factory() is uvloop.new_event_loop
