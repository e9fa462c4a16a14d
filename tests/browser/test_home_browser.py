"""The home page in a real browser: renders, switches to Chinese, keeps ?lang=."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import expect

from tests.browser.conftest import TIMEOUT_MS, choose_option, wait_idle
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
    # the menu's titles too (its pages are made once per session and language)
    menu = page.locator("[data-testid='stSidebarNav']")
    for key in ("nav.home", "nav.timing", "nav.train"):
        menu.get_by_text(catalog("zh")[key], exact=True).first.wait_for()
    assert catalog("en")["nav.timing"] not in menu.inner_text()
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


def test_choices_read_the_new_language_after_a_switch(server: str, page) -> None:
    """中文 -> English on the builder: the "Start from" box and the Editor and Kind radios
    show their (unchanged) choice in English. Before the fix the box kept its Chinese
    label and the radios showed nothing selected."""
    zh, en = catalog("zh"), catalog("en")
    page.goto(f"{server}/builder?lang=zh")
    wait_idle(page)
    main = page.locator("[data-testid='stMain']")
    main.locator("[data-testid='stSelectbox']").filter(has_text=zh["builder.start"]) \
        .first.wait_for()
    language = page.locator("[data-testid='stSidebar'] [data-testid='stSelectbox']").first
    start = main.locator("[data-testid='stSelectbox']").filter(has_text=en["builder.start"])
    choose_option(page, language, "English", expect=start.first)
    wait_idle(page)
    mlp_zh = zh["preset.mlp"].format(scenario="M3")
    mlp_en = en["preset.mlp"].format(scenario="M3")
    shown = start.first.get_by_role("combobox")
    expect(shown).to_have_value(mlp_en, timeout=TIMEOUT_MS)      # a later rerun may redraw
    assert mlp_en != mlp_zh
    for label, choice in ((en["canvas.mode"], en["canvas.mode.forms"]),
                          (en["builder.kind"], en["builder.kind.sequential"])):
        radio = main.locator("[data-testid='stRadio']").filter(has_text=label).first
        selected = radio.locator("[data-testid='stRadioOption'][data-selected='true']")
        expect(selected).to_have_count(1, timeout=TIMEOUT_MS)   # a choice is shown
        expect(selected).to_have_text(choice)
