"""TF Lab: the router. Sidebar (language, devices, jobs) and navigation over pages/."""

import streamlit as st

from ui import sidebar
from ui.i18n import init_language, t
from ui.nav import available_pages
from ui.resources import tensorflow_ready

st.set_page_config(page_title="TF Lab", page_icon=":material/neurology:", layout="wide")
init_language()
tensorflow_ready()

sections: dict[str, list] = {}
for page in available_pages():
    sections.setdefault(t(page.section), []).append(
        st.Page(page.path, title=t(page.key), icon=page.icon,
                default=page.path == "pages/home.py", url_path=page.path[6:-3]))
navigation = st.navigation(sections)
sidebar.render()
navigation.run()
