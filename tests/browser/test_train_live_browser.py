"""The Train page a teacher can trust, in a real browser: a paced run draws points, stops
and resumes with its phases shown; the accuracy chart's y axis covers the data (0 to 1);
the form survives a page switch and opens from a link; a reload attaches to the running
run. Every wait is for a state (a script run finished, an element shown), never a sleep."""

from __future__ import annotations

import re
from pathlib import Path

from tests.browser.conftest import (
    CHART,
    TIMEOUT_MS,
    click_and_wait,
    click_button,
    fill_and_wait,
    settle,
    wait_charts_drawn,
    wait_idle,
)
from tfcore.model import preset_title
from ui.common.i18n import catalog

EN = catalog("en")
POINTS = re.compile(r"^(\d+) logged training steps")
PHASES = [EN[k].split("{")[0] for k in EN if k.startswith("train.phase.")]

# Reads the logged-step count from the live panel's caption (0 when none is shown).
LOGGED_JS = """() => {
  for (const el of document.querySelectorAll("[data-testid='stCaptionContainer']")) {
    const m = el.innerText.trim().match(/^(\\d+) logged training steps/);
    if (m) return parseInt(m[1]);
  }
  return 0;
}"""

# The y scale of the n-th live chart as Vega describes it (the axis' aria-label names its
# domain) and every y value its lines draw (from Vega's scenegraph items).
Y_AXIS_JS = """n => {
  const el = document.querySelectorAll("[data-testid='stVegaLiteChart']")[n];
  if (!el) return null;
  const axis = [...el.querySelectorAll('g.role-axis')]
    .map(g => g.getAttribute('aria-label') || '').find(t => t.startsWith('Y-axis'));
  const values = [...el.querySelectorAll('g.mark-line path')]
    .flatMap(p => (p.__data__ && p.__data__.mark ? p.__data__.mark.items : []))
    .map(i => i.datum && i.datum.value).filter(v => typeof v === 'number');
  return axis && values.length ? {axis, values} : null;
}"""

# Collects every phase message the live panel shows, however briefly.
WATCH_PHASES_JS = """phases => {
  window.__phasesSeen = new Set();
  const look = () => document.querySelectorAll("[data-testid='stAlert']").forEach(a => {
    phases.forEach(p => { if (a.innerText.includes(p)) window.__phasesSeen.add(p); });
  });
  new MutationObserver(look).observe(document.body, {subtree: true, childList: true,
                                                     characterData: true});
  look();
}"""


def _logged(page) -> int:
    return int(page.evaluate(LOGGED_JS))


def _wait_logged_above(page, count: int) -> int:
    page.wait_for_function(f"() => ({LOGGED_JS})() > {count}", timeout=TIMEOUT_MS)
    return _logged(page)


def _y_scale(page, n: int) -> tuple[float, float, list[float]]:
    found = page.wait_for_function(Y_AXIS_JS, arg=n, timeout=TIMEOUT_MS).json_value()
    match = re.search(r"values from (-?[\d.,]+) to (-?[\d.,]+)", found["axis"])
    assert match, found["axis"]
    low, high = (float(v.replace(",", "")) for v in match.groups())
    return low, high, found["values"]


def _number(page, label: str):
    return page.get_by_label(label, exact=True)   # exact: labels share words ("epochs")


def _selectbox_text(page, label: str) -> str:
    """The label and the shown choice of a selectbox (the choice may sit in an input)."""
    box = page.locator("[data-testid='stSelectbox']").filter(has_text=label).first
    inputs = box.locator("input")
    values = [inputs.nth(i).input_value() for i in range(inputs.count())]
    return "\n".join([box.inner_text(), *values]).strip()


# Whether the selectbox labelled arg[0] shows arg[1] (in its text or an input's value).
SHOWS_JS = """([label, text]) => [...document.querySelectorAll("[data-testid='stSelectbox']")]
  .filter(box => box.innerText.includes(label))
  .some(box => box.innerText.includes(text)
        || [...box.querySelectorAll('input')].some(i => (i.value || '').includes(text)))"""


