"""The Eager vs graph page in a real browser: a tiny timing (batch 4, 3 steps) draws its
charts, tall, with a ticked scale and whole titles, and a result table that hides no
column, in both languages at 1280x800 and in Chinese at 1920x1080."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.browser.conftest import (
    click_button,
    fill_and_wait,
    wait_charts_drawn,
    wait_idle,
)
from tests.browser.test_no_cutoff_browser import CUT_JS
from ui.common.i18n import catalog

CHART = "[data-testid='stVegaLiteChart']"


# Per chart: its height, its SVG title as drawn (Vega ends a cut title with an ellipsis),
# whether the title's box lies inside the chart's drawing, and each axis's title and labels.
CHART_GEOMETRY_JS = """selector => [...document.querySelectorAll(selector)]
  .filter(el => el.getClientRects().length > 0).map(el => {
    const svg = el.querySelector('svg');
    const title = svg && svg.querySelector('.role-title-text text, .role-title text');
    const box = svg ? svg.getBoundingClientRect() : el.getBoundingClientRect();
    const t = title ? title.getBoundingClientRect() : null;
    const axes = svg ? [...svg.querySelectorAll('g.role-axis')].map(a => ({
      title: [...a.querySelectorAll('.role-axis-title text')].map(n => n.textContent).join(''),
      labels: [...a.querySelectorAll('.role-axis-label text')].map(n => n.textContent)})) : [];
    const bars = svg ? svg.querySelectorAll('g.mark-rect path').length : 0;
    return {height: box.height, title: title ? title.textContent : null, bars,
            inside: t ? t.left >= box.left - 1 && t.right <= box.right + 1 : false,
            titleWidth: t ? t.width : 0, axes};
  })"""


@pytest.mark.parametrize("lang, width, height", [("zh", 1280, 800), ("en", 1280, 800),
                                                ("zh", 1920, 1080)])
def test_timing_charts_are_tall_ticked_with_whole_titles(server: str, page, lang: str,
                                                         width: int, height: int,
                                                         tmp_path: Path) -> None:
    texts = catalog(lang)
    page.set_viewport_size({"width": width, "height": height})
    page.goto(f"{server}/timing?lang={lang}")
    wait_idle(page)
    page.get_by_text(texts["timing.title"], exact=True).first.wait_for()
    fill_and_wait(page, page.get_by_role("spinbutton", name=texts["timing.batch"], exact=True).first, 4)
    fill_and_wait(page, page.get_by_role("spinbutton", name=texts["timing.steps"], exact=True).first, 3)
    click_button(page, texts["timing.run"], expect=texts["timing.explain.title"],
                 timeout=300_000)
    assert wait_charts_drawn(page, at_least=2) >= 2
    shot = tmp_path / "timing.png"                     # a picture, not an empty frame
    page.locator(CHART).first.screenshot(path=str(shot))
    assert shot.stat().st_size > 3_000
    charts = page.evaluate(CHART_GEOMETRY_JS, CHART)
    titles = {c["title"]: c for c in charts}
    for key in ("timing.chart.title", "timing.chart.first_title"):
        chart = titles.get(texts[key])
        assert chart is not None, f"{texts[key]!r} not drawn whole; titles: {list(titles)}"
        assert chart["height"] >= 240 and chart["inside"] and chart["titleWidth"] > 0
        scale = [a for a in chart["axes"]
                 if a["title"] in (texts["timing.chart.step_ms"], texts["timing.chart.ms_log"])]
        assert scale and len(scale[0]["labels"]) >= 3, chart["axes"]   # a ticked ms scale
        assert chart["bars"] >= 4, chart             # bars drawn (a log scale has no 0)
        labels = [label for a in chart["axes"] for label in a["labels"]]
        assert not any(label.endswith("…") for label in labels), labels    # none cut
    # the result's table shows every mode's numbers: its fourteen measures as columns hid
    # 810 px of them at 1280 in Chinese
    assert page.evaluate(CUT_JS) == [], (lang, width)
