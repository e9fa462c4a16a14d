"""``python -m tfcore runs ...`` and ``ckpt ...`` (in-process through the CLI's main)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.unit.fixtures_runs import make_run, make_tutorial_checkpoint
from tfcore.cli import main
from tfcore.jsonio import read_json


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    runs = tmp_path_factory.mktemp("cli_ws") / "runs"
    runs.mkdir()
    make_run(runs, name="cli_one", steps=6, ckpt_every=2)
    make_run(runs, name="cli_two", steps=6, ckpt_every=3)
    return runs


def _json(capsys, argv: list[str]) -> tuple[int, object]:
    code = main(argv)
    out = capsys.readouterr().out
    return code, json.loads(out) if out.strip() else None


def test_runs_list_and_show(root: Path, capsys) -> None:
    code, runs = _json(capsys, ["runs", "list", "--runs-root", str(root)])
    assert code == 0 and sorted(r["name"] for r in runs) == ["cli_one", "cli_two"]
    one = next(r for r in runs if r["name"] == "cli_one")
    assert one["steps"] == 6 and one["state"] == "finished" and "test/loss" in one["final"]
    code, shown = _json(capsys, ["runs", "show", one["run"], "--runs-root", str(root)])
    assert code == 0 and shown["request"]["dataset"]["name"] == "digits8"
    assert [e["number"] for e in shown["checkpoints"]["entries"]] == [2, 4, 6]


def test_ckpt_list_vars_stats_diff_eval(root: Path, capsys) -> None:
    run_id = next(p.name for p in root.iterdir() if p.name.startswith("cli_two"))
    code, listing = _json(capsys, ["ckpt", "list", run_id, "--runs-root", str(root)])
    assert code == 0 and [e["number"] for e in listing["entries"]] == [3, 6]
    code, variables = _json(capsys, ["ckpt", "vars", str(root / run_id), "--ckpt", "3"])
    kernel = next(v for v in variables["variables"] if v["shape"] == [64, 16])
    assert code == 0 and kernel["dtype"] == "float32" and variables["prefix"].endswith("ckpt-3")
    code, stats = _json(capsys, ["ckpt", "stats", str(root / run_id), kernel["key"]])
    assert code == 0 and stats["count"] == 1024 and sum(stats["hist_counts"]) == 1024
    prefix = str(root / run_id / "ckpt" / "ckpt-3")
    code, diff = _json(capsys, ["ckpt", "diff", prefix, prefix])
    assert code == 0 and all(r["norm_change"] == 0 for r in diff["rows"])
    code, result = _json(capsys, ["ckpt", "eval", run_id, "--runs-root", str(root)])
    reported = read_json(root / run_id / "status.json")["test_metrics"]
    assert code == 0 and result["step"] == 6
    assert result["metrics"]["loss"] == pytest.approx(reported["loss"], abs=1e-6)


def test_ckpt_vars_of_a_tutorial_folder(tmp_path: Path, capsys) -> None:
    folder = make_tutorial_checkpoint(tmp_path)
    code, variables = _json(capsys, ["ckpt", "vars", str(folder)])
    shapes = {v["key"]: v["shape"] for v in variables["variables"]}
    assert code == 0 and shapes["myModel/dense1/_kernel/.ATTRIBUTES/VARIABLE_VALUE"] == [784, 100]


def test_runs_rename_tag_delete(root: Path, tmp_path: Path, capsys) -> None:
    victim = make_run(root, name="cli_victim", steps=4, ckpt_every=2)
    code, meta = _json(capsys, ["runs", "rename", victim, "gone soon", "--runs-root", str(root)])
    assert code == 0 and meta["name"] == "gone soon"
    code, meta = _json(capsys, ["runs", "tag", victim, "a", "b", "--runs-root", str(root)])
    assert meta["tags"] == ["a", "b"]
    code, out = _json(capsys, ["runs", "delete", victim, "--old-checkpoints",
                               "--runs-root", str(root)])
    assert code == 0 and sorted(out["removed"]) == ["ckpt-2.data-00000-of-00001",
                                                    "ckpt-2.index"]
    before = {p.name for p in root.iterdir()}
    code, out = _json(capsys, ["runs", "delete", victim, "--runs-root", str(root)])
    assert code == 0 and before - {p.name for p in root.iterdir()} == {victim}
    assert main(["runs", "delete", victim, "--runs-root", str(root)]) == 2
    assert "does not exist" in capsys.readouterr().err
