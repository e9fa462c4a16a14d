"""No network at run time (issue 13, item 8). Every browser test's page fails its test on
a request for anything but this machine (``tests/browser/conftest.py``), and
``test_no_cutoff_browser`` visits every page in both languages with it. Here, with every
foreign request refused as on an offline machine: the page icon is a local file, the
material icons of the menu come from the font Streamlit bundles, and a model named like a
Markdown image neither loads it nor becomes a link."""

from __future__ import annotations

from pathlib import Path

from tests.browser.conftest import PROBE_JS, TIMEOUT_MS, fill_and_wait, is_local, wait_for_app
from ui.common import available_pages, catalog

HOSTILE = "![x](http://example.com/a.png) [link](http://example.com)"


def test_offline_pages_draw_local_icons_and_fonts_and_no_markdown_links(
        server: str, browser, tmp_path: Path) -> None:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    foreign: list[str] = []
    local: list[str] = []

    def route(handle) -> None:
        url = handle.request.url
        if is_local(url):
            local.append(url)
            handle.continue_()
        else:
            foreign.append(url)      # refused, so an offline machine behaves the same
            handle.abort()

    context.route("**/*", route)
    context.on("request", lambda request: None if is_local(request.url)
               else foreign.append(request.url))
    try:
        context.add_init_script(f"({PROBE_JS})()")
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        pages = available_pages()
        assert len(pages) >= 9
        for lang in ("en", "zh"):
            for entry in (pages[0], pages[-1]):        # every page: the no-cutoff test
                page.goto(f"{server}/{Path(entry.path).stem}?lang={lang}")
                wait_for_app(page)
                page.locator("[data-testid='stSidebar']").get_by_text(
                    catalog(lang)[entry.key]).first.wait_for()
                icon = page.evaluate(
                    "() => [...document.querySelectorAll(\"link[rel~='icon']\")]"
                    ".map(l => l.href)")
                assert icon and all(is_local(href) for href in icon), icon
        # the menu's material icons are drawn from a font the server itself sends
        fonts = [u for u in local if any(u.endswith(ext) or ext + "?" in u
                                         for ext in (".woff2", ".woff", ".ttf"))]
        assert fonts, "no local font requests seen: are the material icons drawn at all?"
        # a model named like a Markdown image neither loads it nor becomes a link
        page.goto(f"{server}/builder?lang=en")
        wait_for_app(page)
        box = page.get_by_label(catalog("en")["builder.model_name"]).first
        fill_and_wait(page, box, HOSTILE, expect=page.locator(
            "[data-testid='stAlert']").filter(has_text="example.com").first)
        assert page.locator("img[src*='example.com'], a[href*='example.com']").count() == 0
    finally:
        context.close()
    assert not sorted(set(foreign)), f"requests outside this machine: {sorted(set(foreign))}"
    assert len(local) > 20    # the visits really happened (scripts, styles, websocket, ...)
