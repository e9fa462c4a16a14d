"""The Train page in a real browser: start a run, watch the curve gain points, press
Stop, see the state change and the checkpoint it left."""

from __future__ import annotations

import re
import time
from pathlib import Path

from tests.browser.conftest import wait_for_app
from ui.common.i18n import catalog

EN = catalog("en")
CHART = "[data-testid='stVegaLiteChart']"
POINTS = re.compile(r"^(\d+) logged training steps")


def _logged(page) -> int:
    """The number of logged steps the live panel reports (0 before the first point)."""
    texts = page.locator("[data-testid='stCaptionContainer']").all_inner_texts()
    for text in texts:
        match = POINTS.match(text.strip())
        if match:
            return int(match.group(1))
    return 0


def _wait(predicate, timeout: float = 240.0) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return
        time.sleep(0.5)
    raise AssertionError("timed out")


def test_start_watch_stop(server: str, page, tmp_path: Path) -> None:
    page.goto(f"{server}/train?lang=en")
    wait_for_app(page)
    page.get_by_text(EN["train.title"], exact=True).first.wait_for()
    epochs = page.locator("[data-testid='stNumberInput']").filter(has_text=EN["train.epochs"])
    epochs.locator("input").first.fill("300")
    epochs.locator("input").first.press("Enter")
    wait_for_app(page)
    page.get_by_role("button", name=EN["train.start"]).click()

    _wait(lambda: _logged(page) > 0)
    first = _logged(page)
    page.locator(f"{CHART} canvas, {CHART} svg.marks").first.wait_for(state="attached")
    _wait(lambda: _logged(page) > first + 5)          # the curve keeps gaining points
    page.screenshot(path=str(tmp_path / "train-live.png"), full_page=True)

    page.get_by_role("button", name=EN["train.stop"]).click()
    page.get_by_text(EN["state.stopped"], exact=True).first.wait_for(timeout=120_000)
    page.get_by_text(re.compile(r"^Checkpoints: ckpt-\d+")).first.wait_for(timeout=60_000)
    page.get_by_role("button", name=EN["train.resume"]).wait_for()
    page.screenshot(path=str(tmp_path / "train-stopped.png"), full_page=True)
