"""The runs page in a real browser: open a run, see its checkpoints, restore one and see
the evaluation (the same test metrics the run reported)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.browser.conftest import wait_for_app
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
    wait_for_app(page)
    page.get_by_text(EN["runs.title"], exact=True).first.wait_for()
    search = page.get_by_label(EN["runs.filter.text"])
    search.fill(NAME)
    search.press("Enter")
    wait_for_app(page)
    # the only run left is ours: the detail shows it and its checkpoints
    tabs = page.locator("[data-testid='stTabs']").first
    tabs.get_by_role("tab", name=EN["runs.tab.ckpts"]).click()
    folder = str(default_workspace().runs / run_id / "ckpt")
    page.get_by_text(EN["runs.ckpt.count"].format(count=2, folder=folder)).first.wait_for()
    visible = page.locator("[role='tabpanel']:visible").first
    visible.locator("[data-testid='stDataFrame']").first.wait_for()  # the checkpoints table

    tabs.get_by_role("tab", name=EN["runs.tab.restore"]).click()
    panel = page.locator("[role='tabpanel']:visible").first
    # the checkpoint picker defaults to the latest checkpoint, ckpt-8
    panel.get_by_role("button", name=EN["runs.restore.btn"]).click()
    wait_for_app(page)
    heading = EN["runs.restore.result"].format(ckpt="ckpt-8", step=8)
    page.get_by_text(heading).first.wait_for()
    reported = read_json(default_workspace().runs / run_id / "status.json")["test_metrics"]
    for name, value in reported.items():
        card = page.locator("[data-testid='stMetric']").filter(has_text=name).first
        card.wait_for()
        assert f"{value:.4f}" in card.inner_text()
    page.screenshot(path=str(tmp_path / "runs-restore.png"), full_page=True)
