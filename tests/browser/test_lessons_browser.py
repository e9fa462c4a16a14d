"""Issue 26 in a real browser: start a shipped lesson, press Next twice, see the step's page
in its state (the tab), reload and still be on that step, move on with the Right arrow
key, and open the notes window, which follows Previous. The step bar at 1280x800 and
1920x1080 in both languages: nothing cut, no sideways scroll (screenshots go to
$TFLAB_SHOTS)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import urljoin

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import TIMEOUT_MS, act_and_wait, click_and_wait, wait_idle
from tests.browser.test_no_cutoff_browser import CUT_JS
from tfcore.lessons import SHIPPED_DIR, read_lesson
from ui.common.i18n import catalog

HANDBOOK = read_lesson(SHIPPED_DIR / "handbook.json").lesson
BAR = ".st-key-lesson-bar"


def _bar_shows(page, number: int, lang: str = "en"):
    """The bar's step title of step ``number`` (a locator to wait for)."""
    return page.locator(f"{BAR} .lesson-step").get_by_text(
        HANDBOOK.steps[number - 1].title[lang], exact=True)


def _last_sentence(index: int) -> str:
    """The last sentence of a step's notes (Markdown shows "->" as an arrow)."""
    return HANDBOOK.steps[index].notes["en"].rstrip(".").rsplit(". ", 1)[-1]


def _on_step(page, number: int, lang: str = "en") -> None:
    """The bar, the URL, the page's title and its open tab all say step ``number``."""
    words, step = catalog(lang), HANDBOOK.steps[number - 1]
    expect(_bar_shows(page, number, lang)).to_be_visible(timeout=TIMEOUT_MS)
    expect(page.locator(f"{BAR} .lesson-name")).to_contain_text(
        words["lessons.bar.of"].format(k=number, n=len(HANDBOOK.steps)))
    page.wait_for_function(
        "([page, step]) => location.pathname.endsWith('/' + page)"
        " && new URLSearchParams(location.search).get('step') === step"
        " && new URLSearchParams(location.search).get('lesson') === 'handbook'",
        arg=[step.page, str(number)], timeout=TIMEOUT_MS)
    title = words[{"tensors": "foundations.tensors.title", "builder": "builder.title"}[step.page]]
    expect(page.locator("h1").filter(has_text=title).first).to_be_visible()
    tab_label = words[{"tensors": f"foundations.tab.{step.tab}",
                       "builder": f"builder.tab.{step.tab}"}[step.page]]
    expect(page.get_by_role("tab", name=tab_label, exact=True)).to_have_attribute(
        "aria-selected", "true", timeout=TIMEOUT_MS)


def test_a_lesson_steps_reloads_and_shows_its_notes(server: str, page) -> None:
    words = catalog("en")
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{server}/lessons?lang=en")
    wait_idle(page)
    click_and_wait(page, page.locator(".st-key-lessons-start-handbook button"),
                   _bar_shows(page, 1))
    _on_step(page, 1)
    for number in (2, 3):
        click_and_wait(page, page.locator(f"{BAR} .st-key-lessons-bar-next button"),
                       _bar_shows(page, number))
        _on_step(page, number)            # the Tensors page, now at the tab the step asks

    page.reload()                                     # F5: the same step, the same state
    wait_idle(page)
    _on_step(page, 3)

    page.locator(f"{BAR} .lesson-step").click()       # focus on the page, not a field
    page.wait_for_selector("html[data-lesson-keys='on']", state="attached")
    act_and_wait(page, lambda: page.keyboard.press("ArrowRight"), _bar_shows(page, 4),
                 what="the Right arrow key")
    _on_step(page, 4)                                 # the builder, at its Code tab

    field = page.get_by_label(words["builder.model_name"]).first
    field.click()
    field.press("ArrowRight")                         # typing in a field: no step moves
    wait_idle(page)
    href = page.locator(f"{BAR} a").filter(
        has_text=words["lessons.bar.notes"]).first.get_attribute("href")
    notes = page.context.new_page()                   # the teacher's second window
    notes.goto(urljoin(page.url, href))
    wait_idle(notes)
    expect(notes.get_by_text(_last_sentence(3))).to_be_visible(
        timeout=TIMEOUT_MS)
    expect(notes.locator("h1")).to_have_count(0)      # no page under the notes
    click_and_wait(page, page.locator(f"{BAR} .st-key-lessons-bar-previous button"),
                   _bar_shows(page, 3))                # from step 4: the field's arrow did not move
    expect(notes.get_by_text(_last_sentence(2))).to_be_visible(
        timeout=TIMEOUT_MS)                           # it follows the presenting window
    notes.wait_for_function("() => new URLSearchParams(location.search).get('step') === '3'",
                            timeout=TIMEOUT_MS)


