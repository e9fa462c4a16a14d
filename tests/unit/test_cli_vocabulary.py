"""One CLI vocabulary: one flag spelling per concept in every command, old spellings still
parse, run ids never start with ``-``, and every ``--help`` ends with runnable examples."""

from __future__ import annotations

import argparse
import json
import os
import shlex

import pytest

from tfcore.cli import build_parser, main
from tfcore.cli.cmd_train import build_request
from tfcore.cli.vocabulary import CONCEPTS, PROG, walk

PARSER = build_parser()
PARSERS = dict(walk(PARSER))


def _options(parser: argparse.ArgumentParser):
    """(dest, option strings, hidden) of each optional argument of one parser."""
    for action in parser._actions:
        if action.option_strings and not isinstance(action, argparse._HelpAction):
            yield action.dest, tuple(action.option_strings), action.help == argparse.SUPPRESS


def test_every_dest_has_one_visible_spelling_and_every_flag_one_dest() -> None:
    spellings: dict[str, dict[tuple[str, ...], list[str]]] = {}
    dests: dict[str, set[str]] = {}
    for path, parser in PARSERS.items():
        for dest, flags, hidden in _options(parser):
            if dest in ("version",):
                continue
            for flag in flags:
                dests.setdefault(flag, set()).add(dest)
            if not hidden:
                spellings.setdefault(dest, {}).setdefault(flags, []).append(" ".join(path))
    mixed = {dest: by for dest, by in spellings.items() if len(by) > 1}
    assert not mixed, f"one concept, several flags: {mixed}"
    shared = {flag: d for flag, d in dests.items() if len(d) > 1}
    assert not shared, f"one flag, several meanings: {shared}"
    for dest, concept in CONCEPTS.items():
        if dest in spellings:
            assert list(spellings[dest]) == [concept.flags], dest
    # the table is the vocabulary that the commands really use
    assert {"runs_root", "dataset", "batch_size", "spec", "preset", "epochs", "seed",
            "device", "option", "workspace", "ckpt"} <= set(spellings)
    assert len(spellings["runs_root"][("--runs-root",)]) == 13   # train, 6 runs, 6 ckpt


def test_old_spellings_parse_as_the_canonical_flag_and_stay_out_of_help() -> None:
    cases = [
        (["train", "--runs-dir", "/tmp/r"], ["train", "--runs-root", "/tmp/r"], "runs_root"),
        (["runs", "list", "--runs-dir", "/tmp/r"], ["runs", "list", "--runs-root", "/tmp/r"],
         "runs_root"),
        (["ckpt", "export", "r1", "--runs-dir", "/x"], ["ckpt", "export", "r1", "--runs-root",
                                                         "/x"], "runs_root"),
        (["timing", "--data", "digits8"], ["timing", "--dataset", "digits8"], "dataset"),
        (["pipeline", "--batch", "8"], ["pipeline", "--batch-size", "8"], "batch_size"),
        (["data", "show", "circles", "--option", "noise=0.1"],
         ["data", "show", "circles", "-o", "noise=0.1"], "option"),
    ]
    for old, new, dest in cases:
        parsed_old, parsed_new = PARSER.parse_args(old), PARSER.parse_args(new)
        assert vars(parsed_old) == vars(parsed_new), old
        assert getattr(parsed_old, dest) not in (None, [])
    assert PARSER.parse_args(["pipeline", "--batch", "8"]).batch_size == 8
    for path, parser in PARSERS.items():
        text = parser.format_help()
        for concept in CONCEPTS.values():
            for alias in concept.aliases:
                assert f"{alias} " not in text and f"{alias}," not in text, (path, alias)
    assert "--runs-root DIR" in PARSERS[("train",)].format_help()


def test_a_hidden_alias_keeps_the_default_when_absent() -> None:
    args = PARSER.parse_args(["train"])
    assert (args.runs_root, args.dataset, args.batch_size, args.option) == \
        (None, "digits28", 50, None)
    assert PARSER.parse_args(["timing"]).dataset == "synthetic"


@pytest.mark.parametrize("path,parser", list(PARSERS.items()),
                         ids=[" ".join(p) or "tfcore" for p in PARSERS])
def test_help_ends_with_examples_that_parse(path, parser) -> None:
    help_text = parser.format_help().rstrip()
    tail = help_text.splitlines()
    examples = [line.strip() for line in tail[tail.index("examples:") + 1:]]
    assert 1 <= len(examples) <= 2, help_text
    assert tail[-1].strip().startswith(PROG + " ")
    for line in examples:
        assert line.startswith(PROG + " ")
        words = shlex.split(line)[3:]
        if ">" in words:
            words = words[:words.index(">")]
        assert words[:len(path)] == list(path), line
        namespace = PARSER.parse_args(words)  # an example that does not parse fails here
        if path:
            assert namespace.command == path[0]


