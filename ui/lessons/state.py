"""Which lesson is on and at which step: kept in the session and in the URL
(``?lesson=<name>&step=<k>``), so a reload or a shared link opens the same step.

A link that names another step than the session holds (a reload, a shared address, the
browser's Back button) is entered: on the step's page the link's own values win and the
step fills in what it lacks; on another page the step's page opens. A bad or stale link
(no such lesson, a damaged lesson, a step out of range) leaves the page as it is and says
what is wrong.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

import streamlit as st

from tfcore.errors import LessonError
from tfcore.lessons import Lesson, LessonStep, find_lesson
from ui.common import (available_pages, current_lang, error_text, plain, presenter_mode,
                       reopen_links, t, workspace)
from ui.lessons.pairs import publish

LESSON_PARAM, STEP_PARAM, NOTES_PARAM, PAIR_PARAM = "lesson", "step", "notes", "pair"
ON_KEY = "lessons.on"            # (name, step number) while a lesson is on
PAIR_KEY = "lessons.pair"        # this window's id for its notes window


@dataclass(frozen=True)
class Position:
    """A lesson and one of its steps (numbered from 1)."""

    lesson: Lesson
    number: int

    @property
    def step(self) -> LessonStep:
        return self.lesson.steps[self.number - 1]

    @property
    def total(self) -> int:
        return len(self.lesson.steps)


def page_path(page: str) -> str:
    """The file of the app's page called ``page`` (its stem)."""
    for info in available_pages():
        if info.path.endswith(f"/{page}.py"):
            return info.path
    raise LessonError(key="lessons.err.page", params={"page": page})


def problem_lines(exc: LessonError) -> list[str]:
    """A lesson error's message, then each of its located problems (Markdown lines)."""
    return [error_text(exc), *(f"- {plain(p.text(current_lang()))}"
                               for p in list(exc.details or ())[:20])]


def open_lesson(name: str) -> Lesson:
    """The sound lesson ``name``.

    Raises:
        LessonError: no lesson has that name, or its file has problems (in ``details``).
    """
    entry = find_lesson(workspace(), name)
    if not entry.ok:
        raise LessonError(key="lessons.err.damaged", params={"name": name},
                          details=list(entry.problems))
    return entry.lesson


def current() -> Position | None:
    """The lesson step this session is on, None when no lesson is on (or its file has
    gone bad since: the lesson then ends)."""
    on = st.session_state.get(ON_KEY)
    if not on:
        return None
    try:
        lesson = open_lesson(on[0])
    except LessonError:
        stop()
        return None
    if not 1 <= on[1] <= len(lesson.steps):
        stop()
        return None
    return Position(lesson, on[1])


def pair_id() -> str:
    """This window's id, which its notes window follows."""
    if PAIR_KEY not in st.session_state:
        st.session_state[PAIR_KEY] = secrets.token_urlsafe(9)
    return st.session_state[PAIR_KEY]


def step_query(position: Position) -> dict[str, str]:
    """Every query parameter of a step's page: its state, the lesson and step, the
    language (and presenter mode when on)."""
    query = {**position.step.link(), LESSON_PARAM: position.lesson.name,
             STEP_PARAM: str(position.number), "lang": current_lang()}
    if presenter_mode():
        query["present"] = "1"
    return query


def go(lesson: Lesson, number: int) -> None:
    """Open step ``number`` of ``lesson``: its page with its state (never returns)."""
    position = Position(lesson, number)
    st.session_state[ON_KEY] = (lesson.name, number)
    reopen_links()
    _publish(position)
    st.switch_page(page_path(position.step.page), query_params=step_query(position))


def stop() -> None:
    """End the lesson: no step bar, no lesson in the URL."""
    st.session_state.pop(ON_KEY, None)
    for name in (LESSON_PARAM, STEP_PARAM):
        if name in st.query_params:
            del st.query_params[name]


def _drop_link() -> None:
    for name in (LESSON_PARAM, STEP_PARAM):
        if name in st.query_params:
            del st.query_params[name]


def _linked_number(text: str | None, total: int) -> int | None:
    try:
        number = int(text or "1")
    except ValueError:
        return None
    return number if 1 <= number <= total else None


def sync(page: str) -> str | None:
    """Match the session's lesson step and the URL's (see the module docstring); may switch
    to the step's page. Returns the message of a bad or stale link, else None."""
    name, text = st.query_params.get(LESSON_PARAM), st.query_params.get(STEP_PARAM)
    on = st.session_state.get(ON_KEY)
    if name is None:
        if on:               # a page chosen in the menu: the URL drops the lesson; put it back
            st.query_params[LESSON_PARAM], st.query_params[STEP_PARAM] = on[0], str(on[1])
        return None
    if on and (on[0], str(on[1])) == (name, text):
        return None
    try:
        lesson = open_lesson(name)
    except LessonError as exc:
        _drop_link()
        st.session_state.pop(ON_KEY, None)
        return "\n".join([t("lessons.link.bad"), "", *problem_lines(exc)])
    number = _linked_number(text, len(lesson.steps))
    if number is None:
        _drop_link()
        st.session_state.pop(ON_KEY, None)
        return "\n".join([t("lessons.link.bad"), "", t(
            "lessons.link.step", name=plain(name), step=plain(str(text)[:20]),
            total=len(lesson.steps))])
    position = Position(lesson, number)
    if position.step.page != page:
        go(lesson, number)
    st.session_state[ON_KEY] = (lesson.name, number)
    reopen_links()
    for key, value in step_query(position).items():
        if key not in st.query_params:
            st.query_params[key] = value
    _publish(position)
    return None


def _publish(position: Position) -> None:
    publish(pair_id(), position.lesson.name, position.number)
