"""Select widgets never show Streamlit's own English placeholders on a Chinese page.

Streamlit draws "Choose options", "Choose an option" or "No options to select" inside a
multiselect or selectbox that has nothing selected, unless ``placeholder=`` is given; those
texts are not translated. Every multiselect passes a catalog placeholder; a selectbox must
pass one too unless it always has a selection (then Streamlit shows no placeholder).
"""

from __future__ import annotations

import pytest

from tests.app.apptest_helpers import open_page
from tests.unit.fixtures_runs import make_run
from tfcore.workspace import default_workspace
from ui.common.i18n import catalog
from ui.common.nav import available_pages

PAGES = [page.path for page in available_pages()]
pytestmark = pytest.mark.shared_workspace      # module fixtures write runs there
ZH = catalog("zh")
PLACEHOLDERS = {ZH[f"common.placeholder.{name}"] for name in ("choose_one", "choose_many", "none")}
STREAMLIT_DEFAULTS = {"Choose an option", "Choose options", "No options to select",
                      "Choose or add an option", "Choose or add options", "Add an option",
                      "Add options"}


@pytest.fixture(scope="module")
def runs() -> list[str]:
    """Two finished runs in the session workspace, so the Runs page draws its filters."""
    root = default_workspace().ensure().runs
    return [make_run(root, name="ph_a", seed=0, steps=4, ckpt_every=2),
            make_run(root, name="ph_b", seed=1, steps=4, ckpt_every=2)]


def _problems(at) -> list[str]:
    """Select widgets whose empty state would show a Streamlit default (English) text."""
    problems = []
    for widget in at.multiselect:
        if widget.proto.placeholder not in PLACEHOLDERS:
            problems.append(f"multiselect {widget.label!r}: {widget.proto.placeholder!r}")
    for widget in at.selectbox:
        text = widget.proto.placeholder
        if text:
            if text not in PLACEHOLDERS:
                problems.append(f"selectbox {widget.label!r}: {text!r}")
        elif not widget.options or not widget.proto.HasField("default"):
            problems.append(f"selectbox {widget.label!r} shows Streamlit's placeholder")
    return problems


def test_chinese_placeholders_are_translated_and_not_streamlit_defaults() -> None:
    assert len(PLACEHOLDERS) == 3
    assert not PLACEHOLDERS & STREAMLIT_DEFAULTS
    assert all(any("\u4e00" <= ch <= "\u9fff" for ch in text) for text in PLACEHOLDERS)


@pytest.mark.parametrize("page", PAGES)
def test_every_select_widget_has_a_chinese_placeholder(runs: list[str], page: str) -> None:
    at = open_page(page, "zh")
    assert not at.exception, [e.value for e in at.exception]
    assert at.selectbox, "every page has at least the language selectbox"
    assert not _problems(at)


def test_runs_filters_say_choose_or_none_in_chinese(runs: list[str]) -> None:
    at = open_page("app_pages/runs.py", "zh")
    assert not at.exception, [e.value for e in at.exception]
    state = at.multiselect(key="runs.filter.state")
    dataset = at.multiselect(key="runs.filter.dataset")
    tag = at.multiselect(key="runs.filter.tag")
    assert ZH["state.finished"] in state.options
    assert state.proto.placeholder == ZH["common.placeholder.choose_many"]
    assert dataset.options and dataset.proto.placeholder == ZH["common.placeholder.choose_many"]
    # the fixture runs carry no tags: the empty filter says so in Chinese and stays disabled
    assert tag.options == []
    assert tag.proto.placeholder == ZH["common.placeholder.none"]
    assert tag.proto.disabled
    compare = at.multiselect(key="runs.compare")
    assert len(compare.value) == 2
    assert compare.proto.placeholder == ZH["common.placeholder.choose_many"]
    assert not _problems(at)


def test_visible_gpus_placeholder_on_the_train_page() -> None:
    at = open_page("app_pages/train.py", "zh")
    assert not at.exception, [e.value for e in at.exception]
    gpus = at.multiselect(key="train.visible_gpus")
    expected = "none" if not gpus.options else "choose_many"
    assert gpus.proto.placeholder == ZH[f"common.placeholder.{expected}"]
