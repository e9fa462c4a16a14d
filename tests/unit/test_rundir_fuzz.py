"""Fuzz the run contract's readers: every field of every run file damaged in every way
(tests/unit/fixtures_damaged.py) must leave the listing, the summaries, ``runs list``,
``runs show`` and the job queue working, with the damage named where it is."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.unit.fixtures_damaged import damaged_root, located, mutations
from tfcore.cli import main
from tfcore.rundir import RUNNING, RunStore, RunWriter
from tfcore.runs import list_runs
from tfcore.training import jobs

MUTATIONS = mutations()


def _cli_json(capsys, *argv: str) -> tuple[int, object]:
    capsys.readouterr()
    code = main(list(argv))
    out = capsys.readouterr().out
    return code, json.loads(out) if out.strip() else None


def test_the_catalogue_is_large_and_mostly_damaging() -> None:
    assert len(MUTATIONS) >= 150
    assert len({m.name for m in MUTATIONS}) == len(MUTATIONS)
    assert sum(m.expect_problem for m in MUTATIONS) >= 150
    assert {m.file for m in MUTATIONS} == {"run.json", "status.json", "meta.json",
                                           "metrics.jsonl"}


@pytest.mark.parametrize("mutation", MUTATIONS, ids=lambda m: m.name)
def test_damaged_run_is_listed_with_its_problem_and_isolated(
        mutation, tmp_path: Path, capsys, monkeypatch) -> None:
    root = damaged_root(tmp_path / "runs", mutation)

    # the store lists all three runs, newest first by creation time (a victim without a
    # usable ``created`` falls back to its file's time: now, the newest)
    records = RunStore(root).list()
    order = [r.run_id for r in records]
    assert sorted(order) == ["healthy", "victim", "waiting"]
    assert order.index("waiting") < order.index("healthy")
    by_id = {r.run_id: r for r in records}
    assert by_id["healthy"].problems == () and by_id["waiting"].problems == ()

    # the runs table (summaries read metrics.jsonl as well)
    summaries = {s.run_id: s for s in list_runs(root)}
    assert set(summaries) == {"waiting", "healthy", "victim"}
    assert summaries["healthy"].problems == ()
    victim = summaries["victim"]
    assert located(victim.problems, mutation) == mutation.expect_problem, \
        [str(p) for p in victim.problems]
    if mutation.file != "metrics.jsonl":
        assert located(by_id["victim"].problems, mutation) == mutation.expect_problem
    else:
        assert victim.final["train/loss"] == pytest.approx(1 / 3)   # good lines still count

    # the command line
    code, listed = _cli_json(capsys, "runs", "list", "--runs-root", str(root))
    assert code == 0 and [r["run"] for r in listed] == order
    listed_victim = listed[order.index("victim")]
    assert listed_victim["problems"] == [str(p) for p in victim.problems]
    code, shown = _cli_json(capsys, "runs", "show", "victim", "--runs-root", str(root))
    assert code == 0 and shown["summary"]["problems"] == listed_victim["problems"]

    # the queue: the waiting run still starts
    started = []

    def fake_launch(paths, running=None):
        started.append(paths.run_id)
        RunWriter(paths).set_status(state=RUNNING, pid=os.getpid())
        return os.getpid()

    monkeypatch.setattr(jobs, "_launch", fake_launch)
    monkeypatch.setenv("TFLAB_MAX_WORKERS", "2")
    report = jobs.reconcile(root)
    assert report.started == ("waiting",) and started == ["waiting"]
    assert RunStore(root).get("waiting").status.state == RUNNING
    assert {r.run_id for r in RunStore(root).list()} == {"waiting", "healthy", "victim"}
