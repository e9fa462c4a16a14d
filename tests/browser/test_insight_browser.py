"""Issue 25 in a real browser: a paced run of a small dense model on circles, started from
the Train page, redraws its decision boundary and its neurons' pictures while it trains;
once it has finished, moving the step slider replays an earlier boundary. Every wait is
for a state (a picture unlike the last one, a state shown), never a sleep."""

from __future__ import annotations

from pathlib import Path

from tests.browser.conftest import (
    TIMEOUT_MS,
    act_and_wait,
    chart_picture,
    click_button,
    settle,
    wait_idle,
)
from tfcore.model import from_dict, save_spec
from tfcore.workspace import default_workspace
from ui.common.i18n import catalog

EN = catalog("en")
SPEC = {"format": 1, "name": "plane_net", "kind": "sequential",
        "inputs": [{"name": "x", "shape": [2], "dtype": "float32"}],
        "layers": [{"name": "hidden", "type": "Dense",
                    "config": {"units": 6, "activation": "tanh"}},
                   {"name": "hidden_2", "type": "Dense",
                    "config": {"units": 4, "activation": "tanh"}},
                   {"name": "out", "type": "Dense",
                    "config": {"units": 2, "activation": "softmax"}}],
        "outputs": []}
# 280 training examples in batches of 50: 6 steps an epoch, 360 steps at 20 a second
LINK = ("/train?lang=en&source=saved&saved=plane_net&dataset=circles&pace=20&epochs=60"
        "&insight=true&insight_every=10")
BOUNDARY = ".st-key-insight_train_boundary [data-testid='stVegaLiteChart']"
NETWORK = ".st-key-insight_train_network [data-testid='stVegaLiteChart']"
# The live panel's state tile (the first metric) shows this text.
STATE_JS = """text => {
  const tile = document.querySelector("[data-testid='stMetricValue']");
  return !!tile && tile.innerText.trim() === text;
}"""


def _state(page) -> str:
    return page.locator("[data-testid='stMetricValue']").first.inner_text().strip()


def test_a_paced_run_redraws_its_boundary_and_neurons_and_replays_them(
        server: str, page, tmp_path: Path) -> None:
    save_spec(default_workspace(), "plane_net", from_dict(SPEC))
    page.goto(server + LINK)
    settle(page, EN["train.title"])
    click_button(page, EN["train.start"])

    boundary = chart_picture(page, BOUNDARY)                 # the first snapshots
    neurons = chart_picture(page, NETWORK)
    chart_picture(page, BOUNDARY, unlike=boundary)           # redrawn as it learns
    chart_picture(page, NETWORK, unlike=neurons)
    assert _state(page) == EN["state.running"], "the run ended before its pictures changed"
    page.locator(BOUNDARY).first.scroll_into_view_if_needed()
    page.screenshot(path=str(tmp_path / "insight-live.png"))

    page.wait_for_function(STATE_JS, arg=EN["state.finished"], timeout=TIMEOUT_MS)
    wait_idle(page)
    last = chart_picture(page, BOUNDARY)
    slider = page.locator("[data-testid='stSlider']").filter(
        has_text=EN["insight.step"]).get_by_role("slider")
    newest = slider.get_attribute("aria-valuetext")
    act_and_wait(page, lambda: slider.press("Home"), what="step slider to its start")
    assert slider.get_attribute("aria-valuetext") != newest
    chart_picture(page, BOUNDARY, unlike=last)               # an earlier boundary
    page.screenshot(path=str(tmp_path / "insight-replay.png"))
