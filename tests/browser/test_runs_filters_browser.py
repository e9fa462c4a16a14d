"""The Runs page's Filters tab in a real browser: open a CNN run, move the checkpoint slider
and see the filter chart redraw with the other checkpoint's filters; nothing scrolls
sideways at 1280x800."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.browser.conftest import act_and_wait, chart_picture, fill_and_wait, select_tab, \
    wait_idle
from tests.browser.test_no_cutoff_browser import CUT_JS
from tests.unit.fixtures_runs import make_run, tiny_cnn_spec
from tfcore.workspace import default_workspace
from ui.common.i18n import catalog

EN = catalog("en")
NAME = "browser_filters_probe"
# The first chart of the tab that is showing: the filter grid (the runs comparison above the
# run's tabs is not in a tab panel).
FILTERS_CHART = "[role='tabpanel'] [data-testid='stVegaLiteChart']"


@pytest.fixture(scope="module")
def run_id(session_workspace: Path) -> str:
    return make_run(default_workspace().ensure().runs, name=NAME, steps=8, ckpt_every=4,
                    spec=tiny_cnn_spec("browser_cnn"))


def test_checkpoint_slider_redraws_the_filters(server: str, page, run_id: str,
                                               tmp_path: Path) -> None:
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{server}/runs?lang=en")
    wait_idle(page)
    page.get_by_text(EN["runs.title"], exact=True).first.wait_for()
    fill_and_wait(page, page.get_by_label(EN["runs.filter.text"]), NAME,
                  expect=page.get_by_role("tab", name=EN["runs.tab.filters"], exact=True).first)
    latest = EN["runs.ckpt.option_latest"].format(name="ckpt-8", number=8)
    panel = select_tab(page, EN["runs.tab.filters"], expect=latest)
    before = chart_picture(page, FILTERS_CHART)      # the filters at ckpt-8 have drawn

    slider = panel.locator("[data-testid='stSlider'] input[type='range']"
                           f"[aria-label='{EN['runs.ckpt.pick']}']")
    assert slider.input_value() == "1"               # the second of two checkpoints

    def one_step_left() -> None:
        slider.focus()
        slider.press("ArrowLeft")

    first = EN["runs.ckpt.option"].format(name="ckpt-4", number=4)
    act_and_wait(page, one_step_left, panel.get_by_text(first, exact=True),
                 what="moving the checkpoint slider")
    assert slider.input_value() == "0"
    after = chart_picture(page, FILTERS_CHART, unlike=before)   # waits for the redraw
    assert after != before, "the filter chart's picture changed with the checkpoint"
    assert page.evaluate(CUT_JS) == []
    page.screenshot(path=str(tmp_path / "filters-ckpt-4.png"), full_page=True)
