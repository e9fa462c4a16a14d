"""The sidebar's "Add this view to a lesson" on every page: the page and its address (the
query parameters it keeps, less the app's own) become a step, titled like the page, of a
workspace lesson or of a new one. The capture and every check are the engine's
(:func:`tfcore.lessons.capture_step`, :func:`tfcore.lessons.add_to_lesson`)."""

from __future__ import annotations

import streamlit as st

from tfcore.errors import LessonError
from tfcore.lessons import (
    add_to_lesson,
    capture_step,
    copy_shipped,
    list_lessons,
)
from ui.common import available_pages, catalog, guarded, pick, plain, t, workspace
from ui.lessons.state import problem_lines

NEW = ""                                   # the lesson choice "a new lesson"
CHOICE_KEY, NAME_KEY, COPY_KEY = "lessons.add.lesson", "lessons.add.name", "lessons.add.copy"


def page_titles(page: str) -> dict[str, str]:
    """The page's title in each language (a captured step's default title)."""
    for info in available_pages():
        if info.path.endswith(f"/{page}.py"):
            return {lang: catalog(lang)[info.key] for lang in ("en", "zh")}
    return {"en": page, "zh": page}


def add_view(page: str) -> None:
    """Draw the sidebar's popover that adds this view (``page``, the address now) to a
    lesson."""
    with st.sidebar.popover(t("lessons.add.open"), icon=":material/playlist_add:",
                            width="stretch", help=t("lessons.add.help")):
        with guarded():                    # never breaks the page it sits beside
            _form(page)


def _choices() -> tuple[list[str], dict[str, str], set[str]]:
    """The lesson names to choose from (new first), their labels, the shipped ones."""
    names, labels, shipped = [NEW], {NEW: t("lessons.add.new")}, set()
    for entry in list_lessons(workspace()):
        if not entry.ok:
            continue                       # a damaged lesson takes no step until fixed
        names.append(entry.name)
        title = plain(pick(entry.lesson.title))
        if entry.origin == "shipped":
            shipped.add(entry.name)
            labels[entry.name] = t("lessons.add.shipped_option", title=title, name=entry.name)
        else:
            labels[entry.name] = t("lessons.add.own_option", title=title, name=entry.name)
    return names, labels, shipped


def _form(page: str) -> None:
    titles = page_titles(page)
    st.caption(t("lessons.add.what", page=plain(pick(titles))))
    names, labels, shipped = _choices()
    if st.session_state.get(CHOICE_KEY) not in names:
        st.session_state.pop(CHOICE_KEY, None)
    choice = st.selectbox(t("lessons.add.lesson"), names, key=CHOICE_KEY,
                          format_func=lambda name: labels.get(name, name))
    name = choice
    if choice == NEW:
        name = st.text_input(t("lessons.add.name"), key=NAME_KEY, max_chars=64,
                             placeholder="week_3", help=t("lessons.add.name_help")).strip()
    copy = False
    if choice in shipped:
        st.caption(t("lessons.add.read_only", name=choice))
        copy = st.checkbox(t("lessons.add.copy"), key=COPY_KEY)
    if st.button(t("lessons.add.go"), key="lessons.add.go", type="primary",
                 icon=":material/add:", width="stretch"):
        _add(page, titles, name, copy and choice in shipped, new=choice == NEW)


def _add(page: str, titles: dict[str, str], name: str, copy_first: bool, new: bool) -> None:
    try:
        capture = capture_step(page, st.query_params.to_dict(), titles)
        if copy_first:
            copy_shipped(workspace(), name)
        lesson = add_to_lesson(workspace(), name, capture.step, new=new)
    except LessonError as exc:
        st.error("\n".join(problem_lines(exc)), icon=":material/error:")
        return
    message = t("lessons.add.added", k=len(lesson.steps), lesson=plain(pick(lesson.title)),
                name=lesson.name)
    if capture.dropped:
        message += "  \n" + t("lessons.add.dropped", names=", ".join(capture.dropped))
    st.success(message, icon=":material/check:")
    st.toast(message, icon=":material/check:")
