"""``train`` from the command line (issue 15): dataset options (``-o key=value``, checked as
``data show`` checks them, before any run exists), the checkpoint prefix (T3, the
tutorial's ``model.ckpt``, keep the last N) and the device flags (D1)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.unit.fixtures_train import WAIT
from tfcore.cli import build_parser, main
from tfcore.cli.cmd_train import build_request
from tfcore.errors import RunError
from tfcore.rundir import RunPaths
from tfcore.runs import list_checkpoints, restore_run
from tfcore.training import TrainConfig, jobs

PARSER = build_parser()
POINTS_SPEC = {"format": 1, "name": "points", "kind": "sequential",
               "inputs": [{"name": "x", "shape": [2]}],
               "layers": [{"name": "hidden", "type": "Dense",
                           "config": {"units": 8, "activation": "relu"}},
                          {"name": "out", "type": "Dense",
                           "config": {"units": 2, "activation": "softmax"}}],
               "outputs": []}
FAST = ["--loss", "sparse_categorical_crossentropy", "--metrics", "sparse_categorical_accuracy"]


def _run(argv: list[str], capsys) -> tuple[int, str]:
    try:
        code = main(argv)
    except SystemExit as exc:                  # argparse refused the arguments
        code = exc.code
    return code, capsys.readouterr().err


@pytest.mark.parametrize("options,located", [
    (["-o", "bogus=1"], "has no option 'bogus'"),
    (["-o", "noise=loud"], "option 'noise' must be a number"),
    (["-o", "n_samples=0"], "option 'n_samples' must be an integer"),
])
def test_a_bad_dataset_option_exits_2_before_a_run_exists(options, located, tmp_path,
                                                          capsys) -> None:
    """Also with --loss and --metrics given (the dataset is loaded only to check)."""
    root = tmp_path / "runs"
    code, err = _run(["train", "--dataset", "circles", *options, *FAST,
                      "--runs-root", str(root), "--quiet"], capsys)
    assert code == 2, err
    assert err.startswith("error: Dataset 'circles'") and located in err, err
    assert "Traceback" not in err
    assert not root.exists() or not any(root.iterdir())        # nothing was started


def test_dataset_options_reach_the_request_for_a_dataset_that_takes_none(capsys) -> None:
    code, err = _run(["train", "--dataset", "digits28", "-o", "image_size=224", *FAST],
                     capsys)
    assert code == 2 and "has no option 'image_size'" in err and "known options: none" in err
    request = build_request(PARSER.parse_args(["train", "--dataset", "circles", "-o",
                                               "noise=0.3", "-o", "n_samples=200", *FAST]))
    assert request["dataset"]["options"] == {"noise": 0.3, "n_samples": 200}


def test_ckpt_prefix_option_and_its_checks(capsys) -> None:
    assert TrainConfig().ckpt_prefix == "ckpt"                      # default unchanged
    assert TrainConfig.from_dict({"ckpt_prefix": "model.ckpt"}).ckpt_prefix == "model.ckpt"
    for bad in ("", "a/b", "../x", "checkpoint", "x" * 65, "-x", "a b", 5):
        with pytest.raises(RunError, match="ckpt_prefix"):
            TrainConfig.from_dict({"ckpt_prefix": bad})
    request = build_request(PARSER.parse_args(["train", "--ckpt-prefix", "model.ckpt", *FAST]))
    assert request["training"]["ckpt_prefix"] == "model.ckpt"
    code, err = _run(["train", "--ckpt-prefix", "../evil", *FAST], capsys)
    assert code == 2 and "ckpt_prefix" in err and "'../evil'" in err


def test_device_flags_make_the_device_config(capsys) -> None:
    request = build_request(PARSER.parse_args(
        ["train", "--device", "mirrored", "--gpus", "0,1", "--memory-growth", "off",
         "--memory-limit", "2048", "--logical-devices", "2", *FAST]))
    assert request["device"] == {"kind": "mirrored", "gpus": [0, 1], "logical_devices": 2,
                                 "memory_growth": False, "memory_limit_mb": 2048}
    default = build_request(PARSER.parse_args(["train", *FAST]))["device"]
    assert default == {"kind": "cpu", "gpus": [], "logical_devices": 0,
                       "memory_growth": True, "memory_limit_mb": 0}
    assert build_request(PARSER.parse_args(["train", "--device", "gpu:1", *FAST])
                         )["device"]["gpus"] == [1]
    for argv, located in ((["--gpus", "0,x"], "--gpus"), (["--gpus", "1,1"], "named twice"),
                          (["--memory-growth", "maybe"], "on or off"),
                          (["--memory-limit", "-5"], "--memory-limit"),
                          (["--logical-devices", "17"], "--logical-devices"),
                          (["--device", "gpu:0", "--gpus", "1"], "disagree"),
                          (["--device", "cpu", "--gpus", "0"], "a cpu run sees none")):
        code, err = _run(["train", *argv, *FAST], capsys)
        assert code == 2 and located in err and "Traceback" not in err, (argv, err)


def test_checkpoint_steps_reads_any_prefix(tmp_path: Path) -> None:
    paths = RunPaths(tmp_path / "run")
    paths.ckpt_dir.mkdir(parents=True)
    for name in ("model.ckpt-20.index", "model.ckpt-5.index", "ckpt-7.index",
                 "model.ckpt-5.data-00000-of-00001", "checkpoint", "model.ckpt-x.index"):
        (paths.ckpt_dir / name).write_bytes(b"")
    assert jobs.checkpoint_steps(paths) == [5, 7, 20]


@pytest.mark.slow
def test_tutorial_checkpoint_names_keep_last_three_and_dataset_options(tmp_path) -> None:
    """T3 end to end through the CLI: ``model.ckpt-N`` files, the ``checkpoint`` state
    file, only the last 3 kept (numbered by step), every reader handles the prefix; the
    ``-o`` options are the run's."""
    root = tmp_path / "runs"
    spec = tmp_path / "points.json"
    spec.write_text(json.dumps(POINTS_SPEC))
    done = subprocess.run(
        [sys.executable, "-m", "tfcore", "train", "--spec", str(spec), "--dataset",
         "circles", "-o", "n_samples=400", "-o", "noise=0.1", "--steps", "30",
         "--batch-size", "20", "--ckpt-every", "5", "--keep", "3", "--ckpt-prefix",
         "model.ckpt", "--runs-root", str(root), "--quiet"],
        cwd=ROOT, capture_output=True, text=True, timeout=WAIT, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary["state"] == "finished" and summary["steps"] == 30
    run_dir = Path(summary["run_dir"])
    request = json.loads((run_dir / "run.json").read_text())
    assert request["dataset"]["options"] == {"n_samples": 400, "noise": 0.1}
    assert request["training"]["ckpt_prefix"] == "model.ckpt"
    names = sorted(p.name for p in (run_dir / "ckpt").iterdir())
    assert names == ["checkpoint",
                     "model.ckpt-20.data-00000-of-00001", "model.ckpt-20.index",
                     "model.ckpt-25.data-00000-of-00001", "model.ckpt-25.index",
                     "model.ckpt-30.data-00000-of-00001", "model.ckpt-30.index"]
    state = (run_dir / "ckpt" / "checkpoint").read_text()
    assert 'model_checkpoint_path: "model.ckpt-30"' in state
    assert jobs.checkpoint_steps(RunPaths(run_dir)) == [20, 25, 30]
    listing = list_checkpoints(run_dir)
    assert [e.number for e in listing.entries] == [20, 25, 30] and listing.latest.number == 30
    assert all(e.ok for e in listing.entries)
    restored = restore_run(run_dir, 25, with_optimizer=True, require_complete=True)
    assert restored.step == 25 and restored.prefix.name == "model.ckpt-25"
    status = json.loads((run_dir / "status.json").read_text())
    assert status["checkpoints"] == ["model.ckpt-20", "model.ckpt-25", "model.ckpt-30"]
