"""Lessons: the shipped lessons and the workspace's own; start one, then step through it;
edit a workspace lesson's steps, export and import lesson files."""

import streamlit as st

from ui.common import server_is_loopback, t, teacher_login
from ui.lessons import lesson_editor, lesson_import, lessons_list

st.title(t("lessons.title"))
st.caption(t("lessons.intro"))
lessons_list()
lesson_editor()
lesson_import()
if not server_is_loopback():       # a shared server: the teacher signs in to lead a class
    st.subheader(t("lessons.follow.teacher"))
    teacher_login("lessons.teacher")
