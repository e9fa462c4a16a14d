"""Labels that show a state follow the run in a real browser (issue 23, item 4): a short
paced run goes from running to finished, and without a click the Train page's run picker
says "finished" and the sidebar's active-run count drops. Waits are for states only."""

from __future__ import annotations

from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.browser.waits import SELECTBOX_TEXT_JS
from tests.browser.conftest import TIMEOUT_MS, click_button, settle
from ui.common.i18n import catalog

EN = catalog("en")

# The text the Train page's run picker shows for its choice (it may sit in an input).
PICKER_JS = SELECTBOX_TEXT_JS
# The sidebar's "Active runs: N" line.
COUNT_JS = """prefix => {
  const bar = document.querySelector("[data-testid='stSidebar']");
  const line = bar && bar.innerText.split('\\n').find(l => l.trim().startsWith(prefix));
  return line ? line.trim() : '';
}"""


def _wait_text(page, script: str, arg: str, text: str) -> None:
    """Wait until ``script(arg)`` contains ``text``; fail with what it shows instead."""
    try:
        page.wait_for_function(f"([a, t]) => ({script})(a).includes(t)", arg=[arg, text],
                               timeout=TIMEOUT_MS)
    except PlaywrightTimeout:
        shown = page.evaluate(script, arg)
        raise AssertionError(f"shows {shown!r}, not {text!r}") from None


def test_picker_and_sidebar_follow_a_run_to_its_end_without_a_click(server: str,
                                                                    page) -> None:
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{server}/train?lang=en&epochs=4&pace=20")
    settle(page, EN["train.title"])
    prefix = EN["app.sidebar.jobs"].split("{")[0]
    _wait_text(page, COUNT_JS, prefix, prefix)
    before = int(page.evaluate(COUNT_JS, prefix)[len(prefix):])
    click_button(page, EN["train.start"])

    label = EN["train.watch"]
    _wait_text(page, PICKER_JS, label, f" · {EN['state.running']} · ")
    _wait_text(page, COUNT_JS, prefix, EN["app.sidebar.jobs"].format(active=before + 1))
    # from here on nothing is clicked: the page follows the run by itself
    _wait_text(page, PICKER_JS, label, f" · {EN['state.finished']} · ")
    _wait_text(page, COUNT_JS, prefix, EN["app.sidebar.jobs"].format(active=before))
    assert f" · {EN['state.running']} · " not in page.evaluate(PICKER_JS, label)
