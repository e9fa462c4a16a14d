"""Foundations in a real browser: moving a slider in the gradient lab redraws the plot."""

from __future__ import annotations

import re
from pathlib import Path

from tests.browser.conftest import (
    act_and_wait,
    chart_picture,
    click_button,
    choose_option,
    select_tab,
    wait_idle,
)
from ui.common.i18n import catalog

EN = catalog("en")
CHART = "[data-testid='stVegaLiteChart']"


def test_gradient_lab_slider_moves_the_tangent(server: str, page, tmp_path: Path) -> None:
    page.goto(f"{server}/tensors?lang=en")
    wait_idle(page)
    panel = select_tab(page, EN["foundations.tab.tape"])
    expression = panel.locator("[data-testid='stSelectbox']").filter(
        has_text=EN["foundations.tape.expression"]).first
    choose_option(page, expression, EN["foundations.expr.square"], expect="Tangent at x = 3")
    before = chart_picture(page, CHART)          # the plot has drawn its marks

    label = EN["foundations.tape.variable"].format(name="x")
    slider = page.locator(f"[data-testid='stSlider'] input[type='range'][aria-label='{label}']")
    assert slider.input_value() == "3"

    def ten_steps_left() -> None:
        slider.focus()
        for _ in range(10):
            slider.press("ArrowLeft")

    act_and_wait(page, ten_steps_left, "Tangent at x = 2:", what="moving the slider")
    assert abs(float(slider.input_value()) - 2.0) < 1e-6
    after = chart_picture(page, CHART, unlike=before)  # waits for the plot to change
    assert after != before, "the plot's pixels (or SVG) changed"
    page.locator(f"{CHART}:visible").first.screenshot(path=str(tmp_path / "after.png"))



def test_image_folder_pipeline_runs_from_the_page(server: str, page, tmp_path: Path) -> None:
    """tf.data pipelines -> Image files from class folders -> Run the pipeline (the digits
    sample, defaults): the generated code, the first batch's shape and its eight images."""
    page.goto(f"{server}/pipeline?lang=en")
    wait_idle(page)
    shape = page.locator("[data-testid='stMetric']").filter(
        has_text=EN["foundations.folders.shape"])
    click_button(page, EN["foundations.folders.run"], shape, confirm=True)
    assert "[8, 28, 28, 1]" in shape.first.inner_text()
    code = page.locator("[data-testid='stCode']").filter(has_text="list_files")
    assert "tf.io.decode_image(image, channels=1" in code.first.inner_text()
    # the batch's images are captioned "<label>: <class name>" (the digits above: "<label>")
    images = page.locator("[data-testid='stImageContainer']").filter(
        has_text=re.compile(r"^\d+: \d+$"))
    images.nth(7).wait_for()
    assert images.count() == 8
    shape.first.screenshot(path=str(tmp_path / "shape.png"))
