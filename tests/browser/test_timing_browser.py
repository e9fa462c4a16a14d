"""The Eager vs graph page in a real browser: a tiny timing draws its chart."""

from __future__ import annotations

from pathlib import Path

from tests.browser.conftest import wait_for_app
from ui.common.i18n import catalog

EN = catalog("en")


def _set_number(page, label: str, value: int) -> None:
    box = page.get_by_label(label, exact=True).first
    box.fill(str(value))
    box.press("Enter")
    wait_for_app(page)


def test_tiny_timing_shows_the_chart(server: str, page, tmp_path: Path) -> None:
    page.goto(f"{server}/timing?lang=en")
    wait_for_app(page)
    page.get_by_text(EN["timing.title"], exact=True).first.wait_for()
    _set_number(page, EN["timing.batch"], 4)
    _set_number(page, EN["timing.steps"], 2)
    page.get_by_role("button", name=EN["timing.run"]).click()
    chart = page.locator("[data-testid='stVegaLiteChart']").first
    chart.wait_for(timeout=180_000)
    page.get_by_text(EN["timing.explain.title"]).first.wait_for()
    assert page.locator("[data-testid='stVegaLiteChart']").count() >= 2
    shot = tmp_path / "timing.png"
    chart.screenshot(path=str(shot))
    assert shot.stat().st_size > 3_000
