"""Foundations in a real browser: moving a slider in the gradient lab redraws the plot."""

from __future__ import annotations

from pathlib import Path

from tests.browser.conftest import (
    act_and_wait,
    chart_picture,
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
