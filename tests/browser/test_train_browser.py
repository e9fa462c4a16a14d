"""The Train page in a real browser: start a run, watch the curve gain points, press
Stop, see the state change and the checkpoint it left."""

from __future__ import annotations

import re
from pathlib import Path

from tests.browser.conftest import (
    TIMEOUT_MS,
    act_and_wait,
    click_and_wait,
    fill_and_wait,
    wait_charts_drawn,
    wait_idle,
)
from ui.common.i18n import catalog

EN = catalog("en")
# the live panel's caption "{n} logged training steps (...)": the text after the number
POINTS_TAIL = EN["train.points"].split("{n}", 1)[1]
TRAINING_S = 300_000  # a worker on a busy machine: TensorFlow's import, then the steps

LOGGED_JS = """([tail, more]) => {
  for (const el of document.querySelectorAll("[data-testid='stCaptionContainer']")) {
    const text = el.innerText.trim();
    const match = text.match(/^(\\d[\\d,]*)/);
    if (match && text.slice(match[1].length) === tail) {
      const n = parseInt(match[1].replace(/,/g, ''), 10);
      return n > more ? n : null;
    }
  }
  return null;
}"""


def wait_logged(page, more_than: int) -> int:
    """Wait until the live panel reports more than ``more_than`` logged steps; return it."""
    handle = page.wait_for_function(LOGGED_JS, arg=[POINTS_TAIL, more_than],
                                    timeout=TRAINING_S)
    return int(handle.json_value())


def test_start_watch_stop(server: str, page, tmp_path: Path) -> None:
    page.goto(f"{server}/train?lang=en")
    wait_idle(page)
    page.get_by_text(EN["train.title"], exact=True).first.wait_for()
    # exact: "Validate every N epochs" also contains the word
    epochs = page.get_by_label(EN["train.epochs"], exact=True)
    fill_and_wait(page, epochs, 300)

    stop = page.get_by_role("button", name=EN["train.stop"])
    click_and_wait(page, page.get_by_role("button", name=EN["train.start"]).first,
                   expect=page.get_by_role("button", name=EN["train.stop"], disabled=False))
    first = wait_logged(page, 0)
    assert wait_charts_drawn(page) >= 1
    assert wait_logged(page, first + 5) > first + 5    # the curve keeps gaining points
    page.screenshot(path=str(tmp_path / "train-live.png"), full_page=True)

    # The panel redraws every second, so do not wait for a quiet page before clicking;
    # the click counts once Stop is disabled (a stop was requested). Click only while
    # it is enabled, so a retry after a slow (not lost) click does nothing.
    act_and_wait(page, lambda: stop.click() if stop.is_enabled() else None,
                 page.get_by_role("button", name=EN["train.stop"], disabled=True),
                 rerun=False, idle_first=False, what="click on Stop")
    page.get_by_text(EN["state.stopped"], exact=True).first.wait_for(timeout=TRAINING_S)
    wait_idle(page)
    page.get_by_text(re.compile(r"^Checkpoints: ckpt-\d+")).first.wait_for(timeout=TIMEOUT_MS)
    resume = page.get_by_role("button", name=EN["train.resume"])
    resume.wait_for()
    assert resume.is_enabled() and not stop.is_enabled()
    page.screenshot(path=str(tmp_path / "train-stopped.png"), full_page=True)
