"""The weights lab in a real browser: histogram, heatmap and filter grid for the CNN preset."""

from __future__ import annotations

from pathlib import Path

from tests.browser.conftest import (
    choose_option,
    click_and_wait,
    select_tab,
    wait_charts_drawn,
    wait_idle,
)
from tfcore.model.presets import preset_title
from ui.common.i18n import catalog

EN = catalog("en")
CHART = "[data-testid='stVegaLiteChart']"


def test_cnn_histogram_heatmap_and_filters_render(server: str, page, tmp_path: Path) -> None:
    page.goto(f"{server}/?lang=en")  # through the router, then the menu, as a person would
    wait_idle(page)
    sidebar = page.locator("[data-testid='stSidebar']")
    sidebar.get_by_text(EN["nav.section.models"]).first.wait_for()
    click_and_wait(page, sidebar.get_by_text(EN["nav.weights"], exact=True).first,
                   EN["weights.intro"])
    choose_option(page, EN["picker.preset"], preset_title("cnn")["en"],
                  expect="3,274,634")  # the CNN's parameter count (M4)
    filters_tab = page.get_by_role("tab", name=EN["weights.inspect.filters"], exact=True).first
    choose_option(page, EN["weights.inspect.variable"], "conv1/kernel", expect=filters_tab,
                  exact=False)   # the option reads "conv1/kernel  (5, 5, 1, 32)"

    tabs = page.locator("[data-testid='stTabs']").first
    assert wait_charts_drawn(page, tabs) >= 1  # histogram of conv1/kernel (5, 5, 1, 32)
    filters_note = EN["weights.inspect.filters_note"].format(shown=32, total=32)
    filters = select_tab(page, EN["weights.inspect.filters"],
                         expect=page.get_by_text(filters_note).first)
    assert wait_charts_drawn(page, filters) >= 1

    heatmap_tab = page.get_by_role("tab", name=EN["weights.inspect.heatmap"], exact=True).first
    choose_option(page, EN["weights.inspect.variable"], "dense/kernel", expect=heatmap_tab,
                  exact=False)
    assert page.get_by_text(filters_note).count() == 0   # a 2-D kernel has no filters
    reduced = EN["weights.inspect.reduced"].format(rows=49, cols=16)
    heatmap = select_tab(page, EN["weights.inspect.heatmap"],
                         expect=page.get_by_text(reduced).first)
    assert wait_charts_drawn(page, heatmap) >= 1
    box = heatmap.locator(f"{CHART} canvas, {CHART} svg.marks").first.bounding_box()
    assert box and box["width"] > 100 and box["height"] > 100
    page.screenshot(path=str(tmp_path / "weights-cnn.png"), full_page=True)
