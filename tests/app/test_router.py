"""The menu's ``st.Page`` objects are made once per session and language
(``ui.common.router``): a page run does not resolve eleven page files again, and a language
switch makes new ones with the new titles."""

from __future__ import annotations

from tests.app.apptest_helpers import open_page
from ui.common import available_pages, catalog
from ui.common.i18n import WIDGET_KEY
from ui.common.router import PAGES_KEY


def _titles(sections: dict) -> list[str]:
    return [page.title for pages in sections.values() for page in pages]


def _expected(lang: str) -> list[str]:
    words = catalog(lang)
    return [words[page.key] for page in available_pages()]


def test_the_menu_pages_are_made_once_per_session_and_again_for_a_new_language() -> None:
    at = open_page("app_pages/home.py", "en")
    lang, first = at.session_state[PAGES_KEY]
    assert lang == "en" and _titles(first) == _expected("en")
    assert list(first) == list(dict.fromkeys(catalog("en")[p.section]
                                             for p in available_pages()))
    at.switch_page("app_pages/timing.py")
    at.run()
    assert not at.exception
    assert at.session_state[PAGES_KEY][1] is first        # the same objects, not remade
    assert at.title[0].value == catalog("en")["timing.title"]
    box = [w for w in at.sidebar.selectbox if str(w.key).startswith(WIDGET_KEY)][0]
    box.set_value("zh").run()
    assert not at.exception
    lang, second = at.session_state[PAGES_KEY]
    assert lang == "zh" and second is not first and _titles(second) == _expected("zh")
    assert at.title[0].value == catalog("zh")["timing.title"]   # still on the same page


def test_the_page_list_is_looked_up_once_and_handed_out_as_a_copy() -> None:
    pages = available_pages()
    pages.clear()                                # a caller's change stays its own
    assert available_pages() and available_pages() == available_pages()
