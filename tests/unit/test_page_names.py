"""One name per page: its sidebar label, its page title and its home card read the same."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from ui.common.i18n import LANGUAGES, catalog
from ui.common.nav import PAGES

ROOT = Path(__file__).resolve().parents[2]
HOME = "app_pages/home.py"   # its heading is the app's name (TF Lab); the menu says Home


def _title_keys(tree: ast.AST) -> list[str]:
    """Keys ``k`` of every ``st.title(t("k"))`` in ``tree``."""
    keys = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr == "title" and node.args \
                and isinstance(node.args[0], ast.Call) and node.args[0].args \
                and isinstance(node.args[0].args[0], ast.Constant):
            keys.append(node.args[0].args[0].value)
    return keys


def _titling_functions() -> dict[str, list[str]]:
    """UI functions that draw a page title (a page may delegate its whole body to one)."""
    out: dict[str, list[str]] = {}
    for path in (ROOT / "ui").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and _title_keys(node):
                out.setdefault(node.name, []).extend(_title_keys(node))
    return out


def page_title_key(path: str, functions: dict[str, list[str]]) -> str:
    """The catalog key of the title a page draws, directly or through a UI function."""
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    keys = _title_keys(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            keys += functions.get(node.func.id, [])
    assert len(keys) == 1, f"{path} draws {len(keys)} page titles: {keys}"
    return keys[0]


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_every_page_title_equals_its_menu_label(lang: str) -> None:
    texts, functions = catalog(lang), _titling_functions()
    pages = [p for p in PAGES if p.path != HOME]
    assert len(pages) == len(PAGES) - 1 >= 9
    differ = {p.path: (texts[p.key], texts[page_title_key(p.path, functions)])
              for p in pages if texts[p.key] != texts[page_title_key(p.path, functions)]}
    assert not differ, f"menu label != page title ({lang}): {differ}"


def test_the_names_chosen_in_issue_23() -> None:
    zh = catalog("zh")
    assert zh["nav.builder"] == zh["builder.title"] == "模型构建器"
    assert zh["nav.timing"] == zh["timing.title"] == "即时执行与图执行"


def test_home_cards_use_the_menu_labels() -> None:
    source = (ROOT / HOME).read_text(encoding="utf-8")
    assert "label=t(page.key)" in source
