"""The app shell: every page opens in both languages without an exception."""

from __future__ import annotations

import pytest

from tests.app.apptest_helpers import assert_clean, open_page, visible_labels
from ui.common.i18n import catalog
from ui.common.nav import available_pages

PAGES = [page.path for page in available_pages()]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("page", PAGES)
def test_every_page_opens_in_both_languages(page: str, lang: str) -> None:
    at = open_page(page, lang)
    assert_clean(at, lang)
    assert visible_labels(at), "a page shows at least one label"


def test_home_shows_versions_devices_and_language_switch() -> None:
    at = open_page("app_pages/home.py", "en")
    assert at.title[0].value == catalog("en")["home.title"]
    versions = at.dataframe[0].value
    assert "2.21.0" in versions.iloc[:, 1].tolist()
    devices = at.dataframe[1].value
    assert "CPU" in devices.iloc[:, 1].tolist()
    at.sidebar.selectbox[0].set_value("zh").run()
    assert at.title[0].value == catalog("zh")["home.title"]


def test_language_from_query_parameter_survives_page_switch() -> None:
    at = open_page("app_pages/home.py", "zh")
    assert at.title[0].value == catalog("zh")["home.title"]
    other = [p for p in PAGES if p != "app_pages/home.py"]
    if other:
        at.switch_page(other[0]).run()
        assert at.session_state["lang"] == "zh"
        assert_clean(at, "zh")


def test_unknown_language_falls_back_to_english() -> None:
    """?lang=xx opens the page in English and the sidebar says why, once, beside the
    language box (it was silently ignored)."""
    at = open_page("app_pages/home.py", "xx")
    assert at.title[0].value == catalog("en")["home.title"]
    warned = [w.value for w in at.sidebar.warning]
    assert warned == [catalog("en")["app.lang_ignored"].format(value="xx", choices="en, zh")]
    at.run()
    assert not at.sidebar.warning, "the warning is shown once"
    assert at.query_params["lang"] == "en"


def test_a_link_language_is_shown_as_typed_not_as_markdown() -> None:
    """The ignored ?lang= value comes from a link anyone can write: an image or a link in
    Markdown shows as its text (nothing loaded from elsewhere, nothing to click)."""
    value = "![x](https://example.org/t.png)[click](https://example.org)"
    at = open_page("app_pages/home.py", value)
    [warned] = [w.value for w in at.sidebar.warning]
    assert "![x]" not in warned and "[click](" not in warned
    assert "\\!\\[x\\]" in warned or "\\[x\\]" in warned
    assert at.title[0].value == catalog("en")["home.title"]
