"""The navigation's ``st.Page`` objects, made once per session and language.

Making a page resolves its file's path (a ``realpath`` and a ``stat`` per page, eleven pages
on every page run): 94 of 1,487 samples of a classroom server's time were spent there
(bench_sessions --follow 30 + py-spy). The objects are kept in the session, not shared
between sessions: ``st.navigation`` marks the page it returns as runnable and the run
unmarks it, so two sessions running at once must not share one object."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from ui.common.i18n import current_lang, t
from ui.common.nav import available_pages

# A local file: a ":material/...:" or emoji page icon makes every page load fetch the
# favicon from a font/emoji CDN (issue 13); the app must work offline and tell no one.
APP_ICON = str(Path(__file__).resolve().parents[2] / "assets" / "tflab-icon.png")
PAGES_KEY = "_nav.pages"        # (language, sections) of this session
HOME = "app_pages/home.py"


def page_sections() -> dict[str, list]:
    """The menu's sections (translated titles) -> their ``st.Page`` objects."""
    lang = current_lang()
    held = st.session_state.get(PAGES_KEY)
    if held is None or held[0] != lang:
        sections: dict[str, list] = {}
        for page in available_pages():
            sections.setdefault(t(page.section), []).append(
                st.Page(page.path, title=t(page.key), icon=page.icon,
                        default=page.path == HOME, url_path=Path(page.path).stem))
        held = (lang, sections)
        st.session_state[PAGES_KEY] = held
    return held[1]
