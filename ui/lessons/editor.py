"""The Lessons page's editor for a workspace lesson: its steps in order, reordered by drag
(or Up / Down), each step's title, teacher's notes and students' prompt in English and
Chinese, opened, duplicated and deleted; the lesson's title, its file exported, the lesson
deleted. A shipped lesson is read-only: it is copied into the workspace first.

Every change is one engine call (:func:`tfcore.lessons.change_lesson`, checked by the
format's code and written atomically); its outcome is shown after the page redraws.
"""

from __future__ import annotations

import hashlib
from typing import Callable
from urllib.parse import urlencode

import streamlit as st
from streamlit_sortables import sort_items

from tfcore.errors import LessonError
from tfcore.lessons import (
    Lesson,
    LessonEntry,
    change_lesson,
    copy_shipped,
    delete_lesson,
    delete_step,
    duplicate_step,
    edit_step,
    export_lesson,
    list_lessons,
    move_step,
    reorder_steps,
    retitle,
)
from ui.common import current_lang, pick, plain, t, workspace
from ui.lessons.capture import page_titles
from ui.lessons.state import go, problem_lines

EDIT_KEY = "lessons.edit.lesson"           # the lesson chosen in the editor
FLASH_KEY = "lessons.edit.flash"           # (kind, lines) of the last change, shown once
PENDING_KEY = "lessons.edit.pending"       # the lesson the editor opens at its next draw
LANGS = ("en", "zh")
# The drag list in the app's quiet colours (the component's default is a loud red), its
# long titles wrapped, not cut.
SORT_CSS = """
.sortable-component { background-color: transparent; border: 0; padding: 0; }
.sortable-item, .sortable-item:hover { background-color: #f0f2f6; color: #31333f;
  border: 1px solid #d5d7de; text-align: left; white-space: normal; overflow-wrap: anywhere;
  cursor: grab; }
.sortable-item.dragging { background-color: #e0e4ee; }
"""


def flash(kind: str, lines: list[str]) -> None:
    """Show ``lines`` (``success`` or ``error``) once the page has redrawn."""
    st.session_state[FLASH_KEY] = (kind, lines)


def select_lesson(name: str) -> None:
    """Open the lesson ``name`` in the editor when the page draws next."""
    st.session_state[PENDING_KEY] = name


def _show_flash() -> None:
    kind, lines = st.session_state.pop(FLASH_KEY, (None, None))
    if kind == "success":
        st.success("\n".join(lines), icon=":material/check:")
    elif kind == "error":
        st.error("\n".join(lines), icon=":material/error:")


def apply(name: str, change: Callable[[Lesson], Lesson], done: str) -> None:
    """Change the workspace lesson ``name``, then redraw with ``done`` or the located
    problems (nothing written)."""
    try:
        change_lesson(workspace(), name, change)
    except LessonError as exc:
        flash("error", problem_lines(exc))
    else:
        flash("success", [done])
    st.rerun()


def lesson_editor() -> None:
    """The editor section: choose a lesson, then edit it (a workspace lesson) or copy it
    (a shipped one)."""
    st.subheader(t("lessons.edit.head"), anchor=False)
    _show_flash()
    entries = {entry.name: entry for entry in list_lessons(workspace())}
    if not entries:
        return
    wanted = st.session_state.pop(PENDING_KEY, None)
    if wanted in entries:
        st.session_state[EDIT_KEY] = wanted
    if st.session_state.get(EDIT_KEY) not in entries:
        own = [name for name, entry in entries.items() if entry.origin == "workspace"
               and entry.ok]
        st.session_state[EDIT_KEY] = (own or list(entries))[0]
    labels = {name: _label(entry) for name, entry in entries.items()}
    name = st.selectbox(t("lessons.edit.choose"), list(entries), key=EDIT_KEY,
                        format_func=lambda n: labels.get(n, n))
    entry = entries[name]
    if entry.origin == "shipped":
        _shipped(entry)
    elif entry.lesson is None:
        st.warning("\n".join([t("lessons.damaged", count=len(entry.problems)), ""] + [
            f"- {plain(problem.text(current_lang()))}" for problem in entry.problems[:20]]),
            icon=":material/warning:")
        _delete_lesson(name)
    else:
        _edit(entry.lesson)


def _label(entry: LessonEntry) -> str:
    title = pick(entry.lesson.title) if entry.lesson else entry.name
    return t(f"lessons.edit.option.{entry.origin}", title=title, name=entry.name)


def _shipped(entry: LessonEntry) -> None:
    st.info(t("lessons.edit.read_only"), icon=":material/lock:")
    with st.container(horizontal=True):
        if st.button(t("lessons.edit.copy"), key="lessons.edit.copy", type="primary",
                     icon=":material/content_copy:"):
            try:
                copy_shipped(workspace(), entry.name)
            except LessonError as exc:
                flash("error", problem_lines(exc))
            else:
                flash("success", [t("lessons.edit.copied", name=entry.name)])
            st.rerun()
        if entry.lesson is not None:
            _export(entry.lesson)


def _digest(lesson: Lesson) -> str:
    return hashlib.sha1(export_lesson(lesson)).hexdigest()[:12]


