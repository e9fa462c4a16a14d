"""Every ``TFLAB_*`` variable is declared, read and checked in ``tfcore/settings.py`` only."""

from __future__ import annotations

import ast
import os
import re
from pathlib import Path

import pytest

from tfcore import settings
from tfcore.custom import trusted_code_enabled
from tfcore.settings import SETTINGS, SettingError
from tfcore.workspace import default_workspace

ROOT = Path(__file__).resolve().parents[2]
PRODUCTION = ("tfcore", "ui", "app_pages")
NAME = re.compile(r"TFLAB_[A-Z0-9_]+")


def production_files() -> list[Path]:
    files = [p for root in PRODUCTION for p in sorted((ROOT / root).rglob("*.py"))]
    return files + [ROOT / "app.py"]


def docstrings(tree: ast.AST) -> set[int]:
    """ids of the string constants that are docstrings."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def is_environ(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "environ"


def environ_key(node: ast.AST) -> ast.AST | None:
    """The key read by ``os.environ.get(k)``, ``os.getenv(k)``, ``os.environ[k]``, else None."""
    if isinstance(node, ast.Call) and node.args:
        func = node.func
        if isinstance(func, ast.Attribute) and (
                (func.attr in ("get", "pop") and is_environ(func.value))
                or func.attr == "getenv"):
            return node.args[0]
    if isinstance(node, ast.Subscript) and is_environ(node.value) \
            and isinstance(node.ctx, ast.Load):
        return node.slice
    return None


def test_only_the_settings_module_names_or_reads_a_tflab_variable():
    bad = []
    for path in production_files():
        if path == ROOT / "tfcore" / "settings.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip = docstrings(tree)
        for node in ast.walk(tree):
            where = f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', '?')}"
            if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and id(node) not in skip and NAME.fullmatch(node.value):
                bad.append(f"{where} names {node.value}")        # prose may mention one
            key = environ_key(node)
            if key is not None and not isinstance(key, ast.Constant):
                bad.append(f"{where} reads the environment with a computed name")
    assert not bad, "read TFLAB_* through tfcore.settings:\n" + "\n".join(bad)


def test_the_scanner_finds_a_planted_read():
    tree = ast.parse("import os\nx = os.environ.get(NAME)\ny = os.environ[K]\nz = os.getenv(V)")
    keys = [environ_key(n) for n in ast.walk(tree) if environ_key(n) is not None]
    assert [k.id for k in keys] == ["NAME", "K", "V"]


def test_readme_lists_every_variable_and_docs_name_no_other():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert not [n for n in SETTINGS if f"`{n}`" not in readme], "README lacks a variable"
    texts = [readme] + [p.read_text(encoding="utf-8") for p in (ROOT / "docs").glob("*.md")]
    named = {m for text in texts for m in NAME.findall(text)}
    assert named <= set(SETTINGS), f"documented but not a setting: {named - set(SETTINGS)}"


@pytest.mark.parametrize("setting", SETTINGS.values(), ids=lambda s: s.name)
def test_unset_or_blank_gives_the_default(setting, monkeypatch):
    monkeypatch.delenv(setting.name, raising=False)
    assert setting.get() == setting.default
    monkeypatch.setenv(setting.name, "  ")
    assert setting.get() == setting.default


@pytest.mark.parametrize("name,raw,value", [
    ("TFLAB_TRUSTED_CODE", "1", True), ("TFLAB_TRUSTED_CODE", "off", False),
    ("TFLAB_WARM_WORKER", "0", False), ("TFLAB_WARM_IDLE", "2.5", 2.5),
    ("TFLAB_MAX_WORKERS", "3", 3), ("TFLAB_NET_PROBE", "example.org:443", "example.org:443"),
    ("TFLAB_PARAM_LIMIT", "1000", 1000), ("TFLAB_MAX_LAYERS", "10", 10),
])
def test_a_set_value_is_parsed(name, raw, value, monkeypatch):
    monkeypatch.setenv(name, raw)
    assert SETTINGS[name].get() == value


@pytest.mark.parametrize("name,raw", [
    ("TFLAB_TRUSTED_CODE", "maybe"), ("TFLAB_WARM_IDLE", "nan"), ("TFLAB_WARM_IDLE", "0"),
    ("TFLAB_MAX_WORKERS", "0"), ("TFLAB_MAX_WORKERS", "two"), ("TFLAB_NET_PROBE", "nohost"),
    ("TFLAB_PARAM_LIMIT", "-5"),
])
def test_a_bad_value_names_the_variable_and_what_is_allowed(name, raw, monkeypatch):
    monkeypatch.setenv(name, raw)
    with pytest.raises(SettingError) as info:
        SETTINGS[name].get()
    assert info.value.key == "settings.invalid"
    assert info.value.params == {"name": name, "value": raw,
                                 "allowed": SETTINGS[name].allowed}
    assert info.value.message.startswith(f"The environment variable {name} holds {raw!r}")
    assert str(SETTINGS[name].allowed) in info.value.message
    assert "无法使用" in info.value.text("zh")


def test_the_engine_reads_at_call_time(monkeypatch, tmp_path):
    monkeypatch.setenv("TFLAB_TRUSTED_CODE", "1")
    assert trusted_code_enabled()
    monkeypatch.setenv("TFLAB_TRUSTED_CODE", "0")
    assert not trusted_code_enabled()
    monkeypatch.setenv("TFLAB_WORKSPACE", str(tmp_path / "ws"))
    assert default_workspace().root == (tmp_path / "ws").resolve()


def test_overridden_puts_back_what_was_there(monkeypatch):
    monkeypatch.setenv("TFLAB_MAX_WORKERS", "2")
    with settings.overridden(settings.MAX_WORKERS, "5"):
        assert settings.max_workers() == 5
    assert os.environ["TFLAB_MAX_WORKERS"] == "2"
    monkeypatch.delenv("TFLAB_MAX_WORKERS")
    with settings.overridden(settings.MAX_WORKERS, "4"):
        assert settings.max_workers() == 4
    assert "TFLAB_MAX_WORKERS" not in os.environ
