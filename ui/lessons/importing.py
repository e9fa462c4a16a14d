"""The Lessons page's import: a lesson file (``.json``) uploaded, checked by the format's
code with every problem located, and saved under a lesson name; a workspace lesson of that
name is replaced only when the teacher says so."""

from __future__ import annotations

import streamlit as st

from tfcore.errors import LessonError
from tfcore.lessons import check_name, import_lesson, lesson_exists, suggest_name
from ui.common import t, workspace
from ui.lessons.editor import flash, select_lesson
from ui.lessons.state import problem_lines

UPLOAD_KEY = "lessons.import.file"


def lesson_import() -> None:
    """The import section, folded (an uploader, the name, replace or not, Import)."""
    with st.expander(t("lessons.import.head"), icon=":material/upload_file:"):
        _import()


def _import() -> None:
    upload = st.file_uploader(t("lessons.import.file"), type=["json"], key=UPLOAD_KEY,
                              help=t("lessons.import.help"))
    if upload is None:
        return
    name = st.text_input(t("lessons.import.name"), suggest_name(upload.name), max_chars=64,
                         key=f"lessons.import.name.{upload.file_id}").strip()
    try:
        where = lesson_exists(workspace(), name)
    except LessonError:
        where = None                       # a bad name: Import says why
    replace = False
    if where == "workspace":
        replace = st.checkbox(t("lessons.import.replace", name=name),
                              key=f"lessons.import.replace.{upload.file_id}")
    elif where == "shipped":
        st.caption(t("lessons.import.over_shipped", name=name))
    if st.button(t("lessons.import.go"), key="lessons.import.go", type="primary",
                 icon=":material/upload:"):
        try:
            check_name(name)
            lesson = import_lesson(workspace(), name, upload.getvalue(), upload.name,
                                   replace_own=replace)
        except LessonError as exc:
            st.error("\n".join(problem_lines(exc)), icon=":material/error:")
            return
        flash("success", [t("lessons.import.done", name=lesson.name, n=len(lesson.steps))])
        select_lesson(lesson.name)
        st.rerun()
