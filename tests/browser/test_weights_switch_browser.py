"""The weights lab in a real browser: after switching the model, the variable selector
shows the new model's label (the stale-label bug: MLP's "(100, 10)" under the CNN)."""

from __future__ import annotations

from tests.browser.conftest import choose_option, wait_idle
from tfcore.model.presets import preset_title
from ui.common.i18n import catalog

EN = catalog("en")


def _shown(page) -> str:
    """The text in the variable selectbox's input (what a person reads)."""
    box = page.locator("[data-testid='stSelectbox']").filter(
        has_text=EN["weights.inspect.variable"]).first
    return box.locator("input").input_value()


def test_variable_label_follows_the_model(server: str, page) -> None:
    page.goto(f"{server}/weights?lang=en")
    wait_idle(page)
    assert _shown(page) == "dense/kernel  (784, 100)"
    choose_option(page, EN["weights.inspect.variable"], "logits/kernel", exact=False,
                  expect=page.get_by_text(EN["weights.edit.target"].format(
                      path="logits/kernel", shape="(100, 10)")))
    assert _shown(page) == "logits/kernel  (100, 10)"
    choose_option(page, EN["picker.preset"], preset_title("cnn")["en"],
                  expect="3,274,634")   # the CNN's parameter count
    wait_idle(page)
    assert _shown(page) == "logits/kernel  (1024, 10)"
    assert page.get_by_text(EN["weights.edit.target"].format(
        path="logits/kernel", shape="(1024, 10)")).count() == 1
