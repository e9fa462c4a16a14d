"""A fresh server's first page (issue 23, item 14): Home draws before TensorFlow has
loaded in the server, saying so where the devices go, and fills in the device table and
the sidebar's device count by itself once the background import is done (no reload), in
English and Chinese. A server of its own: the session's has TensorFlow loaded long ago."""

from __future__ import annotations

from pathlib import Path

from tests.browser.conftest import TIMEOUT_MS, dashboard, settle
from ui.common.i18n import catalog

DATAFRAMES = "[data-testid='stDataFrame']"


def _first_page(browser, url: str, lang: str):
    """A new browser (context) opening Home in ``lang``, at 1280x800; closed again if the
    page does not open."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(f"{url}/?lang={lang}")
    except Exception:
        context.close()
        raise
    return context, page


def test_home_fills_in_devices_once_tensorflow_loads(browser, tmp_path: Path) -> None:
    """Both languages on one fresh server: the two first pages are opened at once, before
    the background import can be done, and each fills itself in."""
    with dashboard(tmp_path / "ws", tmp_path / "streamlit.log",
                   TFLAB_WARM_WORKER="0") as url:
        opened: dict = {}
        try:
            for lang in ("en", "zh"):
                opened[lang] = _first_page(browser, url, lang)
            for lang, (_, page) in opened.items():
                text = catalog(lang)
                settle(page, page.get_by_role("heading", name=text["home.title"]))
                page.locator(DATAFRAMES).nth(1).wait_for(state="visible")   # devices table
                sidebar = page.locator("[data-testid='stSidebar']")
                count = text["app.sidebar.devices"].split("}")[1].split("{")[0]  # " GPU(s), "
                sidebar.get_by_text(count).first.wait_for()
                settle(page)
                assert page.get_by_text(text["home.tf_loading"]).count() == 0, lang
                assert page.locator(DATAFRAMES).count() == 2, lang   # versions, devices
        finally:
            for context, _ in opened.values():
                context.close()
