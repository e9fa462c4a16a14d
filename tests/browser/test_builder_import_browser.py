"""Issue 24.2 in a real browser at 1280x800, in English and Chinese: a trained .keras file
uploaded on the builder's Export / import tab is imported with its weights, and the page
says what was imported (layers, parameters, weights kept). Screenshots go to $TFLAB_SHOTS
(default: the test's temporary folder)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.browser.conftest import act_and_wait, click_button, select_tab, wait_idle
from ui.common.i18n import catalog

SAID = {"en": ("Imported digits_small.keras: 3 layers, 12,730 parameters.",
               "kept as the model's initial weights"),
        "zh": ("已导入 digits_small.keras：3 层，12,730 个参数。", "已保存为模型的初始权重")}


def _trained_file(folder: Path) -> Path:
    import keras

    keras.utils.set_random_seed(11)
    model = keras.Sequential([keras.Input((28, 28, 1), name="image"),
                              keras.layers.Flatten(name="flatten"),
                              keras.layers.Dense(16, activation="relu", name="hidden"),
                              keras.layers.Dense(10, name="logits")], name="digits_small")
    path = folder / "digits_small.keras"
    model.save(path)
    return path


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_import_a_trained_keras_file_in_the_builder(server: str, page, tmp_path: Path,
                                                    lang: str) -> None:
    words = catalog(lang)
    shots = Path(os.environ.get("TFLAB_SHOTS") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    page.set_viewport_size({"width": 1280, "height": 800})
    path = _trained_file(tmp_path)
    page.goto(f"{server}/builder?lang={lang}")
    wait_idle(page)
    page.get_by_text(words["builder.title"], exact=True).first.wait_for()
    panel = select_tab(page, words["builder.tab.io"])
    button = panel.get_by_role("button", name=words["builder.import_load"], exact=True)
    act_and_wait(page, lambda: panel.locator("input[type='file']").set_input_files(str(path)),
                 button, what="uploading the .keras file")
    head, kept = SAID[lang]
    click_button(page, words["builder.import_load"], page.get_by_text(head, exact=False),
                 scope=panel)
    message = page.locator("[data-testid='stAlertContentSuccess']").filter(has_text=head)
    message.first.scroll_into_view_if_needed()
    text = message.first.inner_text()
    assert kept in text and "models/imported/digits_small-" in text, text
    page.screenshot(path=str(shots / f"builder-import-{lang}.png"))
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 1280, f"sideways scroll: {width}"       # no sideways scroll at 1280