def _edit(lesson: Lesson) -> None:
    rev = _digest(lesson)                  # every widget below is new after each change
    st.caption(t("lessons.edit.about"))
    _title_form(lesson, rev)
    _reorder(lesson, rev)
    for number, _ in enumerate(lesson.steps, 1):
        _step(lesson, number, rev)
    with st.container(horizontal=True):
        _export(lesson)
        _delete_lesson(lesson.name)


def _title_form(lesson: Lesson, rev: str) -> None:
    with st.form(f"lessons.edit.title.{rev}", border=False):
        cols = st.columns(2)
        title = {lang: cols[i].text_input(t(f"lessons.edit.lesson_title.{lang}"),
                                          lesson.title[lang], max_chars=200,
                                          key=f"lessons.edit.{rev}.title.{lang}")
                 for i, lang in enumerate(LANGS)}
        if st.form_submit_button(t("lessons.edit.save_title"), icon=":material/save:"):
            apply(lesson.name, lambda ls: retitle(ls, title), t("lessons.edit.saved_title"))


def _step_line(lesson: Lesson, number: int) -> str:
    step = lesson.steps[number - 1]
    return t("lessons.step_line", k=number, title=pick(step.title),
             page=pick(page_titles(step.page)))


def _reorder(lesson: Lesson, rev: str) -> None:
    """The steps as a list to drag into a new order (the Up / Down buttons of each step do
    the same from the keyboard)."""
    if len(lesson.steps) < 2:
        return
    st.markdown(t("lessons.edit.drag"))
    items = [_step_line(lesson, number) for number in range(1, len(lesson.steps) + 1)]
    order = sort_items(items, direction="vertical", custom_style=SORT_CSS,
                       key=f"lessons.sort.{lesson.name}.{rev}")
    if order != items and sorted(order) == sorted(items):
        numbers = [items.index(item) + 1 for item in order]
        apply(lesson.name, lambda ls: reorder_steps(ls, numbers), t("lessons.edit.reordered"))


def _step(lesson: Lesson, number: int, rev: str) -> None:
    step, name, total = lesson.steps[number - 1], lesson.name, len(lesson.steps)
    with st.expander(plain(_step_line(lesson, number))):
        link = step.link()
        st.caption(f"`/{step.page}" + (f"?{urlencode(link)}" if link else "") + "`")
        with st.form(f"lessons.edit.step.{rev}.{number}", border=False):
            texts: dict[str, dict[str, str]] = {}
            for field, kind, limit in (("title", "text_input", 200),
                                       ("notes", "text_area", 4000),
                                       ("prompt", "text_area", 4000)):
                cols = st.columns(2)
                texts[field] = {lang: getattr(cols[i], kind)(
                    t(f"lessons.edit.{field}.{lang}"), getattr(step, field)[lang],
                    max_chars=limit, key=f"lessons.edit.{rev}.{number}.{field}.{lang}")
                    for i, lang in enumerate(LANGS)}
            if st.form_submit_button(t("lessons.edit.save"), icon=":material/save:",
                                     key=f"lessons.step.{number}.save"):
                apply(name, lambda ls: edit_step(ls, number, **texts),
                      t("lessons.edit.saved", k=number))
        with st.container(horizontal=True, gap="small"):
            if st.button(t("lessons.edit.up"), key=f"lessons.step.{number}.up",
                         icon=":material/arrow_upward:", disabled=number == 1):
                apply(name, lambda ls: move_step(ls, number, number - 1),
                      t("lessons.edit.moved", k=number, to=number - 1))
            if st.button(t("lessons.edit.down"), key=f"lessons.step.{number}.down",
                         icon=":material/arrow_downward:", disabled=number == total):
                apply(name, lambda ls: move_step(ls, number, number + 1),
                      t("lessons.edit.moved", k=number, to=number + 1))
            if st.button(t("lessons.edit.open"), key=f"lessons.step.{number}.open",
                         icon=":material/visibility:", help=t("lessons.edit.open_help")):
                go(lesson, number)
            if st.button(t("lessons.edit.duplicate"), key=f"lessons.step.{number}.duplicate",
                         icon=":material/content_copy:"):
                apply(name, lambda ls: duplicate_step(ls, number),
                      t("lessons.edit.duplicated", k=number))
            with st.popover(t("lessons.edit.delete"), icon=":material/delete:",
                            disabled=total == 1, help=t("lessons.edit.delete_help")):
                if st.button(t("lessons.edit.delete_confirm", k=number), type="primary",
                             key=f"lessons.step.{number}.delete"):
                    apply(name, lambda ls: delete_step(ls, number),
                          t("lessons.edit.deleted", k=number))


def _export(lesson: Lesson) -> None:
    try:
        data = export_lesson(lesson)
    except LessonError as exc:
        st.error("\n".join(problem_lines(exc)), icon=":material/error:")
        return
    st.download_button(t("lessons.edit.export"), data, file_name=f"{lesson.name}.json",
                       mime="application/json", key="lessons.export", on_click="ignore",
                       icon=":material/download:")


def _delete_lesson(name: str) -> None:
    with st.popover(t("lessons.edit.delete_lesson"), icon=":material/delete_forever:"):
        if st.button(t("lessons.edit.delete_lesson_confirm", name=name), type="primary",
                     key="lessons.delete_lesson"):
            try:
                delete_lesson(workspace(), name)
            except LessonError as exc:
                flash("error", problem_lines(exc))
            else:
                flash("success", [t("lessons.edit.deleted_lesson", name=name)])
            st.rerun()
