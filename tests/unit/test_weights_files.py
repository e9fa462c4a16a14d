"""Saving/loading weights, .npy export, the `weights` command, activation statistics."""

from __future__ import annotations

import json

import keras
import numpy as np
import pytest

from tests.unit.fixtures_weights import scenario_spec
from tfcore.cli import main
from tfcore.errors import WeightsError, WorkspaceError
from tfcore.model.build import build_model
from tfcore.model.presets import get_preset
from tfcore.weights.activations import activation_stats, model_input_shape, random_batch
from tfcore.weights.edit import add_constant, fill_slice
from tfcore.weights.table import export_tensor, load_weights, save_weights, variable_values
from tfcore.workspace import Workspace


@pytest.fixture()
def ws(tmp_path) -> Workspace:
    return Workspace(tmp_path / "ws").ensure()


def test_save_edit_load_restores_weights(ws) -> None:
    model = build_model(get_preset("mlp"))
    original = variable_values(model, "dense/kernel")
    path = save_weights(model, ws, "exports/start.weights.h5")
    assert path == ws.exports / "start.weights.h5" and path.is_file()
    add_constant(model, "dense/kernel", 2.0)
    load_weights(model, ws, "exports/start.weights.h5")
    np.testing.assert_array_equal(original, variable_values(model, "dense/kernel"))


def test_paths_are_confined_and_suffixes_checked(ws) -> None:
    model = build_model(get_preset("mlp"))
    with pytest.raises(WorkspaceError):
        save_weights(model, ws, "../outside.weights.h5")
    with pytest.raises(WeightsError, match=r"must end with \.weights\.h5"):
        save_weights(model, ws, "exports/w.h5")
    with pytest.raises(WeightsError, match="No weights file"):
        load_weights(model, ws, "exports/missing.weights.h5")


def test_loading_weights_of_another_model_changes_nothing(ws) -> None:
    other = build_model(get_preset("cnn"))
    save_weights(other, ws, "exports/cnn.weights.h5")
    model = build_model(get_preset("mlp"))
    before = [np.array(v.numpy()) for v in model.weights]
    with pytest.raises(WeightsError, match="do not fit this model"):
        load_weights(model, ws, "exports/cnn.weights.h5")
    assert all(np.array_equal(a, v.numpy()) for a, v in zip(before, model.weights))


def test_export_one_tensor_as_npy_without_pickle(ws) -> None:
    model = build_model(get_preset("mlp"))
    fill_slice(model, "logits/bias", "0:3", 4.0)
    path = export_tensor(model, "logits/bias", ws, "exports/bias.npy")
    loaded = np.load(path, allow_pickle=False)
    assert loaded.shape == (10,) and loaded[:3].tolist() == [4.0, 4.0, 4.0]


def _cli(capsys, *argv: str) -> tuple[int, dict | str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, (json.loads(out) if code == 0 else err)


def test_cli_weights_for_spec_json_and_keras_file(tmp_path, capsys) -> None:
    spec_path = tmp_path / "tied.json"
    spec_path.write_text(scenario_spec("tied").to_json(), encoding="utf-8")
    code, doc = _cli(capsys, "weights", str(spec_path))
    assert code == 0
    assert doc["total_params"] == 25 and len(doc["variables"]) == 4
    assert len(doc["layers"]) == 4 and len(doc["shared_layers"]) == 1
    assert "mean" in doc["variables"][0]["stats"]

    model = build_model(get_preset("mlp"))
    keras_path = tmp_path / "mlp.keras"
    model.save(keras_path)
    code, doc = _cli(capsys, "weights", str(keras_path), "--no-stats")
    assert code == 0 and doc["total_params"] == 79_510 and "stats" not in doc["variables"][0]


def test_cli_deferred_build_and_errors(tmp_path, capsys) -> None:
    spec_path = tmp_path / "deferred.json"
    spec_path.write_text(scenario_spec("deferred").to_json(), encoding="utf-8")
    code, doc = _cli(capsys, "weights", str(spec_path))
    assert code == 0 and doc["deferred"] and doc["variables"] == []
    code, doc = _cli(capsys, "weights", str(spec_path), "--input-shape", "2,20")
    assert [v["shape"] for v in doc["variables"]] == [[20, 256], [256], [256, 10], [10]]
    code, err = _cli(capsys, "weights", str(tmp_path / "missing.json"))
    assert code == 2 and "No such file" in err
    (tmp_path / "x.txt").write_text("x")
    code, err = _cli(capsys, "weights", str(tmp_path / "x.txt"))
    assert code == 2 and ".keras" in err


def test_activation_stats_find_dead_relus() -> None:
    model = keras.Sequential([keras.Input((6,)),
                              keras.layers.Dense(5, activation="relu", name="hidden"),
                              keras.layers.Dense(2, name="out")])
    model.get_layer("hidden").bias.assign(np.full(5, -100.0, "float32"))
    batch = random_batch(model_input_shape(model), 16)
    stats = activation_stats(model, batch)
    assert [s.layer for s in stats] == ["hidden", "out"]
    assert stats[0].dead_share == 1.0 and stats[0].zero_share == 1.0
    model.get_layer("hidden").bias.assign(np.full(5, 100.0, "float32"))
    alive = activation_stats(model, batch)[0]
    assert alive.dead_share == 0.0 and alive.mean > 90
    with pytest.raises(WeightsError, match="does not fit the model"):
        activation_stats(model, np.zeros((4, 3), "float32"))


def test_activation_stats_on_functional_model() -> None:
    inputs = keras.Input((4,), name="x")
    hidden = keras.layers.Dense(3, activation="relu", name="h")(inputs)
    model = keras.Model(inputs, keras.layers.Dense(1, name="y")(hidden))
    stats = activation_stats(model, random_batch((4,), 8))
    assert [s.layer for s in stats] == ["h", "y"] and stats[1].shape == (8, 1)