SIZES = ((1280, 800), (1920, 1080))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_bar_the_list_and_the_notes_fit_a_projector(server: str, page, lang: str,
                                                        tmp_path: Path) -> None:
    shots = Path(os.environ.get("TFLAB_SHOTS") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        for name, address, expect_text in (
                ("train", f"?lesson=handbook&step=5&lang={lang}", HANDBOOK.steps[4].title[lang]),
                ("lessons", f"lessons?lang={lang}", HANDBOOK.title[lang]),
                ("notes", f"?lesson=handbook&step=6&notes=1&lang={lang}",
                 HANDBOOK.steps[5].title[lang])):
            page.goto(f"{server}/{address}")
            wait_idle(page)
            expect(page.get_by_text(expect_text, exact=True).first).to_be_visible(
                timeout=TIMEOUT_MS)
            wait_idle(page)
            assert page.evaluate(CUT_JS) == [], (name, width, lang)
            if name == "train":
                box = page.locator(BAR).bounding_box()
                assert box["y"] < height / 3 and box["width"] > width / 2
                size = page.locator(f"{BAR} .lesson-step").evaluate(
                    "e => parseFloat(getComputedStyle(e).fontSize)")
                assert size >= 22                     # read from the back of a room
                # the buttons wrap below the title rather than squeeze it (at 1280 its
                # 24rem used to shrink to a column of one or two words a line)
                title = page.locator(f"{BAR} .lesson-step").bounding_box()
                assert title["width"] >= min(24 * 16, box["width"] - 64), (width, lang)
            page.screenshot(path=str(shots / f"lesson-{name}-{width}x{height}-{lang}.png"))
    assert re.search(r"lesson-train-1920x1080", " ".join(p.name for p in shots.iterdir()))


def test_a_step_on_the_same_page_shows_and_keeps_its_own_model(server: str, page) -> None:
    """Steps 3 and 4 of the builders' guide are both the Weights lab, with two presets. Step
    4's preset box named step 3's preset (B4) over step 4's numbers (B1, 7,946 parameters),
    and the next click anywhere sent B4 back and switched the model to it (85
    parameters): the link popped the box's key instead of setting its value."""
    from tests.browser.waits import set_toggle
    from tfcore.messages import render
    from tfcore.model import preset_title

    words = catalog("en")
    guide = read_lesson(SHIPPED_DIR / "builders_guide.json").lesson
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{server}/lessons?lang=en")
    wait_idle(page)

    def bar(number: int):
        return page.locator(f"{BAR} .lesson-step").get_by_text(
            guide.steps[number - 1].title["en"], exact=True)

    click_and_wait(page, page.locator(".st-key-lessons-start-builders_guide button"), bar(1))
    for number in (2, 3, 4):
        click_and_wait(page, page.locator(f"{BAR} .st-key-lessons-bar-next button"),
                       bar(number))
    assert guide.steps[3].link().get("preset") == "b1_mlp"
    b1 = preset_title("b1_mlp")
    main = page.locator("[data-testid='stMain']")
    box = main.locator("[data-testid='stSelectbox']").filter(
        has_text=words["picker.preset"]).first.get_by_role("combobox")
    params = main.locator("[data-testid='stMetric']").filter(
        has_text=words["weights.overview.params"]).first
    for _ in range(2):
        expect(params).to_contain_text("7,946", timeout=TIMEOUT_MS)
        expect(box).to_have_value(render(b1.key, b1.params, "en"))
        set_toggle(page, words["app.sidebar.presenter"], True)   # a click elsewhere
        set_toggle(page, words["app.sidebar.presenter"], False)
