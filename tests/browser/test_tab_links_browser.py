"""Issue 26, item 6 in a real browser: a tab clicked on the Tensors page and on the Eager vs
graph page lands in the address as ``?tab=<name>``; a reload opens the same tab; "Add this
view to a lesson" in the sidebar captures the step with that tab."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import TIMEOUT_MS, wait_idle
from tests.browser.test_lessons_authoring_browser import add_this_view
from tests.browser.waits import select_tab
from tfcore.lessons import find_lesson
from tfcore.workspace import default_workspace
from ui.common.i18n import catalog

EN = catalog("en")
CASES = [("tensors", "foundations.tensors.title", "gd", "foundations.tab.gd"),
         ("timing", "timing.title", "tracing", "timing.tab.tracing")]


def _tab_in_address(page, name: str) -> None:
    page.wait_for_function(
        "name => new URLSearchParams(location.search).get('tab') === name",
        arg=name, timeout=TIMEOUT_MS)


def _selected(page, label: str) -> None:
    expect(page.get_by_role("tab", name=label, exact=True).first).to_have_attribute(
        "aria-selected", "true", timeout=TIMEOUT_MS)


@pytest.mark.parametrize(("stem", "title", "name", "label"), CASES)
def test_a_clicked_tab_is_in_the_address_survives_a_reload_and_is_captured(
        server: str, page, stem: str, title: str, name: str, label: str) -> None:
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{server}/{stem}?lang=en")
    wait_idle(page)
    page.get_by_text(EN[title], exact=True).first.wait_for(timeout=TIMEOUT_MS)
    assert "tab=" not in page.url
    select_tab(page, EN[label])
    _tab_in_address(page, name)
    _selected(page, EN[label])                        # the rerun did not undo the click

    page.reload()                                     # F5: the same tab opens
    wait_idle(page)
    page.get_by_text(EN[title], exact=True).first.wait_for(timeout=TIMEOUT_MS)
    _selected(page, EN[label])
    _tab_in_address(page, name)

    lesson = f"tab_link_{stem}"
    add_this_view(page, lesson)
    step = find_lesson(default_workspace(), lesson).lesson.steps[0]
    assert (step.page, step.tab) == (stem, name)
    _selected(page, EN[label])                        # capturing left the page as it was
