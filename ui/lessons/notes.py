"""The teacher's notes window (``?lesson=<name>&step=<k>&notes=1``), opened from the step
bar in a second browser window that the projector does not show: the current step's notes,
large, with what the students are asked and the next step's title.

Opened from a step bar its link carries ``pair=<id>``: the window then follows that bar's
step each second (a Next on the projector turns the notes' page too). Without a known pair
(typed by hand, or the server restarted) it shows the step its link names.
"""

from __future__ import annotations

import re

import streamlit as st

from tfcore.errors import LessonError
from ui.common import pick, plain, t
from ui.lessons.pairs import followed
from ui.lessons.state import (LESSON_PARAM, PAIR_PARAM, STEP_PARAM, Position, open_lesson,
                              problem_lines)

FOLLOW_EVERY = 1.0           # seconds between looks at the presenting window's step
NOTES_CSS = """<style>
.st-key-lesson-notes p, .st-key-lesson-notes li { font-size: 1.7rem; line-height: 1.45;
  overflow-wrap: anywhere; }
.st-key-lesson-notes-head p { font-size: 1.2rem; }
</style>"""


def paragraphs(text: str) -> list[str]:
    """A lesson text's paragraphs (split at blank lines)."""
    return [part.strip() for part in re.split(r"\n\s*\n", text) if part.strip()]


def notes_view() -> None:
    """The notes window in place of a page."""
    st.html(NOTES_CSS)
    pair = st.query_params.get(PAIR_PARAM)
    if pair:
        st.fragment(_notes, run_every=FOLLOW_EVERY)(pair)
    else:
        _notes(None)


def _linked() -> tuple[str | None, str | None]:
    return st.query_params.get(LESSON_PARAM), st.query_params.get(STEP_PARAM)


def _notes(pair: str | None) -> None:
    name, text = _linked()
    where = followed(pair)
    if where is not None and (where[0], str(where[1])) != (name, text):
        name, text = where[0], str(where[1])
        st.query_params[LESSON_PARAM], st.query_params[STEP_PARAM] = name, text
    try:
        lesson = open_lesson(name or "")
    except LessonError as exc:
        st.warning("\n".join([t("lessons.link.bad"), "", *problem_lines(exc)]),
                   icon=":material/link_off:")
        return
    try:
        number = int(text or "1")
    except ValueError:
        number = 0
    if not 1 <= number <= len(lesson.steps):
        st.warning(t("lessons.link.step", name=plain(lesson.name), step=plain(str(text)[:20]),
                     total=len(lesson.steps)), icon=":material/link_off:")
        return
    _draw(Position(lesson, number), following=where is not None)


def _draw(position: Position, following: bool) -> None:
    step = position.step
    with st.container(key="lesson-notes-head"):
        st.markdown(t("lessons.notes.head", lesson=plain(pick(position.lesson.title)),
                      k=position.number, n=position.total))
    st.header(plain(pick(step.title)), anchor=False)
    with st.container(key="lesson-notes"):
        st.markdown("\n\n".join(plain(part) for part in paragraphs(pick(step.notes))))
    st.divider()
    st.markdown(t("lessons.notes.prompt", prompt=plain(pick(step.prompt))))
    if position.number < position.total:
        upcoming = position.lesson.steps[position.number]
        st.markdown(t("lessons.notes.next", title=plain(pick(upcoming.title))))
    st.caption(t("lessons.notes.following" if following else "lessons.notes.alone"))
