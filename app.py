"""TF Lab: the router. Sidebar (language, devices, jobs) and navigation over app_pages/."""

import streamlit as st

from ui.common import (APP_ICON, init_language, page_sections, preload_tensorflow,
                       render_sidebar, rerun_when_tensorflow_loads, warm_worker)
from ui.custom import load_saved_code
from ui.lessons import add_view, lesson_bar

st.set_page_config(page_title="TF Lab", page_icon=APP_ICON, layout="wide")
init_language()
load_saved_code()      # trusted servers: user-written layers, losses, metrics

navigation = st.navigation(page_sections())
render_sidebar()
lesson_bar(navigation.url_path or "home")   # while a lesson is on: its step bar on every page
add_view(navigation.url_path or "home")     # the sidebar's "Add this view to a lesson"
try:
    navigation.run()
finally:
    # Not before the first page: it draws without TensorFlow (a 5-15 s import), which
    # then loads in the background, while the warm worker imports its own.
    preload_tensorflow()
    warm_worker()
    rerun_when_tensorflow_loads()
