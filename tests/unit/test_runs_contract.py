"""Contract tests of the run directory on real temporary folders."""

from __future__ import annotations

import json
import multiprocessing as mp
import os
from pathlib import Path

import pytest

from tfcore.errors import RunError
from tfcore.rundir import store as runs


def _append_many(path: str, count: int) -> None:
    writer = runs.MetricsWriter(Path(path))
    for i in range(count):
        writer.append({"step": i, "loss": 1.0 / (i + 1), **{f"pad_{j}": 0.5 for j in range(20)}})
    writer.close()


def test_layout_names_every_file(tmp_path: Path) -> None:
    paths = runs.RunPaths(tmp_path / "r1")
    names = {p.name for p in (paths.run_json, paths.status_json, paths.metrics,
                              paths.ckpt_dir, paths.tb_dir, paths.model, paths.log,
                              paths.stop_request)}
    assert names == {"run.json", "status.json", "metrics.jsonl", "ckpt", "tb",
                     "model.keras", "log.txt", "stop.request"}
    assert paths.run_id == "r1"


def test_create_writes_request_and_queued_status(tmp_path: Path) -> None:
    writer = runs.RunWriter.create(tmp_path, {"name": "mlp digits", "epochs": 3})
    record = runs.RunStore(tmp_path).get(writer.paths.run_id)
    assert record.request["epochs"] == 3
    assert record.request["created"]
    assert record.status.state == runs.QUEUED
    assert record.problems == ()
    assert writer.paths.run_id.startswith("mlp-digits-")
    with pytest.raises(RunError):
        runs.RunWriter.create(tmp_path, {}, run_id=writer.paths.run_id)


def test_status_updates_merge_and_refuse_unknown_state(tmp_path: Path) -> None:
    writer = runs.RunWriter.create(tmp_path, {"name": "a"})
    writer.set_status(state=runs.RUNNING, pid=123, step=5)
    writer.set_status(step=6)
    status = runs.RunStore(tmp_path).get(writer.paths.run_id).status
    assert (status.state, status.pid, status.step) == (runs.RUNNING, 123, 6)
    assert status.heartbeat is not None
    with pytest.raises(RunError):
        writer.set_status(state="exploded")
    assert runs.RunStore(tmp_path).get(writer.paths.run_id).status.step == 6


def test_interrupted_json_write_leaves_old_file_intact(tmp_path: Path, monkeypatch) -> None:
    target = tmp_path / "status.json"
    runs.atomic_write_json(target, {"state": "running", "step": 1})

    def crash(*args, **kwargs):
        raise OSError("disk vanished mid-write")

    monkeypatch.setattr(runs.os, "replace", crash)
    with pytest.raises(OSError):
        runs.atomic_write_json(target, {"state": "finished", "step": 2})
    assert json.loads(target.read_text()) == {"state": "running", "step": 1}
    assert [p.name for p in tmp_path.iterdir()] == ["status.json"], "temp file cleaned up"


def test_torn_last_line_is_left_for_the_next_read(tmp_path: Path) -> None:
    path = tmp_path / "metrics.jsonl"
    path.write_text('{"step": 1, "loss": 0.5}\n{"step": 2, "lo')
    chunk = runs.read_metrics(path)
    assert [r["step"] for r in chunk.records] == [1]
    assert chunk.offset == len('{"step": 1, "loss": 0.5}\n')
    with open(path, "a") as handle:
        handle.write('ss": 0.4}\n{"step": 3, "loss": 0.3}\n')
    more = runs.read_metrics(path, chunk.offset)
    assert [r["step"] for r in more.records] == [2, 3]
    assert more.offset == path.stat().st_size
    assert runs.read_metrics(path, more.offset).records == ()


def test_garbage_line_is_skipped_and_missing_file_is_empty(tmp_path: Path) -> None:
    path = tmp_path / "metrics.jsonl"
    assert runs.read_metrics(path).records == ()
    path.write_text('{"step": 1}\nnot json\n[1, 2]\n{"step": 2}\n')
    assert [r["step"] for r in runs.read_metrics(path).records] == [1, 2]


def test_concurrent_append_and_read(tmp_path: Path) -> None:
    path = tmp_path / "metrics.jsonl"
    path.touch()
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_append_many, args=(str(path), 2000)) for _ in range(2)]
    for proc in procs:
        proc.start()
    seen, offset = [], 0
    while any(p.is_alive() for p in procs):
        chunk = runs.read_metrics(path, offset)
        seen.extend(chunk.records)
        offset = chunk.offset
    for proc in procs:
        proc.join()
        assert proc.exitcode == 0
    seen.extend(runs.read_metrics(path, offset).records)
    assert len(seen) == 4000
    assert sorted(r["step"] for r in seen) == sorted(list(range(2000)) * 2)


def test_store_lists_newest_first_and_reports_damaged_runs(tmp_path: Path) -> None:
    first = runs.RunWriter.create(tmp_path, {"name": "a"}, run_id="run-1")
    runs.RunWriter.create(tmp_path, {"name": "b"}, run_id="run-2")
    (tmp_path / "run-3").mkdir()
    store = runs.RunStore(tmp_path)
    records = store.list()
    assert [r.run_id for r in records] == ["run-3", "run-2", "run-1"]
    damaged = records[0]
    assert damaged.problems and damaged.status.state == runs.DAMAGED
    store.request_stop("run-1")
    assert first.stop_requested()
    with pytest.raises(RunError):
        store.get("../etc")
    with pytest.raises(RunError):
        store.get("nope")


def test_metrics_writer_context_closes_and_syncs(tmp_path: Path) -> None:
    with runs.RunWriter.create(tmp_path, {"name": "m"}).metrics_writer() as writer:
        writer.append({"step": 1, "value": __import__("numpy").float32(0.5)})
    record = runs.RunStore(tmp_path).list()[0]
    assert runs.read_metrics(record.paths.metrics).records[0]["value"] == 0.5
    assert os.path.getsize(record.paths.metrics) > 0
