"""Lessons: the shipped lessons and the workspace's own; start one, then step through it;
edit a workspace lesson's steps, export and import lesson files."""

import streamlit as st

from ui.common import t
from ui.lessons import lesson_editor, lesson_import, lessons_list

st.title(t("lessons.title"))
st.caption(t("lessons.intro"))
lessons_list()
lesson_editor()
lesson_import()