def test_every_subcommand_is_walked() -> None:
    names = {" ".join(p) for p in PARSERS}
    assert {"", "train", "runs list", "runs show", "ckpt diff", "ckpt export", "spec check",
            "spec code", "data show", "presets", "timing", "weights", "pipeline"} <= names
    assert len(names) >= 30


@pytest.mark.parametrize("argv", [
    ["runs", "show", "-1"], ["runs", "show", "--", "-x"], ["runs", "delete", "--", "-run-1"],
    ["ckpt", "list", "--", "-x"], ["ckpt", "diff", "a", "--", "-b"], ["train", "--resume=-x"],
    ["train", "--resume", "-1"], ["ckpt", "vars", "--", "--all"],
])
def test_a_run_id_that_starts_with_a_dash_is_refused(argv, capsys) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "run ids never start with '-'" in err and "Traceback" not in err


@pytest.mark.parametrize("name", ["-leading", "--double", "---", "-", "  -x", "?-x", "", "."])
def test_generated_run_ids_never_start_with_a_dash(name, tmp_path) -> None:
    from tfcore.rundir import RunStore, RunWriter

    writer = RunWriter.create(tmp_path, {"name": name, "spec": {}})
    run_id = writer.paths.run_id
    assert not run_id.startswith("-"), run_id
    assert RunStore(tmp_path).get(run_id).run_id == run_id


def test_train_passes_dataset_options_into_the_request(tmp_path, monkeypatch, capsys) -> None:
    """``train -o target=...`` chooses the CSV target: the task, and so the default loss."""
    uploads = tmp_path / "uploads"
    uploads.mkdir()
    rows = [f"{r},{s},{r * 50 + s * 3},{int(r > 2)}" for r in range(1, 6) for s in range(40, 52)]
    (uploads / "houses.csv").write_text("rooms,size,price,big\n" + "\n".join(rows) + "\n")
    monkeypatch.setenv("TFLAB_WORKSPACE", str(tmp_path))
    base = ["train", "--dataset", "upload:csv:houses.csv", "--preset", "mlp"]
    price = build_request(PARSER.parse_args(base + ["-o", "target=price", "-o",
                                                    "features=[\"rooms\", \"size\"]"]))
    big = build_request(PARSER.parse_args(base + ["--option", "target=big", "--val",
                                                  "0.25", "--seed", "3"]))
    assert price["dataset"]["options"] == {"target": "price", "features": ["rooms", "size"]}
    assert (price["training"]["loss"], price["training"]["metrics"]) == ("mse", ("mae",))
    assert big["dataset"] == {"name": "upload:csv:houses.csv", "options": {"target": "big"},
                              "val_fraction": 0.25, "test_fraction": 0.2, "seed": 3}
    assert big["training"]["loss"] == "sparse_categorical_crossentropy"
    json.dumps(big)  # the run.json body stays plain JSON
    assert PARSER.parse_args(["train", "-o", "image_size=224", "-o", "target=price"]).option \
        == [("image_size", 224), ("target", "price")]


def test_train_steps_per_second_reaches_the_training_config() -> None:
    args = PARSER.parse_args(["train", "--steps-per-second", "2.5", "--loss", "mse",
                              "--metrics", "mae", "--dataset", "house_prices"])
    assert args.steps_per_second == 2.5
    request = build_request(args)
    assert request["training"]["steps_per_second"] == 2.5
    assert build_request(PARSER.parse_args(["train", "--loss", "mse", "--metrics", "mae"])
                         )["training"]["steps_per_second"] is None


def test_workspace_flag_points_the_command_at_another_workspace(tmp_path, capsys) -> None:
    (tmp_path / "uploads").mkdir()
    (tmp_path / "uploads" / "table.csv").write_text("a,b\n1,2\n3,4\n")
    before = os.environ.get("TFLAB_WORKSPACE")
    assert main(["data", "list", "--workspace", str(tmp_path)]) == 0
    listing = json.loads(capsys.readouterr().out)
    assert listing["uploads"]["csv"] == ["table.csv"]
    assert os.environ.get("TFLAB_WORKSPACE") == before   # restored
    assert main(["runs", "list", "--workspace", str(tmp_path)]) == 0
    assert json.loads(capsys.readouterr().out) == []
