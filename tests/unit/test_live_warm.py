"""Warm start, its fallbacks and reaping, through real worker processes (issue 12, items
1 and 9): a run handed to a warm worker (which rehearsed a Keras fit run while warming
up) trains exactly like a cold one, a replacement warms up, other device settings start
cold, TFLAB_WARM_WORKER=0 turns it off, and no finished child stays a zombie."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.unit.fixtures_runs import tiny_spec
from tests.unit.fixtures_train import WAIT, end_run, train_records, wait_until
from tfcore.rundir import RunStore
from tfcore.training import jobs
from tfcore.training.pool import POOL

pytestmark = pytest.mark.slow


def _request(**device) -> dict:
    return {"spec": tiny_spec(), "dataset": {"name": "digits8"},
            "training": {"steps": 20, "batch_size": 16, "ckpt_every": 10, "loop": "fit"},
            "device": {"kind": "cpu"} | device}


def _zombie_children() -> list[int]:
    """Pids of this process's children that ended but were never waited for."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[-1].split()
        if fields[0] == "Z" and int(fields[1]) == os.getpid():
            found.append(int(entry.name))
    return found


@pytest.fixture
def pool():
    yield POOL
    jobs.stop_warm()


def test_warm_start_matches_cold_and_leaves_no_zombies(tmp_path: Path, pool, monkeypatch) -> None:
    monkeypatch.setenv("TFLAB_WARM_WORKER", "1")
    assert jobs.prewarm()
    wait_until(jobs.warm_ready)
    first_warm = pool.idle_pids()[0]
    warm_id = jobs.start_run(tmp_path, _request())
    store = RunStore(tmp_path)
    status = store.get(warm_id).status
    assert status.extra["start"] == "warm" and status.pid == first_warm
    assert jobs.wait_for(tmp_path, warm_id, timeout=WAIT) == "finished"
    assert store.get(warm_id).status.extra["phase"] is None
    assert "[warm worker" in store.paths(warm_id).log.read_text()
    replacement = pool.idle_pids()
    assert len(replacement) == 1 and replacement[0] != first_warm      # warming up again

    other_root = tmp_path / "other"                   # its own worker slot: trains alongside
    other_id = jobs.start_run(other_root, _request(logical_devices=2))  # other settings: cold
    assert RunStore(other_root).get(other_id).status.extra["start"] == "cold"

    jobs.stop_warm()                                   # the idle replacement is ended
    assert pool.idle_pids() == [] and not jobs.pid_alive(replacement[0])
    cold_id = jobs.start_run(tmp_path, _request())
    assert store.get(cold_id).status.extra["start"] == "cold"
    assert jobs.wait_for(tmp_path, cold_id, timeout=WAIT) == "finished"
    assert jobs.wait_for(other_root, other_id, timeout=WAIT) == "finished"

    warm, cold = train_records(tmp_path, warm_id), train_records(tmp_path, cold_id)
    assert [r["step"] for r in warm] == [r["step"] for r in cold] == list(range(1, 21))
    assert [r["loss"] for r in warm] == [r["loss"] for r in cold]       # same seed, same numbers

    wait_until(lambda: not jobs.reap() and not jobs._children)          # every child waited for
    assert _zombie_children() == []


def test_warm_start_can_be_turned_off(tmp_path: Path, pool, monkeypatch) -> None:
    monkeypatch.setenv("TFLAB_WARM_WORKER", "0")
    assert not jobs.prewarm()
    assert pool.idle_pids() == []
    monkeypatch.setenv("TFLAB_MAX_WORKERS", "1")
    run_id = jobs.start_run(tmp_path, _request())
    assert RunStore(tmp_path).get(run_id).status.extra["start"] == "cold"
    assert end_run(tmp_path, run_id) in ("interrupted", "finished")
    wait_until(lambda: not jobs.reap() and not jobs._children)
    assert _zombie_children() == []


def test_a_run_handed_over_before_the_warm_up_ends_still_trains(tmp_path: Path, pool,
                                                                  monkeypatch) -> None:
    """Start right after the dashboard armed the pool: the job waits in the warm worker's
    stdin while it still imports TensorFlow; the server has stopped reading its ``ready``
    line by then, and the worker must train the run anyway (it used to exit silently)."""
    monkeypatch.setenv("TFLAB_WARM_WORKER", "1")
    assert jobs.prewarm()
    assert not jobs.warm_ready()                       # still importing TensorFlow
    run_id = jobs.start_run(tmp_path, _request())
    store = RunStore(tmp_path)
    assert store.get(run_id).status.extra["start"] == "warm"
    assert jobs.wait_for(tmp_path, run_id, timeout=WAIT) == "finished"
    assert [r["step"] for r in train_records(tmp_path, run_id)] == list(range(1, 21))
    assert "[warm worker" in store.paths(run_id).log.read_text()
