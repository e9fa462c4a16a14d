"""Lessons: the shipped lessons and the workspace's own; start one, then step through it."""

import streamlit as st

from ui.common import t
from ui.lessons import lessons_list

st.title(t("lessons.title"))
st.caption(t("lessons.intro"))
lessons_list()
