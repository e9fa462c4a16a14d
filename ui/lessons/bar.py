"""The step bar at the top of every page while a lesson is on: the lesson and the step's
title, step k of n, Previous / Next (also the keyboard's Left / Right arrows), the students'
prompt, a link to the teacher's notes window, and an end to the lesson; with the teacher's
Lead this lesson, or a student's Follow the teacher and Try it myself (``follow``)."""

from __future__ import annotations

from html import escape
from urllib.parse import urlencode

import streamlit as st

from ui.common import current_lang, guarded, leave_links, pick, plain, t
from ui.lessons.follow import controls, ended, follow_watch, forked, keep_link, take_link
from ui.lessons.keys import arrow_keys
from ui.lessons.notes import notes_view, paragraphs
from ui.lessons.state import (
    LESSON_PARAM,
    NOTES_PARAM,
    PAIR_PARAM,
    STEP_PARAM,
    Position,
    current,
    go,
    pair_id,
    stop,
    sync,
)

BAR_KEY = "lesson-bar"
BAD_LINK_KEY = "lessons.bad_link"   # (page, message) of the last bad lesson link
# Read from the back of a room: the step's title large, the prompt at body size or more.
BAR_CSS = """<style>
.st-key-lesson-bar { background: var(--st-secondary-background-color, #f0f2f6); }
.st-key-lesson-bar .lesson-step { font-size: 1.45rem; font-weight: 700; line-height: 1.3;
  overflow-wrap: anywhere; }
.st-key-lesson-bar .lesson-name { font-size: 1rem; opacity: 0.8; overflow-wrap: anywhere; }
.st-key-lesson-bar div:has(> .st-key-lesson-title) { min-width: min(100%, 24rem); }
.st-key-lesson-prompt p { font-size: 1.15rem; overflow-wrap: anywhere; }
</style>"""


def lesson_bar(page: str) -> None:
    """Draw the step bar above ``page`` (the current page's name) while a lesson is on; in
    a notes window (``?notes=1``) draw the notes instead of the page. Called once per run
    from the app's layout, before the page."""
    if st.query_params.get(NOTES_PARAM) == "1":
        notes_view()
        st.stop()
    leave_links(page)                      # a link's refusals are named on their own page
    with guarded():                        # a lesson never breaks the page below it
        take_link()                        # ?follow=1, ?lead=1
        forked()                           # Try it myself: the step in this session's state
        message = sync(page)               # a link or a reload: may open the step's page
        if message:                        # named while the person stays on this page
            st.session_state[BAD_LINK_KEY] = (page, message)
        held = st.session_state.get(BAD_LINK_KEY)
        if held and held[0] == page and current() is None:
            st.warning(held[1], icon=":material/link_off:")
        elif held:
            st.session_state.pop(BAD_LINK_KEY, None)
        position = current()
        if position is not None:
            _bar(position)
        keep_link()                        # a reload carries on following or leading
        follow_watch(position, page)       # the teacher's counts, or a student's look


def _notes_link(position: Position) -> str:
    """A relative address of the notes window that follows this window."""
    return "./?" + urlencode({LESSON_PARAM: position.lesson.name,
                              STEP_PARAM: str(position.number), NOTES_PARAM: "1",
                              PAIR_PARAM: pair_id(), "lang": current_lang()})


def _bar(position: Position) -> None:
    st.html(BAR_CSS)
    lesson, number, step = position.lesson, position.number, position.step
    with st.container(border=True, key=BAR_KEY):
        # the title takes what the buttons leave; the buttons keep their whole labels
        with st.container(horizontal=True, vertical_alignment="center", gap="small"):
            # at least 24rem: when the buttons would squeeze it, they wrap below it
            with st.container(width="stretch", key="lesson-title"):
                st.html(f'<div class="lesson-name">{escape(pick(lesson.title))} · '
                        f'{escape(t("lessons.bar.of", k=number, n=position.total))}</div>'
                        f'<div class="lesson-step">{escape(pick(step.title))}</div>')
            previous = st.button(t("lessons.bar.previous"), key="lessons.bar.previous",
                                 icon=":material/arrow_back:", disabled=number <= 1)
            following = st.button(t("lessons.bar.next"), key="lessons.bar.next",
                                  type="primary", icon=":material/arrow_forward:",
                                  disabled=number >= position.total)
            st.link_button(t("lessons.bar.notes"), _notes_link(position),
                           icon=":material/speaker_notes:", help=t("lessons.bar.notes_help"))
            controls(position)             # Lead, or Follow the teacher / Try it myself
            end = st.button(t("lessons.bar.stop"), key="lessons.bar.end",
                              icon=":material/close:", help=t("lessons.bar.end"))
        with st.container(key="lesson-prompt"):
            st.markdown("\n\n".join(f":material/school: {plain(part)}" if i == 0 else plain(part)
                                    for i, part in enumerate(paragraphs(pick(step.prompt)))))
        move = arrow_keys()
    if end:
        ended()
        stop()
        st.rerun()
    if previous or move == "prev" and number > 1:
        go(lesson, number - 1)
    if following or move == "next" and number < position.total:
        go(lesson, number + 1)
