"""The runs page in a real browser: open a run, see its checkpoints, restore one and see
the evaluation (the same test metrics the run reported)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.browser.waits import SELECTBOX_TEXT_JS
from tests.browser.conftest import click_button, fill_and_wait, select_tab, wait_idle
from tests.unit.fixtures_runs import make_run
from tfcore.jsonio import read_json
from tfcore.workspace import default_workspace
from ui.common.i18n import catalog

EN = catalog("en")
NAME = "browser_runs_probe"


@pytest.fixture(scope="module")
def run_id(session_workspace: Path) -> str:
    return make_run(default_workspace().ensure().runs, name=NAME, steps=8, ckpt_every=4)


def test_open_run_see_checkpoints_restore_and_evaluate(server: str, page, run_id: str,
                                                       tmp_path: Path) -> None:
    page.goto(f"{server}/runs?lang=en")
    wait_idle(page)
    page.get_by_text(EN["runs.title"], exact=True).first.wait_for()
    # the only run left is ours: the detail shows it and its checkpoints
    fill_and_wait(page, page.get_by_label(EN["runs.filter.text"]), NAME,
                  expect=page.get_by_role("tab", name=EN["runs.tab.ckpts"], exact=True).first)
    folder = str(default_workspace().runs / run_id / "ckpt")
    panel = select_tab(page, EN["runs.tab.ckpts"],
                       expect=EN["runs.ckpt.count"].format(count=2, folder=folder))
    panel.locator("[data-testid='stDataFrame']").first.wait_for()  # the checkpoints table

    panel = select_tab(page, EN["runs.tab.restore"])
    # the checkpoint picker defaults to the latest checkpoint, ckpt-8
    heading = EN["runs.restore.result"].format(ckpt="ckpt-8", step=8)
    click_button(page, EN["runs.restore.btn"], expect=heading, scope=panel)
    reported = read_json(default_workspace().runs / run_id / "status.json")["test_metrics"]
    assert reported
    for name, value in reported.items():
        card = page.locator("[data-testid='stMetric']").filter(has_text=name).first
        card.wait_for()
        assert f"{value:.4f}" in card.inner_text()
    page.screenshot(path=str(tmp_path / "runs-restore.png"), full_page=True)


STALE_A, STALE_B = "browser_label_alpha", "browser_label_beta"

# The text the Runs page's run picker shows for its choice (it may sit in an input).
RUN_PICKER_JS = SELECTBOX_TEXT_JS


def test_the_run_picker_shows_the_run_it_details_after_a_filter_drops_its_choice(
        server: str, page, run_id: str) -> None:
    """Pick one run, then filter it away: the picker must show the run whose details the
    tabs below show, not the dropped choice (a stale label)."""
    from tests.browser.conftest import TIMEOUT_MS, choose_option
    from tfcore.runs import list_runs

    runs = default_workspace().ensure().runs
    make_run(runs, name=STALE_A, steps=4, ckpt_every=4)
    make_run(runs, name=STALE_B, steps=4, ckpt_every=4)
    labels = {s.name: s for s in list_runs(runs)}
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{server}/runs?lang=en")
    wait_idle(page)
    fill_and_wait(page, page.get_by_label(EN["runs.filter.text"]), "browser_label_",
                  expect=page.get_by_role("tab", name=EN["runs.tab.ckpts"], exact=True).first)
    picker = EN["runs.detail.run"]
    b_id = labels[STALE_B].run_id
    choose_option(page, picker, f"({b_id[-4:]})", exact=False)
    assert STALE_B in page.evaluate(RUN_PICKER_JS, picker)
    fill_and_wait(page, page.get_by_label(EN["runs.filter.text"]), STALE_A,
                  expect=page.get_by_role("tab", name=EN["runs.tab.ckpts"], exact=True).first)
    wait_idle(page)
    page.wait_for_function(f"l => ({RUN_PICKER_JS})(l).includes({STALE_A!r})", arg=picker,
                           timeout=TIMEOUT_MS)
    assert STALE_B not in page.evaluate(RUN_PICKER_JS, picker)
