"""Issue 26, item 5, in a real browser: two browser contexts on one server, a teacher and a
student. The teacher leads the handbook; the student follows; the teacher presses Next and
the student's page moves to the new step by itself; the teacher's bar counts the student on
their step; both reload their pages and carry on (the student follows, the teacher leads:
the address says so; the student's presence stays one record, the browser's); Try it myself forks: the teacher's next Next leaves the student where they are
(the count says so)."""

from __future__ import annotations

import shutil

from playwright.sync_api import expect

from tests.browser.conftest import TIMEOUT_MS, click_and_wait, wait_idle
from tests.browser.waits import PROBE_JS
from tfcore.lessons import SHIPPED_DIR, read_lesson
from ui.common.i18n import catalog

HANDBOOK = read_lesson(SHIPPED_DIR / "handbook.json").lesson
BAR = ".st-key-lesson-bar"
WORDS = catalog("en")
MOVE_MS = 30_000        # a follower looks at the lead every second; allow a busy machine


def _step_title(page, number: int):
    return page.locator(f"{BAR} .lesson-step").get_by_text(
        HANDBOOK.steps[number - 1].title["en"], exact=True)


def _url_step(page, number: int, timeout: float = TIMEOUT_MS) -> None:
    page.wait_for_function(
        "step => new URLSearchParams(location.search).get('step') === step",
        arg=str(number), timeout=timeout)


def _url_param(page, name: str, value: str | None, timeout: float = TIMEOUT_MS) -> None:
    page.wait_for_function(
        "([name, value]) => new URLSearchParams(location.search).get(name) === value",
        arg=[name, value], timeout=timeout)


def _button(page, name: str):
    """The step bar's button ``lessons.follow.<name>`` (by its role: its help icon is a
    button too)."""
    return page.locator(f"{BAR} .st-key-lessons-follow-{name}").get_by_role(
        "button", name=WORDS[f"lessons.follow.{name}"])


def _count(step: int, n: int) -> str:
    return WORDS["lessons.follow.counts"].format(
        counts=WORDS["lessons.follow.count_item"].format(k=step, n=n))


def test_a_student_follows_the_teacher_and_forks(server: str, page, browser,
                                                 each_test_workspace) -> None:
    teacher = page
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.add_init_script(f"({PROBE_JS})()")
    try:
        student = context.new_page()
        student.set_default_timeout(TIMEOUT_MS)
        teacher.goto(f"{server}/lessons?lang=en")
        wait_idle(teacher)
        click_and_wait(teacher, teacher.locator(".st-key-lessons-start-handbook button"),
                       _step_title(teacher, 1))
        click_and_wait(teacher, _button(teacher, "lead"),
                       _button(teacher, "unlead"))
        counts = teacher.locator(".st-key-lesson-counts")
        expect(counts).to_contain_text(WORDS["lessons.follow.nobody"], timeout=TIMEOUT_MS)

        student.goto(f"{server}/tensors?lesson=handbook&step=1&lang=en")
        wait_idle(student)
        expect(_step_title(student, 1)).to_be_visible(timeout=TIMEOUT_MS)
        toggle = student.locator(f"{BAR} .st-key-lessons-follow-toggle")
        expect(toggle).to_contain_text(WORDS["lessons.follow.toggle"], timeout=TIMEOUT_MS)
        click_and_wait(student, toggle.locator("label"),
                       _button(student, "fork"))
        expect(counts).to_contain_text(_count(1, 1), timeout=MOVE_MS)

        # the teacher presses Next: the student's page moves by itself
        click_and_wait(teacher, teacher.locator(f"{BAR} .st-key-lessons-bar-next button"),
                       _step_title(teacher, 2))
        expect(_step_title(student, 2)).to_be_visible(timeout=MOVE_MS)
        _url_step(student, 2, MOVE_MS)
        expect(counts).to_contain_text(_count(2, 1), timeout=MOVE_MS)

        # a reload carries on (the address says so): the student follows, the teacher leads
        for who, param, shown in ((student, "follow", "fork"), (teacher, "lead", "unlead")):
            _url_param(who, param, "1")
            who.reload()
            wait_idle(who)
            expect(_button(who, shown)).to_be_visible(timeout=MOVE_MS)
            expect(_step_title(who, 2)).to_be_visible()
        click_and_wait(teacher, teacher.locator(f"{BAR} .st-key-lessons-bar-next button"),
                       _step_title(teacher, 3))
        expect(_step_title(student, 3)).to_be_visible(timeout=MOVE_MS)
        _url_step(student, 3, MOVE_MS)
        # the presence is the browser's: its page before the reload and after it kept one
        # record, named by the id in the browser's cookie (the count does not show the
        # student twice while the old page's record ages out)
        browser_id = [c["value"] for c in context.cookies() if c["name"] == "tflab_browser"]
        records = sorted((each_test_workspace / "classroom" / "presence").glob("*.json"))
        assert [r.stem for r in records] == browser_id, (records, browser_id)
        expect(counts).to_contain_text(_count(3, 1), timeout=MOVE_MS)

        # Try it myself: the student's own session, no longer moved by the teacher
        click_and_wait(student, _button(student, "fork"))
        expect(_button(student, "fork")).to_be_hidden(timeout=MOVE_MS)
        expect(student.locator(f"{BAR} .st-key-lessons-follow-toggle input")).not_to_be_checked()
        _url_step(student, 3)
        _url_param(student, "follow", None)
        click_and_wait(teacher, teacher.locator(f"{BAR} .st-key-lessons-bar-next button"),
                       _step_title(teacher, 4))
        # the teacher is on step 4 and the count still finds the student on step 3 (once
        # the record of the student's page before its reload has aged out)
        expect(counts).to_contain_text(_count(3, 1), timeout=MOVE_MS)
        expect(_step_title(student, 3)).to_be_visible()
        _url_step(student, 3)

        click_and_wait(teacher, teacher.locator(f"{BAR} .st-key-lessons-bar-end").get_by_role(
            "button", name=WORDS["lessons.bar.stop"]))
        expect(teacher.locator(BAR)).to_be_hidden(timeout=MOVE_MS)
    finally:
        context.close()
        shutil.rmtree(each_test_workspace / "classroom", ignore_errors=True)
