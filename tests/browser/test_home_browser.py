"""The home page in a real browser: renders, switches to Chinese, keeps ?lang=."""

from __future__ import annotations

from pathlib import Path

from tests.browser.conftest import choose_option, wait_idle
from ui.common.i18n import catalog


def test_home_switches_language(server: str, page, tmp_path: Path) -> None:
    page.goto(server)
    wait_idle(page)
    page.get_by_text(catalog("en")["home.title"], exact=True).first.wait_for()
    page.get_by_text(catalog("en")["home.devices"]).first.wait_for()

    language = page.locator("[data-testid='stSidebar'] [data-testid='stSelectbox']").first
    choose_option(page, language,
                  "简体中文",
                  expect=page.get_by_text(catalog("zh")["home.title"], exact=True).first)
    page.wait_for_url(lambda url: "lang=zh" in url)
    shot = tmp_path / "home-zh.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000

    page.goto(f"{server}/?lang=zh")
    wait_idle(page)
    page.get_by_text(catalog("zh")["home.devices"]).first.wait_for()


def test_deep_link_runs_through_the_router(server: str, page) -> None:
    """A link straight to a page gets the sidebar, the menu titles and ?lang= of app.py."""
    page.goto(f"{server}/timing?lang=zh")
    wait_idle(page)
    sidebar = page.locator("[data-testid='stSidebar']")
    sidebar.get_by_text(catalog("zh")["nav.timing"]).first.wait_for()
    sidebar.get_by_text(catalog("zh")["app.language"]).first.wait_for()
    assert "app_pages" not in sidebar.inner_text()
