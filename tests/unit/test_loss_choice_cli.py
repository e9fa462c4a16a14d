"""The command line trains the lesson's MLP (a linear last layer, the default loss) with the
from-logits loss, says so in one line and names the run after the model (issue 23, items 5
and 6); a last layer no loss can read is refused before a run exists."""

from __future__ import annotations

import json
from pathlib import Path

from tfcore.cli import main
from tfcore.model import get_preset

LOGITS = "sparse_categorical_crossentropy_logits"
NOTE = ("The last layer 'logits' outputs raw scores (no softmax), so the loss is computed "
        f"from logits: {LOGITS} (instead of sparse_categorical_crossentropy).")


def _lesson_net(tmp_path: Path, last: dict | None = None) -> Path:
    """784 -> 100 relu -> 10 with a linear output (the mlp preset without its softmax)."""
    spec = get_preset("mlp").to_dict()
    spec["name"] = "lesson_net"
    spec["layers"] = spec["layers"][:-1] if last is None else [*spec["layers"][:-2], last]
    path = tmp_path / "lesson_net.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    return path


def _runs(tmp_path: Path) -> list[Path]:
    return [p for p in tmp_path.joinpath("runs").iterdir() if not p.name.startswith(".")] \
        if tmp_path.joinpath("runs").is_dir() else []


def test_the_lesson_net_trains_well_above_chance_and_the_cli_says_why(tmp_path, capsys):
    spec, root = _lesson_net(tmp_path), tmp_path / "runs"
    args = ["train", "--spec", str(spec), "--epochs", "1", "--runs-root", str(root)]
    assert main(args) == 0
    out, err = capsys.readouterr()
    summary = json.loads(out.strip().splitlines()[-1])
    assert NOTE in err.splitlines()
    assert summary["name"] == "lesson_net" and f"'lesson_net'" in err
    assert summary["test"]["sparse_categorical_accuracy"] > 0.7    # chance: 0.1; measured 0.84
    written = json.loads((root / summary["run_id"] / "run.json").read_text())
    assert written["training"]["loss"] == LOGITS
    assert written["loss_choice"] == {"asked": "sparse_categorical_crossentropy",
                                      "used": LOGITS, "automatic": True, "note": NOTE}
    # a second run of the same model: "lesson_net 2", listed by `runs list`
    quick = [*args[:3], "--steps", "1", "--runs-root", str(root), "--quiet"]
    assert main(quick) == 0
    second = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert second["name"] == "lesson_net 2"
    assert main([*quick, "--name", "wider"]) == 0          # the name typed before Start
    capsys.readouterr()
    assert main(["runs", "list", "--runs-root", str(root)]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert sorted(r["name"] for r in listed) == ["lesson_net", "lesson_net 2", "wider"]


def test_a_last_layer_no_loss_reads_is_refused_with_its_fix(tmp_path, capsys):
    sigmoid = {"name": "out", "type": "Dense", "config": {"units": 10, "activation": "sigmoid"}}
    spec = _lesson_net(tmp_path, sigmoid)
    code = main(["train", "--spec", str(spec), "--steps", "1",
                 "--runs-root", str(tmp_path / "runs")])
    err = capsys.readouterr().err
    assert code == 2
    assert "The last layer 'out' outputs probabilities (sigmoid) with 10 unit(s)" in err
    assert "set its activation to 'softmax'" in err
    assert _runs(tmp_path) == []
