"""The job manager's queue without training: a busy slot queues new runs with their
position; stopping a queued run; a vanished worker is marked interrupted."""

from __future__ import annotations

import subprocess
import sys

from tests.unit.fixtures_train import end_run, m1_request
from tfcore.rundir.store import RUNNING, RunStore, RunWriter
from tfcore.training import jobs


def test_queue_positions_stop_queued_and_reconcile(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("TFLAB_MAX_WORKERS", "1")
    # a stand-in worker holding the only slot (its command line names tfcore.training.worker)
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)",
                                "tfcore.training.worker"])
    try:
        busy = RunWriter.create(tmp_path, m1_request(), run_id="busy")
        busy.set_status(state=RUNNING, pid=sleeper.pid)
        first = jobs.start_run(tmp_path, m1_request(steps=10))
        second = jobs.start_run(tmp_path, m1_request(steps=10))
        store = RunStore(tmp_path)
        assert store.get(first).status.state == "queued"
        assert store.get(first).status.extra["queue_position"] == 1
        assert store.get(second).status.extra["queue_position"] == 2
        assert jobs.stop_run(tmp_path, first) == "stopped"
        report = jobs.reconcile(tmp_path)
        assert report.running == ("busy",) and report.queued == (second,)
        assert store.get(second).status.extra["queue_position"] == 1
        assert jobs.stop_run(tmp_path, second) == "stopped"
    finally:
        sleeper.kill()
        sleeper.wait()
    report = jobs.reconcile(tmp_path)
    assert report.interrupted == ("busy",) and report.started == ()
    assert RunStore(tmp_path).get("busy").status.state == "interrupted"
    assert jobs.resume_run(tmp_path, first) == first     # stopped -> queued -> started
    assert RunStore(tmp_path).get(first).status.state in ("running", "finished", "failed")
    assert end_run(tmp_path, first) in ("interrupted", "finished")
