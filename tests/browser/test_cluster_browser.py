"""Issue 16 in a real browser: the Train page starts a 2-process MultiWorkerMirroredStrategy
cluster run, the live chart keeps gaining points, the cluster line shows, Stop ends it."""

from __future__ import annotations

from pathlib import Path

from tests.browser.conftest import act_and_wait, click_and_wait, fill_and_wait, wait_idle
from tests.browser.test_train_browser import TRAINING_S, wait_logged
from ui.common.i18n import catalog

EN = catalog("en")


def test_page_starts_a_two_process_cluster_and_the_live_chart_advances(
        server: str, page, tmp_path: Path) -> None:
    page.goto(f"{server}/train?lang=en")
    wait_idle(page)
    page.get_by_text(EN["train.title"], exact=True).first.wait_for()
    fill_and_wait(page, page.get_by_label(EN["train.epochs"], exact=True), 300)
    shard = EN["cluster.shard"].split("{policy}", 1)[0]
    click_and_wait(page, page.get_by_text(EN["train.device.cluster"], exact=True).first,
                   expect=page.get_by_text(shard).first)
    stop = page.get_by_role("button", name=EN["train.stop"])
    click_and_wait(page, page.get_by_role("button", name=EN["train.start"]).first,
                   expect=page.get_by_role("button", name=EN["train.stop"], disabled=False))
    first = wait_logged(page, 0)
    assert wait_logged(page, first + 5) > first + 5        # the live chart advances
    page.get_by_text("Cluster: 2 workers").first.wait_for()
    page.get_by_text(EN["train.replicas"].format(replicas=2, batch=50, per_replica=25)
                     ).first.wait_for()
    page.screenshot(path=str(tmp_path / "cluster-live.png"), full_page=True)
    act_and_wait(page, lambda: stop.click() if stop.is_enabled() else None,
                 page.get_by_role("button", name=EN["train.stop"], disabled=True),
                 rerun=False, idle_first=False, what="click on Stop")
    page.get_by_text(EN["state.stopped"], exact=True).first.wait_for(timeout=TRAINING_S)
