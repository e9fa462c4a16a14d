"""The Eager vs graph page in a real browser: a tiny timing draws its chart."""

from __future__ import annotations

from pathlib import Path

from tests.browser.conftest import (
    click_button,
    fill_and_wait,
    wait_charts_drawn,
    wait_idle,
)
from ui.common.i18n import catalog

EN = catalog("en")
CHART = "[data-testid='stVegaLiteChart']"


def test_tiny_timing_shows_the_chart(server: str, page, tmp_path: Path) -> None:
    page.goto(f"{server}/timing?lang=en")
    wait_idle(page)
    page.get_by_text(EN["timing.title"], exact=True).first.wait_for()
    fill_and_wait(page, page.get_by_label(EN["timing.batch"], exact=True).first, 4)
    fill_and_wait(page, page.get_by_label(EN["timing.steps"], exact=True).first, 2)
    # a timing runs in a worker process that imports TensorFlow: minutes on a busy machine
    click_button(page, EN["timing.run"], expect=EN["timing.explain.title"], timeout=300_000)
    assert wait_charts_drawn(page, at_least=2) >= 2
    shot = tmp_path / "timing.png"
    page.locator(CHART).first.screenshot(path=str(shot))
    assert shot.stat().st_size > 3_000
