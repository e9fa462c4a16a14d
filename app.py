"""TF Lab: the router. Sidebar (language, devices, jobs) and navigation over app_pages/."""

from pathlib import Path

import streamlit as st

from ui.common import (available_pages, init_language, preload_tensorflow, render_sidebar,
                       rerun_when_tensorflow_loads, t, warm_worker)
from ui.custom import load_saved_code
from ui.lessons import add_view, lesson_bar

# A local file: a ":material/...:" or emoji page icon makes every page load fetch the
# favicon from a font/emoji CDN (issue 13); the app must work offline and tell no one.
ICON = Path(__file__).resolve().parent / "assets" / "tflab-icon.png"
st.set_page_config(page_title="TF Lab", page_icon=str(ICON), layout="wide")
init_language()
load_saved_code()      # trusted servers: user-written layers, losses, metrics

sections: dict[str, list] = {}
for page in available_pages():
    sections.setdefault(t(page.section), []).append(
        st.Page(page.path, title=t(page.key), icon=page.icon,
                default=page.path == "app_pages/home.py", url_path=Path(page.path).stem))
navigation = st.navigation(sections)
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
