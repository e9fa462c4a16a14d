"""Issue 16 on the Train page: the device choice "Cluster" (processes on this machine or a
hosts list with the exact join commands), a 2-process cluster run started from the page,
its cluster line in the live panel, and Stop ending every worker."""

from __future__ import annotations

import json

import pytest

from tests.app.apptest_helpers import assert_clean, open_page
from tests.unit.fixtures_train import wait_until
from tfcore.rundir import RunStore
from tfcore.training import jobs
from tfcore.workspace import default_workspace
from ui.common.i18n import catalog

EN = catalog("en")
pytestmark = pytest.mark.slow
WAIT = 300


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_train_page_offers_a_cluster_and_explains_it(lang: str) -> None:
    text = catalog(lang)
    at = open_page("app_pages/train.py", lang)
    device = at.radio(key="train.device")
    assert text["train.device.cluster"] in device.options
    if lang != "en":            # AppTest re-formats other radios in English: en drives it
        return
    device.set_value("cluster").run()
    assert_clean(at, lang)
    captions = [c.value for c in at.caption]
    assert text["cluster.shard"].format(policy="DATA", batch=50, per_worker=25) in captions
    assert text["train.replicas"].format(replicas=2, batch=50, per_replica=25) in captions
    at.radio(key="train.cluster.mode").set_value("hosts").run()
    at.text_area(key="train.cluster.hosts").input("10.0.0.1:2222\nnot-an-address").run()
    assert_clean(at, lang)
    assert text["cluster.err.host"].format(host="not-an-address") in [e.value for e in at.error]
    at.text_area(key="train.cluster.hosts").input("10.0.0.1:2222\n10.0.0.2:2222\n"
                                                  "10.0.0.3:2222").run()
    assert not at.error
    code = "\n".join(c.value for c in at.code)
    assert "python -m tfcore worker --join cluster.json --index 1" in code
    assert "python -m tfcore worker --join cluster.json --index 2" in code


def test_train_page_starts_a_two_process_cluster_and_stop_ends_every_worker() -> None:
    at = open_page("app_pages/train.py", "en")
    at.number_input(key="train.epochs").set_value(300)
    at.radio(key="train.device").set_value("cluster").run()
    at.button(key="train.start").click().run()
    assert_clean(at, "en")
    root = default_workspace().runs
    store = RunStore(root)
    run_id = at.session_state["train.run_id"]
    try:
        request = json.loads((root / run_id / "run.json").read_text())
        assert request["device"] == {"kind": "cluster"}
        assert request["cluster"]["workers"] == 2 and request["cluster"]["hosts"] == []
        wait_until(lambda: jobs.reconcile(root) and store.get(run_id).status.step >= 2,
                   timeout=WAIT)
        at.run()
        assert_clean(at, "en")
        captions = [c.value for c in at.caption]
        assert any(c.startswith("Cluster: 2 workers (127") for c in captions), "\n".join(captions)
        assert EN["train.replicas"].format(replicas=2, batch=50, per_replica=25) in captions
        pids = json.loads((root / run_id / "cluster" / "pids.json").read_text())["pids"]
        at.button(key="train.stop").click().run()
        assert jobs.wait_for(root, run_id, timeout=WAIT) == "stopped"

        def every_worker_ended() -> bool:
            jobs.reconcile(root)
            return not any(jobs.pid_alive(pid) for pid in pids.values())

        wait_until(every_worker_ended, timeout=60)
        stopped_at = store.get(run_id).status.step
        assert stopped_at == max(jobs.checkpoint_steps(store.get(run_id).paths))
    finally:                        # never leave a 300-epoch cluster training
        if store.get(run_id).status.state in ("queued", "running", "stopping"):
            jobs.stop_run(root, run_id)
            jobs.wait_for(root, run_id, timeout=WAIT)
    at.run()
    assert not at.button(key="train.resume").disabled   # Resume: as a local run (the
    # restart path it takes is the one tests/unit/test_cluster_runs.py kills a worker for)
