"""The weights lab in a real browser: histogram, heatmap and filter grid for the CNN preset."""

from __future__ import annotations

from pathlib import Path

from tests.browser.conftest import wait_for_app
from tfcore.model.presets import preset_title
from ui.common.i18n import catalog

EN = catalog("en")
CHART = "[data-testid='stVegaLiteChart']"


def _choose(page, label: str, option: str, tries: int = 4) -> None:
    """Pick ``option`` in the selectbox labelled ``label`` (a rerun may close the list: retry)."""
    box = page.locator("[data-testid='stSelectbox']").filter(has_text=label).first
    for attempt in range(tries):
        wait_for_app(page)
        box.click()
        choice = page.get_by_role("option", name=option).first
        try:
            choice.wait_for(timeout=15_000)
            choice.click(timeout=15_000)
            break
        except Exception:  # noqa: BLE001 - the list closed under a rerun; open it again
            page.keyboard.press("Escape")
            if attempt == tries - 1:
                raise
    wait_for_app(page)


def _drawn(page, scope) -> int:
    """How many vega charts under ``scope`` have drawn a canvas or an SVG with marks."""
    scope.locator(f"{CHART} canvas, {CHART} svg.marks").first.wait_for(state="attached")
    return scope.locator(f"{CHART} canvas, {CHART} svg.marks").count()


def test_cnn_histogram_heatmap_and_filters_render(server: str, page, tmp_path: Path) -> None:
    page.goto(f"{server}/?lang=en")  # through the router, then the menu, as a person would
    wait_for_app(page)
    sidebar = page.locator("[data-testid='stSidebar']")
    sidebar.get_by_text(EN["nav.section.models"]).first.wait_for()
    sidebar.get_by_text(EN["nav.weights"], exact=True).first.click()
    wait_for_app(page)
    page.get_by_text(EN["weights.intro"]).first.wait_for()
    _choose(page, EN["picker.preset"], preset_title("cnn")["en"])
    page.get_by_text("3,274,634").first.wait_for()  # the CNN's parameter count (M4)
    _choose(page, EN["weights.inspect.variable"], "conv1/kernel")
    page.get_by_role("tab", name=EN["weights.inspect.filters"]).first.wait_for()

    panel = page.locator("[data-testid='stTabs']").first
    assert _drawn(page, panel) >= 1  # histogram of conv1/kernel (5, 5, 1, 32)
    panel.get_by_role("tab", name=EN["weights.inspect.filters"]).click()
    wait_for_app(page)
    filters = page.locator("[role='tabpanel']:visible").first
    assert _drawn(page, filters) >= 1

    filters_note = EN["weights.inspect.filters_note"].format(shown=32, total=32)
    page.get_by_text(filters_note).first.wait_for()
    _choose(page, EN["weights.inspect.variable"], "dense/kernel")
    page.get_by_text(filters_note).first.wait_for(state="detached")  # the rerun finished
    panel = page.locator("[data-testid='stTabs']").first
    panel.get_by_role("tab", name=EN["weights.inspect.heatmap"]).click()
    wait_for_app(page)
    page.get_by_text(EN["weights.inspect.reduced"].format(rows=49, cols=16)).first.wait_for()
    heatmap = page.locator("[role='tabpanel']:visible").first
    assert _drawn(page, heatmap) >= 1
    box = heatmap.locator(f"{CHART} canvas, {CHART} svg.marks").first.bounding_box()
    assert box and box["width"] > 100 and box["height"] > 100
    page.screenshot(path=str(tmp_path / "weights-cnn.png"), full_page=True)
