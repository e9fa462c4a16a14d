"""Workspace confinement, engine errors, the no-streamlit rule and the CLI."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tfcore.cli import main
from tfcore.errors import SpecError, TFLabError, WorkspaceError
from tfcore.workspace import Workspace, default_workspace


def test_tfcore_never_imports_streamlit() -> None:
    offenders = []
    for path in (ROOT / "tfcore").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            if any(n == "streamlit" or n.startswith("streamlit.") for n in names):
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert offenders == []


def test_page_files_define_no_keras_classes() -> None:
    for path in (ROOT / "app_pages").glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        classes = [n.name for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]
        assert classes == [], f"{path.name} defines classes {classes}; put them in tfcore"


def test_workspace_confines_paths(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "ws").ensure()
    assert ws.confine("models/a.keras") == (tmp_path / "ws" / "models" / "a.keras").resolve()
    assert ws.confine(str(ws.runs)) == ws.runs.resolve()
    for bad in ("../outside.txt", "/etc/passwd", "models/../../x", "", "a\x00b"):
        with pytest.raises(WorkspaceError):
            ws.confine(bad)
    (ws.root / "link").symlink_to(tmp_path)
    with pytest.raises(WorkspaceError):
        ws.confine("link/escape.txt")


def test_workspace_from_environment(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("TFLAB_WORKSPACE", str(tmp_path / "elsewhere"))
    ws = default_workspace().ensure()
    assert ws.root == (tmp_path / "elsewhere").resolve()
    assert ws.runs.is_dir() and ws.models.is_dir() and ws.uploads.is_dir()
    assert ws.disk_usage().free > 0


def test_errors_carry_message_key_and_params() -> None:
    err = SpecError("bad", key="spec.x", params={"layer": "d1"}, details=["d1.units: 0"])
    assert isinstance(err, TFLabError)
    assert (str(err), err.key, err.params, err.details) == ("bad", "spec.x", {"layer": "d1"},
                                                             ["d1.units: 0"])
    assert WorkspaceError("w").key == "errors.workspace"


def test_cli_help_lists_commands(capsys) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert "version" in out and "devices" in out


def test_cli_devices_and_version_as_json() -> None:
    proc = subprocess.run([sys.executable, "-m", "tfcore", "devices"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert any(d["device_type"] == "CPU" for d in report["physical"])
    assert any(d["kind"] == "logical" for d in report["logical"])
    proc = subprocess.run([sys.executable, "-m", "tfcore", "version"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["tensorflow"] == "2.21.0"


def test_no_pages_folder_beside_app() -> None:
    """Streamlit runs a ``pages/`` folder's files directly (MPA v1) until the first
    st.navigation call, so a deep link would skip app.py's router and sidebar."""
    assert not (ROOT / "pages").exists()
    assert (ROOT / "app_pages" / "home.py").is_file()
