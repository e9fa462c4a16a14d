"""The Train page under AppTest: opens clean in both languages, starts a real run, shows
its state, and at the end its test metrics and confusion matrix."""

from __future__ import annotations

import time

import pytest

from tests.app.apptest_helpers import assert_clean, open_page
from tfcore.rundir.store import RunStore
from tfcore.training import jobs
from tfcore.workspace import default_workspace
from ui.common.i18n import catalog


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_train_page_opens_clean(lang: str) -> None:
    at = open_page("app_pages/train.py", lang)
    assert_clean(at, lang)
    assert at.title[0].value == catalog(lang)["train.title"]
    assert at.button(key="train.start").label == catalog(lang)["train.start"]
    # defaults: MLP preset, digits28, CPU -> one replica, global batch 50
    captions = [c.value for c in at.caption]
    expected = catalog(lang)["train.replicas"].format(replicas=1, batch=50, per_replica=50)
    assert expected in captions, captions


def test_train_page_starts_a_run_and_shows_its_state() -> None:
    at = open_page("app_pages/train.py", "en")
    at.number_input(key="train.epochs").set_value(1)
    at.button(key="train.start").click().run()
    assert_clean(at, "en")
    runs_root = default_workspace().runs
    run_id = at.session_state["train.run_id"]
    assert run_id in RunStore(runs_root).run_ids()
    states = {m.label: m.value for m in at.metric}
    assert states["State"] in ("queued", "running", "finished")
    assert jobs.wait_for(runs_root, run_id, timeout=400) == "finished"
    at.run()
    assert_clean(at, "en")
    states = {m.label: m.value for m in at.metric}
    assert states["State"] == "finished"
    assert float(states["Test sparse_categorical_accuracy"]) > 0.5
    assert any(c.value.startswith("Checkpoints: ckpt-") for c in at.caption)
    charts = at.get("arrow_vega_lite_chart") or at.get("vega_lite_chart")
    assert len(charts) >= 3        # loss, accuracy, confusion matrix


def test_stop_and_resume_buttons_drive_the_run() -> None:
    at = open_page("app_pages/train.py", "en")
    at.number_input(key="train.epochs").set_value(300)
    at.button(key="train.start").click().run()
    runs_root = default_workspace().runs
    store = RunStore(runs_root)
    run_id = at.session_state["train.run_id"]
    deadline = time.time() + 300
    while store.get(run_id).status.step < 1 and time.time() < deadline:
        time.sleep(0.5)
    at.run()
    assert at.button(key="train.resume").disabled
    at.button(key="train.stop").click().run()
    assert_clean(at, "en")
    assert jobs.wait_for(runs_root, run_id, timeout=300) == "stopped"
    at.run()
    assert {m.label: m.value for m in at.metric}["State"] == "stopped"
    assert at.button(key="train.stop").disabled and not at.button(key="train.resume").disabled
    at.button(key="train.resume").click().run()
    assert store.get(run_id).status.state in ("queued", "running")
    assert store.get(run_id).status.extra["resumes"] == 1
    jobs.stop_run(runs_root, run_id)
    assert jobs.wait_for(runs_root, run_id, timeout=300) == "stopped"
