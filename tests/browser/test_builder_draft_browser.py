"""Issue 23, items 1 and 3 in a real browser at 1280x800: a layer added in the builder is
still there after F5 (the draft is autosaved under ``?draft=<id>``)."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.conftest import TIMEOUT_MS, click_button, wait_idle
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
