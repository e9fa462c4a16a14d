"""Presenter mode on a projector (issue 23, item 14): after pressing Train at 1280x800 the
live chart is in view, whole, without scrolling, and it draws the run's points, in English
and Chinese. Every wait is for a state, never a sleep."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.browser.conftest import CHART, TIMEOUT_MS, click_button, settle, wait_charts_drawn
from ui.common.i18n import catalog

VIEWPORT = {"width": 1280, "height": 800}

# The step the status line shows (its "Step" metric), 0 while none.
STEP_JS = """label => {
  for (const m of document.querySelectorAll("[data-testid='stMetric']")) {
    const name = m.querySelector("[data-testid='stMetricLabel']");
    const value = m.querySelector("[data-testid='stMetricValue']");
    if (name && value && name.innerText.trim() === label)
      return parseInt(value.innerText.replace(/[^0-9]/g, '') || '0', 10);
  }
  return 0;
}"""

# Where the first live chart is, against the viewport, and how far anything scrolled.
PLACE_JS = """selector => {
  const chart = document.querySelector(selector);
  const r = chart.getBoundingClientRect();
  const scrolled = [document.scrollingElement, ...document.querySelectorAll('*')]
    .some(el => el && el.scrollTop > 0);
  return {top: r.top, bottom: r.bottom, left: r.left, right: r.right, height: r.height,
          vh: window.innerHeight, vw: window.innerWidth, scrolled};
}"""


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_presenter_live_chart_in_view_after_train(server: str, browser, lang: str,
                                                  tmp_path: Path) -> None:
    text = catalog(lang)
    context = browser.new_context(viewport=VIEWPORT)
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(f"{server}/train?lang={lang}&present=1&pace=5&epochs=2")
        settle(page, page.get_by_role("button", name=text["train.start"], exact=True))
        click_button(page, text["train.start"])
        page.wait_for_function(STEP_JS, arg=text["train.step"], timeout=TIMEOUT_MS)
        wait_charts_drawn(page)
        place = page.evaluate(PLACE_JS, CHART)
        page.screenshot(path=str(tmp_path / f"presenter-train-{lang}.png"))
        assert not place["scrolled"], place
        assert place["height"] >= 300, place                    # a large chart
        assert 0 <= place["top"] and place["bottom"] <= place["vh"], place
        assert 0 <= place["left"] and place["right"] <= place["vw"], place
        click_button(page, text["train.stop"], idle_first=False)
    finally:
        context.close()
