"""Import: .keras files become specs (safe mode), unknown layers and Lambda are refused."""

from __future__ import annotations

from pathlib import Path

import keras
import pytest

from tfcore.errors import SpecError
from tfcore.model.build import build_model
from tfcore.model.keras_import import import_keras, model_to_spec
from tfcore.model.presets import get_preset
from tfcore.model.spec import FUNCTIONAL, InputSpec, LayerSpec, ModelSpec
from tfcore.model.summary import summarize
from tfcore.model.validate import validate


@pytest.mark.parametrize("name", ["mlp", "cnn", "mlp_functional", "nested_blocks",
                                  "linear_custom", "my_dense", "dense1_zero"])
def test_keras_file_round_trip(name: str, tmp_path: Path) -> None:
    spec = get_preset(name)
    path = tmp_path / f"{name}.keras"
    build_model(spec).save(path)
    back = import_keras(path)
    assert validate(back).ok
    assert summarize(back).total == summarize(spec).total
    assert [e.type for e in back.all_layers()] == [e.type for e in spec.all_layers()]
    if name == "dense1_zero":
        assert back.layers[0].config["kernel_initializer"] == "zeros"


def test_functional_shared_layer_and_initializer_params_survive(tmp_path: Path) -> None:
    spec = ModelSpec("branchy", FUNCTIONAL, (InputSpec("x", (8,)),), (
        LayerSpec("a", "Dense", {"units": 8}, inputs=("x",)),
        LayerSpec("b", "Dense", {"units": 8, "kernel_initializer": {
            "name": "random_normal", "params": {"stddev": 0.01}},
            "kernel_regularizer": {"name": "l2", "factor": 0.1}}, inputs=("x",)),
        LayerSpec("a2", "Dense", inputs=("b",), shares="a"),
        LayerSpec("sum", "Add", inputs=("a", "a2"))), outputs=("sum",))
    build_model(spec).save(tmp_path / "b.keras")
    back = import_keras(tmp_path / "b.keras")
    assert back.kind == FUNCTIONAL and back.outputs == ("sum",)
    shared = [e for e in back.layers if e.shares]
    assert len(shared) == 1 and shared[0].shares == "a" and shared[0].inputs == ("b",)
    b = back.layer("b")
    assert b.config["kernel_initializer"] == {"name": "random_normal",
                                              "params": {"stddev": 0.01}}
    assert b.config["kernel_regularizer"] == {"name": "l2", "factor": pytest.approx(0.1)}
    assert summarize(back).total == summarize(spec).total


def test_lambda_layer_is_refused_by_safe_mode(tmp_path: Path) -> None:
    model = keras.Sequential([keras.Input((3,)), keras.layers.Lambda(lambda x: x * 2)])
    model.save(tmp_path / "evil.keras")
    with pytest.raises(SpecError) as info:
        import_keras(tmp_path / "evil.keras")
    assert info.value.key == "spec.import_unsafe"


def test_first_layer_outside_the_catalog_is_named(tmp_path: Path) -> None:
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2, name="ok"),
                              keras.layers.UnitNormalization(name="unit_norm")])
    with pytest.raises(SpecError) as info:
        model_to_spec(model)
    assert info.value.params == {"layer": "unit_norm", "type": "UnitNormalization"}
    (tmp_path / "junk.keras").write_bytes(b"not a zip")
    with pytest.raises(SpecError) as info:
        import_keras(tmp_path / "junk.keras")
    assert info.value.key == "spec.import_not_keras"           # not "File not found"
    assert info.value.params == {"name": "junk.keras"} and str(tmp_path) not in str(info.value)
