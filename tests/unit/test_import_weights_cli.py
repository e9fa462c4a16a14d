"""Issue 24.2: ``spec import`` keeps a .keras file's weights in the workspace as the spec's
initial weights and says so (en and zh); ``--no-weights`` imports the architecture only;
``spec check`` says whether a spec's weights fit, and locates a missing or damaged file."""

from __future__ import annotations

import json
from pathlib import Path

import keras
import numpy as np
import pytest

from tfcore.cli import main
from tfcore.model import build_model, from_json, load_initial_weights
from tfcore.workspace import default_workspace


def _trained(path: Path) -> keras.Model:
    keras.utils.set_random_seed(5)
    model = keras.Sequential([keras.Input((4,), name="x"), keras.layers.Dense(6, name="d"),
                              keras.layers.Dense(2, name="out")], name="small")
    model.save(path)
    return model


@pytest.mark.parametrize("lang, words", [("en", "Weights: kept as the spec's initial"),
                                         ("zh", "权重：已保存为模型规格的初始权重")])
def test_spec_import_keeps_the_weights_and_says_so(capsys, tmp_path: Path, monkeypatch,
                                                   lang: str, words: str) -> None:
    monkeypatch.setenv("TFLAB_LANG", lang)
    model = _trained(tmp_path / "small.keras")
    out = tmp_path / "small.json"
    assert main(["spec", "import", str(tmp_path / "small.keras"), "--out", str(out)]) == 0
    said = capsys.readouterr().out
    spec = from_json(out.read_text())
    assert spec.weights.startswith("models/imported/small-") and spec.weights in said
    assert words in said and "2" in said and f"{model.count_params():,}" in said
    ws = default_workspace()
    x = np.random.default_rng(0).standard_normal((3, 4)).astype("float32")
    rebuilt = load_initial_weights(build_model(spec), spec, ws)
    assert np.max(np.abs(rebuilt(x).numpy() - model(x).numpy())) == 0.0

    assert main(["spec", "import", str(tmp_path / "small.keras")]) == 0   # JSON on stdout
    printed = capsys.readouterr()
    assert json.loads(printed.out)["weights"] == spec.weights and words in printed.err


def test_no_weights_imports_the_architecture_only(capsys, tmp_path: Path) -> None:
    _trained(tmp_path / "small.keras")
    out = tmp_path / "arch.json"
    argv = ["spec", "import", str(tmp_path / "small.keras"), "--no-weights", "--out", str(out)]
    assert main(argv) == 0
    assert "not kept (--no-weights)" in capsys.readouterr().out
    assert "weights" not in json.loads(out.read_text())
    assert not list(default_workspace().root.rglob("*.weights.h5"))


def test_spec_check_locates_a_missing_weights_file(capsys, tmp_path: Path) -> None:
    _trained(tmp_path / "small.keras")
    out = tmp_path / "small.json"
    assert main(["spec", "import", str(tmp_path / "small.keras"), "--out", str(out)]) == 0
    capsys.readouterr()
    assert main(["spec", "check", str(out)]) == 0
    spec = from_json(out.read_text())
    assert f"Initial weights: {spec.weights} (they fit the model)." in capsys.readouterr().out
    default_workspace().confine(spec.weights).unlink()
    assert main(["spec", "check", str(out)]) == 0               # opens as an architecture
    printed = capsys.readouterr()
    assert "Total params: 44" in printed.out
    assert f"initial weights file {spec.weights} is missing" in printed.err
    assert "opened as an architecture only" in printed.err
