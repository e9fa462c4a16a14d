"""A run table's digest of a growing metrics.jsonl folds in only the appended records and
agrees with a full read at every size (tfcore/runs/admin.py metrics_digest)."""

from __future__ import annotations

import json
from pathlib import Path

from tfcore.rundir import forget_metrics
from tfcore.runs.admin import final_metrics, metrics_digest


def _append(path: Path, records: list[dict]) -> None:
    with path.open("a", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record) + "\n")


def test_digest_of_a_growing_file_matches_a_full_read(tmp_path: Path) -> None:
    path = tmp_path / "metrics.jsonl"
    everything: list[dict] = []
    for start in range(1, 40, 7):
        batch = [{"step": s, "split": "train", "loss": 1.0 / s} for s in range(start, start + 7)]
        if start == 22:
            batch.append({"step": start + 6, "split": "val", "loss": 0.5, "acc": 0.75})
        _append(path, batch)
        everything += batch
        digest = metrics_digest(path)
        assert digest.last_step == max(r["step"] for r in everything)
        assert digest.final == final_metrics(tuple(everything))
    assert digest.final["val/acc"] == 0.75 and digest.final["train/loss"] == 1.0 / 42


def test_a_rewritten_file_is_folded_from_the_start(tmp_path: Path) -> None:
    path = tmp_path / "metrics.jsonl"
    _append(path, [{"step": s, "split": "train", "loss": 9.0} for s in range(1, 50)])
    assert metrics_digest(path).last_step == 49
    path.unlink()
    forget_metrics(path)
    _append(path, [{"step": 3, "split": "train", "loss": 2.0}])
    digest = metrics_digest(path)
    assert digest.last_step == 3 and digest.final == {"train/loss": 2.0}


def test_run_curves_are_built_once_per_content_and_follow_appends(tmp_path: Path) -> None:
    from tfcore.rundir import RunWriter
    from tfcore.runs import run_curves

    writer = RunWriter.create(tmp_path, {"name": "c", "spec": {}, "training": {}})
    run_id = writer.paths.root.name
    with writer.metrics_writer() as out:
        for step in range(1, 6):
            out.append({"step": step, "split": "train", "loss": 1.0 / step})
    first = run_curves(tmp_path, [run_id], "loss", ("train",))
    first["label"] = "mine"                          # a caller adding a column
    again = run_curves(tmp_path, [run_id], "loss", ("train",))
    assert "label" not in again.columns and list(again["step"]) == [1, 2, 3, 4, 5]
    assert again["value"].to_numpy().base is first["value"].to_numpy().base   # not rebuilt
    with writer.metrics_writer() as out:
        out.append({"step": 6, "split": "train", "loss": 0.1})
    grown = run_curves(tmp_path, [run_id], "loss", ("train",))
    assert list(grown["step"]) == [1, 2, 3, 4, 5, 6] and grown["value"].iloc[-1] == 0.1
