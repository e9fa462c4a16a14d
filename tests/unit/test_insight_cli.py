"""Issue 25 from the command line: ``train --insight/--no-insight --insight-every N`` reach
run.json and are checked against the registry, and ``runs insight RUN [--step N] [--json]``
shows a real run's record, locates a damaged line and exits 2 naming what is missing."""

from __future__ import annotations

import json

import pytest

from tests.unit.test_insight_runs import request, train_here
from tfcore.cli import build_parser, main
from tfcore.cli.cmd_train import build_request
from tfcore.errors import RunError
from tfcore.rundir import forget_insight
from tfcore.training import SETTINGS, TrainConfig

PARSER = build_parser()
FAST = ["--dataset", "moons", "--loss", "sparse_categorical_crossentropy", "--metrics",
        "sparse_categorical_accuracy"]


def _code(argv: list[str], capsys) -> tuple[int, str, str]:
    try:
        code = main(argv)
    except SystemExit as exc:                       # argparse refused the arguments
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


def test_train_flags_reach_the_request_and_are_checked(capsys) -> None:
    default = build_request(PARSER.parse_args(["train", *FAST]))["training"]
    assert default["insight"] is True and default["insight_every"] == 0
    off = build_request(PARSER.parse_args(["train", *FAST, "--no-insight",
                                           "--insight-every", "7"]))["training"]
    assert off["insight"] is False and off["insight_every"] == 7
    assert TrainConfig.from_dict(off).sync_every == 100           # off: calls as before
    with pytest.raises(RunError) as info:
        build_request(PARSER.parse_args(["train", *FAST, "--insight-every", "-1"]))
    assert info.value.params["name"] == "insight_every"
    assert "insight_every" in info.value.message and "-1" in info.value.message
    with pytest.raises(RunError) as info:
        TrainConfig.from_dict({"insight": "yes"})
    assert info.value.params["name"] == "insight" and "'yes'" in info.value.message
    code, _, err = _code(["train", "--help"], capsys)
    assert code == 0
    help_text = PARSER._subparsers._group_actions[0].choices["train"].format_help()
    assert "--insight, --no-insight" in help_text and "--insight-every N" in help_text
    assert SETTINGS["insight_every"].describe() in help_text


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    return train_here(tmp_path_factory.mktemp("cli"), request(epochs=2))


def test_runs_insight_shows_the_record_and_a_steps_grid(run_dir, capsys) -> None:
    code, out, err = _code(["runs", "insight", str(run_dir), "--json"], capsys)
    assert code == 0, err
    doc = json.loads(out)
    assert [s["step"] for s in doc["snapshots"]] == [0, 5, 10, 14]
    assert doc["meta"]["neurons"] == ["h1", "h2", "out"] and doc["problems"] == []
    assert set(doc["snapshots"][0]["grad_norm"]) == {"h1", "h2", "out"}
    assert doc["meta"]["plane"]["output"] == "classes" and "grid" not in doc
    code, out, err = _code(["runs", "insight", str(run_dir), "--step", "10", "--json"],
                           capsys)
    grid = json.loads(out)["grid"]
    assert code == 0 and grid["step"] == 10 and grid["size"] == 40
    assert sum(grid["class_share"].values()) == pytest.approx(1.0, abs=0.01)
    assert [n["layer"] for n in grid["neurons"]] == ["h1", "h2", "out"]
    assert grid["neurons"][0]["kernel"] == [2, 8]
    code, out, err = _code(["runs", "insight", str(run_dir), "--step", "10"], capsys)
    assert code == 0 and "gradient norm per layer:" in out and "grid at step 10" in out
    assert "class moon A" in out


def test_runs_insight_locates_damage_and_names_what_is_missing(run_dir, tmp_path,
                                                                capsys) -> None:
    stats = run_dir / "insight" / "stats.jsonl"
    before = stats.read_bytes()
    try:
        with open(stats, "a") as handle:
            handle.write('{"step": "x"}\n')
        forget_insight()
        code, out, err = _code(["runs", "insight", str(run_dir)], capsys)
        assert code == 0 and "problem: insight/stats.jsonl:5: step" in err, err
        code, out, err = _code(["runs", "insight", str(run_dir), "--step", "3"], capsys)
        assert code == 2 and "no plane grid at step 3" in err and "0, 5, 10, 14" in err
    finally:
        stats.write_bytes(before)
        forget_insight()
    off = train_here(tmp_path, request(epochs=1, insight=False))
    code, out, err = _code(["runs", "insight", str(off)], capsys)
    assert code == 2 and "recorded no insight" in err and "Traceback" not in err
