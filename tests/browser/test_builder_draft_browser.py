"""Issue 23, items 1 and 3 in a real browser at 1280x800: a layer added in the builder is
still there after F5 (the draft is autosaved under ``?draft=<id>``) and after a visit to
Train through the sidebar, with the Canvas editor still chosen."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.conftest import TIMEOUT_MS, click_and_wait, click_button, wait_idle
from ui.common.i18n import catalog

EN = catalog("en")
ADDED = "5. dense_2 · Dense"          # the MLP preset has four layers; Dense comes first


def test_a_layer_added_in_the_builder_survives_a_reload(server: str, page) -> None:
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{server}/builder?lang=en")
    wait_idle(page)
    page.get_by_text(EN["builder.title"], exact=True).first.wait_for()
    page.get_by_text("4. softmax · Softmax", exact=True).first.wait_for()
    assert page.get_by_text(ADDED, exact=True).count() == 0
    click_button(page, EN["builder.add_layer"], ADDED, confirm=True)
    page.wait_for_function("() => /[?&]draft=[0-9a-f]{32}/.test(location.search)",
                           timeout=TIMEOUT_MS)
    wait_idle(page)                                  # the run that autosaves has ended

    page.reload()                                    # F5: a new session, the same URL
    wait_idle(page)
    expect(page.get_by_text(ADDED, exact=True).first).to_be_visible(timeout=TIMEOUT_MS)
    expect(page.get_by_text("4. softmax · Softmax", exact=True).first).to_be_visible()

    mode = page.locator("[data-testid='stRadio']").filter(has_text=EN["canvas.mode"]).first
    canvas = mode.get_by_role("radio", name=EN["canvas.mode.canvas"])
    click_and_wait(page, mode.get_by_text(EN["canvas.mode.canvas"], exact=True), canvas)
    expect(canvas).to_be_checked()
    nav = page.locator("[data-testid='stSidebarNav']")
    main = page.get_by_test_id("stMainBlockContainer")
    click_and_wait(page, nav.get_by_text(EN["nav.train"], exact=True),
                   main.get_by_text(EN["train.title"], exact=True).first, confirm=True)
    click_and_wait(page, nav.get_by_text(EN["nav.builder"], exact=True),
                   main.get_by_text(EN["builder.title"], exact=True).first, confirm=True)
    expect(canvas).to_be_checked(timeout=TIMEOUT_MS)      # the editor choice came back
    forms = mode.get_by_text(EN["canvas.mode.forms"], exact=True)
    click_and_wait(page, forms, page.get_by_text(ADDED, exact=True))
