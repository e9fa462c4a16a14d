"""Foundations in a real browser: moving a slider in the gradient lab redraws the plot."""

from __future__ import annotations

from pathlib import Path

from tests.browser.conftest import wait_for_app
from ui.common.i18n import catalog

EN = catalog("en")


def _chart_state(chart) -> tuple[bytes, str]:
    """The chart's pixels plus its SVG markup (empty when vega draws on a canvas)."""
    svg = chart.locator("svg").first
    markup = svg.inner_html() if chart.locator("svg").count() else ""
    return chart.screenshot(), markup


def test_gradient_lab_slider_moves_the_tangent(server: str, page, tmp_path: Path) -> None:
    page.goto(f"{server}/tensors?lang=en")
    wait_for_app(page)
    page.get_by_role("tab", name=EN["foundations.tab.tape"]).click()
    select = page.locator("[data-testid='stSelectbox']:visible").filter(
        has_text=EN["foundations.tape.expression"]).first
    select.click()
    page.get_by_role("option", name=EN["foundations.expr.square"]).click()
    wait_for_app(page)
    caption_at_3 = "Tangent at x = 3"
    page.get_by_text(caption_at_3).first.wait_for()
    chart = page.locator("[data-testid='stVegaLiteChart']:visible").first
    chart.wait_for()
    page.wait_for_timeout(800)           # let vega finish drawing
    before = _chart_state(chart)

    label = EN["foundations.tape.variable"].format(name="x")
    slider = page.locator(f"[data-testid='stSlider'] input[type='range'][aria-label='{label}']")
    assert slider.input_value() == "3"
    slider.focus()
    for _ in range(10):
        slider.press("ArrowLeft")
    page.get_by_text("Tangent at x = 2:").first.wait_for()
    wait_for_app(page)
    chart = page.locator("[data-testid='stVegaLiteChart']:visible").first
    page.wait_for_timeout(800)
    after = _chart_state(chart)
    assert abs(float(slider.input_value()) - 2.0) < 1e-6
    assert before[0] != after[0], "the plot's pixels changed"
    assert before[1] != after[1] or not before[1], "the plot's SVG changed"
    (tmp_path / "after.png").write_bytes(after[0])
