"""The Lessons page's list: every lesson (shipped and the workspace's own) with its steps
and a Start button; a damaged one with its located problems and no Start."""

from __future__ import annotations

import streamlit as st

from tfcore.lessons import LessonEntry, lessons_dir, list_lessons
from ui.common import available_pages, current_lang, pick, plain, t, workspace
from ui.lessons.state import current, go, stop


def _page_titles() -> dict[str, str]:
    return {info.path.rsplit("/", 1)[-1][:-3]: t(info.key) for info in available_pages()}


def lessons_list() -> None:
    """The lesson on now (if any), then one card per lesson."""
    position = current()
    if position is not None:
        with st.container(border=True):
            st.markdown(t("lessons.on", lesson=plain(pick(position.lesson.title)),
                          k=position.number, n=position.total))
            with st.container(horizontal=True):
                if st.button(t("lessons.resume"), key="lessons.resume",
                             icon=":material/play_arrow:"):
                    go(position.lesson, position.number)
                if st.button(t("lessons.bar.end"), key="lessons.end", icon=":material/close:"):
                    stop()
                    st.rerun()
    entries = list_lessons(workspace())
    if not entries:
        st.info(t("lessons.none"))
    pages = _page_titles()
    for entry in entries:
        _card(entry, pages)
    st.caption(t("lessons.where", folder=f"`{lessons_dir(workspace())}`"))


def _card(entry: LessonEntry, pages: dict[str, str]) -> None:
    with st.container(border=True):
        head, action = st.columns([5, 1], vertical_alignment="center")
        origin = t(f"lessons.origin.{entry.origin}")
        if entry.lesson is None:
            head.markdown(f"**{plain(entry.name)}** · {origin}")
            lang = current_lang()
            st.warning("\n".join([t("lessons.damaged", count=len(entry.problems)), ""] + [
                f"- {plain(problem.text(lang))}" for problem in entry.problems[:20]]),
                icon=":material/warning:")
            return
        lesson = entry.lesson
        head.markdown(f"**{plain(pick(lesson.title))}**  \n`{plain(entry.name)}` · {origin} · "
                      + t("lessons.count", n=len(lesson.steps)))
        if action.button(t("lessons.start"), key=f"lessons.start.{entry.name}", type="primary",
                         icon=":material/play_arrow:", width="stretch"):
            go(lesson, 1)
        if lesson.description:
            st.markdown(plain(pick(lesson.description)))
        with st.expander(t("lessons.steps")):
            st.markdown("\n".join(
                "- " + t("lessons.step_line", k=number, title=plain(pick(step.title)),
                         page=pages.get(step.page, step.page))
                for number, step in enumerate(lesson.steps, 1)))
