"""The run files' schemas (located problems, damaged lines skipped and counted), newest-first
listing by creation time, ``newest_active``, and the stat-keyed caches (a second listing
re-reads nothing that did not change)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from tfcore.rundir import (
    DAMAGED,
    INTERRUPTED,
    QUEUED,
    RUNNING,
    RunStatus,
    RunStore,
    RunWriter,
    read_metrics,
)
from tfcore.rundir import cache as rundir_cache
from tfcore.rundir.schema import STATUS_FIELDS, check_fields, quote


def _status(root: Path, run_id: str, body: object) -> None:
    (root / run_id / "status.json").write_text(json.dumps(body))


def _age(path: Path, seconds: float = 60.0) -> None:
    """Make a file look written ``seconds`` ago (so the cache may trust its stat)."""
    past = time.time() - seconds
    os.utime(path, (past, past))


def _age_run(root: Path, run_id: str) -> None:
    for path in (root / run_id).iterdir():
        _age(path)


def test_status_problems_are_located_and_bad_fields_fall_back(tmp_path: Path) -> None:
    writer = RunWriter.create(tmp_path, {"name": "a"}, run_id="a")
    _status(tmp_path, "a", {"state": "running", "step": "abc", "epoch": 2, "pid": -1,
                            "queued_at": "soon", "last": {"loss": "x"}, "future": [1]})
    record = RunStore(tmp_path).get("a")
    assert [str(p) for p in record.problems] == [
        "status.json: step: 'abc' is not an integer",
        "status.json: pid: -1 is below the minimum 1",
        "status.json: queued_at: 'soon' is not a finite number",
        "status.json: last: {'loss': 'x'} is not an object of numbers"]
    status = record.status
    assert (status.state, status.step, status.epoch, status.pid) == (RUNNING, 0, 2, None)
    assert "queued_at" not in status.extra and status.extra["future"] == [1]
    assert record.damaged
    assert record.problems[0].key == "runs.problem.type.int"
    assert record.problems[1].params == {"where": "status.json: pid", "value": "-1",
                                         "limit": "1"}
    writer.set_status(step=3)                # the worker's writer heals what it rewrites
    assert RunStore(tmp_path).get("a").status.step == 3


def test_unusable_status_is_damaged_not_interrupted(tmp_path: Path) -> None:
    RunWriter.create(tmp_path, {"name": "a"}, run_id="a")
    for body, message in (([1, 2], "status.json: [1, 2] is not a JSON object"),
                          ({"state": "exploded", "step": 1},
                           "status.json: state: 'exploded' is not one of queued, running, "
                           "stopping, finished, failed, stopped, interrupted"),
                          ({"step": 1}, "status.json: state: is missing")):
        _status(tmp_path, "a", body)
        record = RunStore(tmp_path).get("a")
        assert record.status.state == DAMAGED and str(record.problems[0]) == message
    (tmp_path / "a" / "status.json").write_bytes(b"\xff\xfe\x00")
    assert str(RunStore(tmp_path).get("a").problems[0]) == \
        "status.json: cannot be read (not UTF-8 text)"
    (tmp_path / "a" / "status.json").write_text('{"state": "run')
    assert str(RunStore(tmp_path).get("a").problems[0]) == \
        "status.json: is not valid JSON (line 1, column 11)"
    assert RunStatus.from_dict(None).state == DAMAGED
    RunWriter(RunStore(tmp_path).paths("a")).set_status(state=INTERRUPTED, step=0)
    assert RunStore(tmp_path).get("a").problems == ()


def test_huge_values_are_quoted_short(tmp_path: Path) -> None:
    _, problems = check_fields({"state": "running", "step": 10 ** 400,
                                "message": "m" * 2_000_000},
                               STATUS_FIELDS, "status.json")
    assert str(problems[0]) == ("status.json: step: <401-digit integer> is above the maximum "
                                "9007199254740992")
    assert str(problems[1]).startswith("status.json: message: 'mmmm")
    assert str(problems[1]).endswith("mmm' is longer than 1000000 characters")
    assert "..." in problems[1].value and len(problems[1].value) <= 60
    assert len(quote("z" * 10_000)) <= 60 and len(quote(list(range(10 ** 6)))) <= 60


def test_damaged_metrics_lines_are_skipped_counted_and_located(tmp_path: Path) -> None:
    path = tmp_path / "metrics.jsonl"
    good = [json.dumps({"step": s, "split": "train", "loss": 1.0 / s}) for s in (1, 2, 3)]
    bad = ['{"step": "two", "loss": 1}', "[1, 2]", '{"step": 1, "split": "holdout"}',
           '{"step": 1, "loss": "abc"}', "not json", '{"epoch": 1}', '{"step": -1}']
    path.write_text("\n".join([good[0], *bad, good[1], good[2]]) + "\n" + '{"step": 4, "lo')
    chunk = read_metrics(path)
    assert [r["step"] for r in chunk.records] == [1, 2, 3]
    assert chunk.skipped == 7 and chunk.lines == 10
    assert [str(p) for p in chunk.problems] == [
        "metrics.jsonl:2: step: 'two' is not an integer",
        "metrics.jsonl:3: [1, 2] is not a JSON object",
        "metrics.jsonl:4: split: 'holdout' is not one of train, val, test",
        "metrics.jsonl:5: loss: 'abc' is not a number",
        "metrics.jsonl:6: is not valid JSON (column 1)"]
    assert str(chunk.summary_problems[-1]) == "metrics.jsonl: 7 damaged line(s) skipped"
    with open(path, "a") as handle:                  # the torn line is completed later
        handle.write('ss": 0.2}\n{"step": "x"}\n')
    more = read_metrics(path, chunk.offset, first_line=1 + chunk.lines)
    assert [r["step"] for r in more.records] == [4]
    assert [str(p) for p in more.problems] == ["metrics.jsonl:12: step: 'x' is not an integer"]


def test_runs_are_listed_newest_first_by_creation_not_by_id(tmp_path: Path) -> None:
    for run_id, day in (("a-late", 3), ("z-early", 1), ("m-middle", 2)):
        RunWriter.create(tmp_path, {"name": run_id, "created": f"2026-01-0{day}T00:00:00"},
                         run_id=run_id)
    store = RunStore(tmp_path)
    assert store.run_ids() == ["a-late", "m-middle", "z-early"]
    assert store.newest_active().run_id == "a-late"          # all three are queued
    RunWriter(store.paths("a-late")).set_status(state="finished")
    RunWriter(store.paths("m-middle")).set_status(state="failed")
    assert store.newest_active().run_id == "z-early"
    _status(tmp_path, "z-early", {"state": "exploded", "step": 0})
    assert store.newest_active() is None
    RunWriter(store.paths("z-early")).set_status(state=QUEUED)   # a list status heals too
    assert store.newest_active().run_id == "z-early"


def test_second_listing_reads_nothing_unchanged(tmp_path: Path) -> None:
    for index in range(30):
        RunWriter.create(tmp_path, {"name": f"r{index}"}, run_id=f"r{index:02d}")
        (tmp_path / f"r{index:02d}" / "meta.json").write_text('{"tags": ["t"]}')
        _age_run(tmp_path, f"r{index:02d}")
    _age(tmp_path)
    store = RunStore(tmp_path)
    files, listings = rundir_cache.FILES, rundir_cache.LISTINGS
    before = (files.loads, listings.loads)
    first = store.list()
    assert (files.loads - before[0], listings.loads - before[1]) == (90, 1)  # 3 files a run

    before = (files.loads, listings.loads)
    again = RunStore(tmp_path).list()                     # another session, same process
    assert (files.loads - before[0], listings.loads - before[1]) == (0, 0)
    assert [r.run_id for r in again] == [r.run_id for r in first]
    assert again[0].meta == {"tags": ["t"]}

    RunWriter(store.paths("r07")).set_status(state=RUNNING, pid=12345)  # one run changes
    before = files.loads
    changed = {r.run_id: r for r in store.list()}
    assert files.loads - before == 1                      # only r07's status.json
    assert changed["r07"].status.state == RUNNING
    assert changed["r07"].status.pid == 12345
    assert files.loads - before == 1

    before = files.loads
    store.list()                                          # written just now: not trusted yet
    assert files.loads - before == 1
    _age(store.paths("r07").status_json)
    store.list()
    before = files.loads
    store.list()
    assert files.loads - before == 0

    RunWriter.create(tmp_path, {"name": "new"}, run_id="r99")   # a new run: relisted
    before = (files.loads, listings.loads)
    assert "r99" in store.run_ids()
    assert listings.loads - before[1] == 1 and files.loads - before[0] == 3
