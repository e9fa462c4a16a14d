"""User-written code in a real browser (M8): on a server started with trusted code, the
Custom code page saves and loads the MSE loss and the accuracy metric templates; the Train
page lists both, trains with the metric and draws its curve live like a built-in one. The
code editor (issue 23 item 13) at 1280x800: monospace with line numbers, Tab indents the
line (focus stays in the editor), and what was typed is what Save checks and loads."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from tests.browser.conftest import (
    dashboard,
    act_and_wait,
    choose_option,
    click_button,
    fill_and_wait,
    settle,
    wait_charts_drawn,
)
from tfcore.custom import TRUSTED_ENV
from ui.common.i18n import catalog

EN = catalog("en")
METRIC = "SparseCategoricalAccuracy"

# Whether a live chart titled ``name`` draws at least one value, all of them in [0, 1].
METRIC_DRAWN_JS = """name => [...document.querySelectorAll("[data-testid='stVegaLiteChart']")]
  .some(el => {
    const title = [...el.querySelectorAll('g.role-title text')].map(t => t.textContent).join(' ');
    const values = [...el.querySelectorAll('g.mark-line path')]
      .flatMap(p => (p.__data__ && p.__data__.mark ? p.__data__.mark.items : []))
      .map(i => i.datum && i.datum.value).filter(v => typeof v === 'number');
    return title.includes(name) && values.length > 0 && values.every(v => v >= 0 && v <= 1);
  })"""


@pytest.fixture(scope="module")
def trusted_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server of its own, started with TFLAB_TRUSTED_CODE=1 on 127.0.0.1, with its own
    workspace (the shared server of the other browser tests runs without trusted code)."""
    workspace = tmp_path_factory.mktemp("trusted_workspace")
    log = tmp_path_factory.mktemp("trusted_server") / "streamlit.log"
    with dashboard(workspace, log, TFLAB_WARM_WORKER="0", **{TRUSTED_ENV: "1"}) as url:
        yield url


EDITOR_FRAME = "iframe[title*='tflab_code_editor']"
# The editor's active line, whether the focus is in the editor, its font and gutter.
EDITOR_STATE_JS = """() => ({
  line: (document.querySelector('.cm-activeLine') || {}).textContent,
  focused: !!document.activeElement && !!document.activeElement.closest('.cm-editor'),
  font: getComputedStyle(document.querySelector('.cm-scroller')).fontFamily,
  numbers: document.querySelectorAll('.cm-lineNumbers .cm-gutterElement').length,
})"""


def test_the_editor_indents_with_tab_and_saves_what_was_typed(trusted_server: str,
                                                              page) -> None:
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{trusted_server}/custom_code?lang=en")
    settle(page, EN["custom.title"])
    fill_and_wait(page, page.get_by_label(EN["custom.name"], exact=True), "tabbed")
    frame = page.frame_locator(EDITOR_FRAME).first
    content = frame.locator(".cm-content")
    content.wait_for()
    content.click()
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    page.keyboard.type("import keras")
    page.keyboard.press("Enter")
    page.keyboard.press("Enter")
    page.keyboard.type("class Tabbed(keras.layers.Layer):")
    page.keyboard.press("Enter")
    before = frame.locator("body").evaluate(f"({EDITOR_STATE_JS})")["line"]
    page.keyboard.press("Tab")
    state = frame.locator("body").evaluate(f"({EDITOR_STATE_JS})")
    assert state["line"] == before + "    " and state["focused"], (before, state)
    assert "monospace" in state["font"] and state["numbers"] >= 4, state
    page.keyboard.type("pass")
    indent = len(state["line"])
    click_button(page, EN["custom.save"], EN["custom.saved"].format(
        name="tabbed", classes=f"Tabbed ({EN['custom.kind.layer']}, "
                               f"{EN['custom.line'].format(line=3)})"))
    text = frame.locator(".cm-content").inner_text()
    assert f"\n{' ' * indent}pass" in text and indent >= 4, text


def _save_template(page, template: str, name: str, cls: str) -> None:
    """Pick ``template``, put it in the editor (its class ``cls`` shows there), save it."""
    label = EN[f"custom.tpl.{template}"].format(scenario="M8")
    choose_option(page, EN["custom.template"], label)
    click_button(page, EN["custom.use_template"], confirm=True,      # safe to repeat
                 expect=page.frame_locator(EDITOR_FRAME).first.get_by_text(f"class {cls}("))
    click_button(page, EN["custom.save"], EN["custom.saved"].split("{")[0] + name)


def test_m8_loss_and_metric_written_loaded_trained_and_drawn(trusted_server: str, page,
                                                             tmp_path: Path) -> None:
    page.goto(f"{trusted_server}/custom_code?lang=en")
    settle(page, EN["custom.title"])
    _save_template(page, "mse_loss", "mse_loss.py", "MeanSquaredError")
    _save_template(page, "sparse_accuracy", "sparse_accuracy.py", METRIC)
    table = page.locator("[data-testid='stDataFrame']").first
    table.wait_for()
    page.screenshot(path=str(tmp_path / "custom-code.png"), full_page=True)

    page.goto(f"{trusted_server}/train?lang=en&preset=mlp&dataset=digits28&epochs=1"
              f"&batch=100&pace=20")
    settle(page, EN["train.title"])
    loss_box = page.locator("[data-testid='stSelectbox']").filter(has_text=EN["train.loss"])
    loss_box.first.click()
    page.keyboard.type("MeanSquared")
    page.get_by_role("option", name="MeanSquaredError", exact=True).first.wait_for()
    page.keyboard.press("Escape")
    metrics = page.locator("[data-testid='stMultiSelect']").filter(
        has_text=EN["train.metrics"]).first

    def pick_metric() -> None:
        metrics.locator("input").first.click()     # not the chip already there
        page.keyboard.type(METRIC)
        page.get_by_role("option", name=METRIC, exact=True).wait_for()
        page.keyboard.press("Enter")
        page.keyboard.press("Escape")

    act_and_wait(page, pick_metric, metrics.get_by_text(METRIC, exact=True).first,
                 what=f"choosing the metric {METRIC}")
    click_button(page, EN["train.start"])
    wait_charts_drawn(page, at_least=2)
    page.wait_for_function(METRIC_DRAWN_JS, arg=METRIC, timeout=240_000)
    page.screenshot(path=str(tmp_path / "custom-metric.png"), full_page=True)
