"""Issue 23, items 1 and 2 in a real browser at 1280x800: the "Saved model" source picks
nothing until the person picks; a saved model and a non-default loss survive F5."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.conftest import TIMEOUT_MS, choose_option, click_and_wait, wait_idle
from tfcore.model import get_preset, save_spec
from tfcore.workspace import default_workspace
from ui.common.i18n import catalog

EN = catalog("en")
LOSS = "sparse_categorical_crossentropy_logits"


def _selectbox(page, label: str):
    return page.locator("[data-testid='stSelectbox']").filter(
        has=page.get_by_text(label, exact=True)).first


def test_a_saved_model_and_a_loss_survive_a_reload(server: str, page) -> None:
    for name in ("zz_net", "lesson_net", "aa_net"):
        save_spec(default_workspace(), name, get_preset("mlp"))
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{server}/train?lang=en")
    wait_idle(page)
    page.get_by_text(EN["train.title"], exact=True).first.wait_for()
    source = page.locator("[data-testid='stRadio']").filter(
        has_text=EN["picker.source.preset"]).first
    click_and_wait(page, source.get_by_text(EN["picker.source.saved"], exact=True),
                   page.get_by_text(EN["train.choose_model"], exact=True))
    start = page.get_by_role("button", name=EN["train.start"], exact=True)
    expect(start).to_be_disabled()                     # nothing chosen for the person
    choose_option(page, _selectbox(page, EN["picker.saved"]), "lesson_net",
                  _selectbox(page, EN["train.loss"]))
    choose_option(page, _selectbox(page, EN["train.loss"]), LOSS)
    page.wait_for_function("loss => location.search.includes('loss=' + loss) &&"
                           " location.search.includes('saved=lesson_net')", arg=LOSS,
                           timeout=TIMEOUT_MS)

    page.reload()                                      # F5
    wait_idle(page)
    expect(_selectbox(page, EN["picker.saved"]).locator("input")).to_have_value(
        "lesson_net", timeout=TIMEOUT_MS)
    expect(_selectbox(page, EN["train.loss"]).locator("input")).to_have_value(
        LOSS, timeout=TIMEOUT_MS)
    expect(source.get_by_role("radio", name=EN["picker.source.saved"])).to_be_checked()
    expect(start).to_be_enabled()
    assert "saved=lesson_net" in page.url and f"loss={LOSS}" in page.url
