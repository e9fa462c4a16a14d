"""Issue 26, item 5, on the pages: on a shared server the teacher (signed in with the
teacher password) leads a lesson; a student (no password) cannot lead, follows, and on
their next script run is on the teacher's step; Try it myself stops following and opens
the step in the student's own session; the teacher's bar counts the student."""

from __future__ import annotations

import json

import pytest
from streamlit import config

from streamlit.testing.v1 import AppTest

from tests.app.apptest_helpers import APP
from tests.app.lesson_helpers import assert_on_step, open_link, shown_title
from tfcore.lessons import SHIPPED_DIR, read_lead, read_lesson, valid_token
from tfcore.workspace import default_workspace
from ui.common import rights
from ui.common.i18n import catalog
from ui.lessons import follow

HANDBOOK = read_lesson(SHIPPED_DIR / "handbook.json").lesson
PASSWORD = "correct horse"


@pytest.fixture
def shared_server():
    before = config.get_option("server.address")
    config.set_option("server.address", "0.0.0.0")
    yield
    config.set_option("server.address", before)


def _teacher(lang: str):
    at = open_link({}, lang)
    at.secrets["teacher_password"] = PASSWORD
    at.switch_page("app_pages/lessons.py").run()
    at.text_input(key="lessons.teacher").input(PASSWORD).run()
    at.button(key="lessons.start.handbook").click().run()
    assert_on_step(at, HANDBOOK.steps[0], lang)
    return at


def _keys(at) -> set[str]:
    return {w.key for kind in ("button", "toggle") for w in at.get(kind)}


def _counts(at) -> str:
    return " ".join(c.value for c in at.caption)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_teacher_leads_a_student_follows_and_forks(shared_server, lang: str) -> None:
    words = catalog(lang)
    teacher = _teacher(lang)
    assert "lessons.follow.lead" in _keys(teacher)
    student = open_link({"lesson": "handbook", "step": "1"}, lang)
    assert "lessons.follow.lead" not in _keys(student)            # no password: no lead
    assert "lessons.follow.toggle" not in _keys(student)          # nobody leads yet

    teacher.button(key="lessons.follow.lead").click().run()
    assert "lessons.follow.unlead" in _keys(teacher)
    lead = read_lead(default_workspace()).lead
    assert (lead.lesson, lead.step, lead.run_id) == ("handbook", 1, None)
    teacher.button(key="lessons.bar.next").click().run()
    assert_on_step(teacher, HANDBOOK.steps[1], lang)
    assert read_lead(default_workspace()).lead.step == 2

    student.run()                                   # the bar now offers Follow
    student.toggle(key="lessons.follow.toggle").set_value(True).run()
    assert_on_step(student, HANDBOOK.steps[1], lang)   # moved to the teacher's step
    assert student.query_params["step"] == "2"
    teacher.run()
    expected = words["lessons.follow.counts"].format(
        counts=words["lessons.follow.count_item"].format(k=2, n=1))
    assert expected in _counts(teacher)

    teacher.button(key="lessons.bar.next").click().run()
    assert_on_step(teacher, HANDBOOK.steps[2], lang)
    student.run()                                    # its next script run: step 3
    assert_on_step(student, HANDBOOK.steps[2], lang)

    student.button(key="lessons.follow.fork").click().run()     # Try it myself
    assert_on_step(student, HANDBOOK.steps[2], lang)
    assert student.session_state["lessons.follow.on"] is False
    assert student.toggle(key="lessons.follow.toggle").value is False
    teacher.button(key="lessons.bar.next").click().run()
    student.run()
    assert_on_step(student, HANDBOOK.steps[2], lang)          # stays: no longer follows
    assert student.query_params["step"] == "3"

    teacher.button(key="lessons.bar.end").click().run()       # End: the lead ends
    assert read_lead(default_workspace()).lead is None
    assert not teacher.exception and not student.exception
    assert shown_title(student)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_reload_carries_on_following_and_leading(shared_server, lang: str,
                                                   monkeypatch) -> None:
    """The address holds ``follow=1`` while a student follows and ``lead=1`` while the
    teacher leads: a new page session opened on it (a reload) follows, or leads, again;
    ``lead=1`` does nothing without the teacher's sign-in, and neither outlives its state."""
    teacher = _teacher(lang)
    teacher.button(key="lessons.follow.lead").click().run()
    teacher.button(key="lessons.bar.next").click().run()
    assert teacher.query_params["lead"] == "1"
    student = open_link({"lesson": "handbook", "step": "1"}, lang)
    student.toggle(key="lessons.follow.toggle").set_value(True).run()
    assert_on_step(student, HANDBOOK.steps[1], lang)
    assert student.query_params["follow"] == "1" and "lead" not in student.query_params

    reloaded = open_link(_address(student), lang)         # the student presses F5
    assert reloaded.session_state["lessons.follow.on"] is True
    teacher.button(key="lessons.bar.next").click().run()
    reloaded.run()
    assert_on_step(reloaded, HANDBOOK.steps[2], lang)     # moved with the teacher
    assert reloaded.query_params["follow"] == "1"

    stolen = _open_with_password(_address(teacher), lang)   # no sign-in: lead=1 ignored
    assert "lessons.follow.unlead" not in _keys(stolen) and "lead" not in stolen.query_params
    assert read_lead(default_workspace()).lead.leader == teacher.session_state[
        "lessons.follow.token"]

    token = teacher.session_state["rights.teacher"]       # the browser's sign-in cookie
    monkeypatch.setattr(rights, "_browser_token", lambda: token)
    again = _open_with_password(_address(teacher), lang)    # the teacher presses F5
    assert "lessons.follow.unlead" in _keys(again)
    assert read_lead(default_workspace()).lead.leader == again.session_state[
        "lessons.follow.token"]                           # this session leads now
    again.button(key="lessons.bar.next").click().run()
    assert read_lead(default_workspace()).lead.step == 4
    reloaded.run()
    assert_on_step(reloaded, HANDBOOK.steps[3], lang)

    reloaded.toggle(key="lessons.follow.toggle").set_value(False).run()
    assert "follow" not in reloaded.query_params
    again.button(key="lessons.follow.unlead").click().run()
    assert "lead" not in again.query_params and read_lead(default_workspace()).lead is None
    late = _open_with_password(_address(teacher), lang)     # an ended lead stays ended
    assert read_lead(default_workspace()).lead is None
    assert not any(at.exception for at in (teacher, student, reloaded, again, late))