def _assert_shows(page, label: str, text: str) -> None:
    """Wait until the selectbox ``label`` shows ``text`` (it may redraw once more after the
    script finished); fail with what it shows instead."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function(SHOWS_JS, arg=[label, text], timeout=30_000)
    except PlaywrightTimeout:
        raise AssertionError(f"{label!r} shows {_selectbox_text(page, label)!r}, "
                             f"not {text!r}") from None


def test_paced_run_starts_stops_and_resumes_with_phases(server: str, page,
                                                        tmp_path: Path) -> None:
    page.goto(f"{server}/train?lang=en&epochs=20&pace=20")
    settle(page, EN["train.title"])
    _assert_shows(page, EN["train.pace"], EN["train.pace.rate"].format(n=20))
    click_button(page, EN["train.start"])
    first = _wait_logged_above(page, 0)
    wait_charts_drawn(page, at_least=2)
    _wait_logged_above(page, first + 5)                    # the curves keep gaining points

    low, high, values = _y_scale(page, 1)                  # sparse_categorical_accuracy
    assert (low, high) == (0.0, 1.0)
    assert 0.0 <= min(values) and max(values) <= 1.0
    low, high, values = _y_scale(page, 0)                  # loss: the domain fits the data
    assert low <= min(values) and high >= max(values)
    assert high - low <= 1.25 * (max(values) - min(values)) + 0.2
    page.locator(CHART).first.scroll_into_view_if_needed()
    page.screenshot(path=str(tmp_path / "train-live.png"))

    click_button(page, EN["train.stop"], EN["state.stopped"], idle_first=False)
    page.get_by_text(re.compile(r"^Checkpoints: ckpt-\d+")).first.wait_for()
    stopped = _logged(page)
    page.evaluate(WATCH_PHASES_JS, PHASES)
    click_button(page, EN["train.resume"], idle_first=False)
    _wait_logged_above(page, stopped)                      # new points after the resume
    seen = page.evaluate("() => [...window.__phasesSeen]")
    assert seen, "no phase (starting, restoring ckpt-N, ...) was shown before training"
    click_button(page, EN["train.stop"], EN["state.stopped"], idle_first=False)


def test_presenter_mode_draws_large_charts(server: str, page, tmp_path: Path) -> None:
    page.goto(f"{server}/train?lang=en&present=1")
    settle(page, EN["train.watch"])                        # the run picker, below the panel
    wait_charts_drawn(page, at_least=2)                    # the last run's curves
    assert page.get_by_text(EN["train.smoothing"], exact=True).count() == 0   # hidden
    chart = page.locator(CHART).first
    chart.scroll_into_view_if_needed()
    box = chart.bounding_box()
    assert box["height"] >= 500 and box["width"] >= 900    # one wide, tall chart per row
    page.screenshot(path=str(tmp_path / "train-presenter.png"))


def test_form_survives_a_page_switch_and_a_reload_attaches_to_the_run(server: str,
                                                                       page) -> None:
    page.goto(f"{server}/train?lang=en&preset=cnn&epochs=7&optimizer=sgd&pace=5")
    settle(page, EN["train.title"])                        # the link filled the form
    cnn = preset_title("cnn")["en"]
    _assert_shows(page, EN["picker.preset"], cnn)
    assert _number(page, EN["train.epochs"]).input_value() == "7"
    _assert_shows(page, EN["train.optimizer"], EN["train.opt.sgd"])
    fill_and_wait(page, _number(page, EN["train.batch_size"]), 32)

    nav = page.locator("[data-testid='stSidebarNav']")
    heading = page.get_by_role("heading", name=EN["train.title"], exact=True)  # not the menu's
    click_and_wait(page, nav.get_by_role("link", name=EN["nav.home"], exact=True),
                   page.get_by_role("heading", name=EN["home.recent"], exact=True),
                   confirm=True)
    click_and_wait(page, nav.get_by_role("link", name=EN["nav.train"], exact=True), heading,
                   confirm=True)
    _assert_shows(page, EN["picker.preset"], cnn)
    assert _number(page, EN["train.epochs"]).input_value() == "7"
    assert _number(page, EN["train.batch_size"]).input_value() == "32"
    _assert_shows(page, EN["train.optimizer"], EN["train.opt.sgd"])
    _assert_shows(page, EN["train.pace"], EN["train.pace.rate"].format(n=5))

    click_button(page, EN["train.start"])
    _wait_logged_above(page, 0)
    _assert_shows(page, EN["train.watch"], "cnn · ")          # the run just started
    watched = _selectbox_text(page, EN["train.watch"]).splitlines()[-1]
    created = watched.split(" · ")[-1]
    page.reload()                                          # a new session
    settle(page, EN["train.title"])
    _assert_shows(page, EN["train.watch"], "cnn · ")          # attached to the same run
    _assert_shows(page, EN["train.watch"], created)
    assert _number(page, EN["train.batch_size"]).input_value() == "32"   # from the URL
    click_button(page, EN["train.stop"], EN["state.stopped"], idle_first=False)