def _browser_cookie(at) -> str | None:
    """The browser id this page writes into its cookie, or None."""
    found = [json.loads(c.proto.json) for c in at.get("bidi_component")
             if c.proto.component_name == "tflab_cookie"]
    found = [d for d in found if d["name"] == follow.BROWSER_COOKIE]
    assert len(found) <= 1, found
    return found[0]["value"] if found else None


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_reloaded_student_is_counted_once(shared_server, lang: str, monkeypatch) -> None:
    """A student's presence is the browser's: the page writes an anonymous id into a
    cookie, and a reload that sends it renews the same record, so the teacher's counts
    show one student on the new step (not one more on the old step until it ages out)."""
    words = catalog(lang)
    teacher = _teacher(lang)
    teacher.button(key="lessons.follow.lead").click().run()
    student = open_link({"lesson": "handbook", "step": "1"}, lang)
    student.toggle(key="lessons.follow.toggle").set_value(True).run()
    browser = _browser_cookie(student)
    assert valid_token(browser)
    teacher.run()
    one_on = words["lessons.follow.counts"].format
    item = words["lessons.follow.count_item"].format
    assert one_on(counts=item(k=1, n=1)) in _counts(teacher)

    monkeypatch.setattr(follow, "browser_cookie",
                        lambda name: browser if name == follow.BROWSER_COOKIE else None)
    reloaded = open_link(_address(student), lang)          # F5: the browser sends its id
    assert _browser_cookie(reloaded) is None               # nothing new to write
    teacher.button(key="lessons.bar.next").click().run()
    reloaded.run()
    assert_on_step(reloaded, HANDBOOK.steps[1], lang)
    teacher.run()
    assert one_on(counts=item(k=2, n=1)) in _counts(teacher)
    assert item(k=1, n=1) not in _counts(teacher)            # the old session: no record

    monkeypatch.setattr(follow, "browser_cookie", lambda name: "../not an id")
    other = open_link({"lesson": "handbook", "step": "1"}, lang)    # a forged cookie
    other.toggle(key="lessons.follow.toggle").set_value(True).run()
    assert _browser_cookie(other) not in (None, browser)    # a new id of its own
    teacher.run()
    assert one_on(counts=item(k=2, n=2)) in _counts(teacher)
    assert not any(at.exception for at in (teacher, student, reloaded, other))


def _address(at) -> dict[str, str]:
    """The page's address as a new page session opens it."""
    return {name: at.query_params[name] for name in at.query_params}


def _open_with_password(query: dict[str, str], lang: str) -> AppTest:
    """A new page session on a server with the teacher password (the browser's sign-in
    comes from its cookie, if any)."""
    at = AppTest.from_file(APP, default_timeout=180)
    at.secrets["teacher_password"] = PASSWORD
    at.query_params.update({**query, "lang": lang})
    at.run()
    return at
