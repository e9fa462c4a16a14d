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


class ScaleByTwo(keras.layers.Layer):
    """A user's own layer (not registered): its class must be named when refused."""

    def call(self, inputs):
        return inputs * 2.0


def test_a_custom_class_is_named_with_how_to_make_it_importable(tmp_path: Path) -> None:
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2, name="ok"),
                              ScaleByTwo(name="twice")])
    with pytest.raises(SpecError) as info:
        model_to_spec(model)
    assert info.value.key == "spec.import_custom_class"
    assert "ScaleByTwo" in info.value.params["cls"]
    assert "register_keras_serializable" in info.value.message
    registered = keras.saving.register_keras_serializable(package="tests_pkg")(
        type("Doubler", (ScaleByTwo,), {}))
    keras.Sequential([keras.Input((3,)), registered(name="d")]).save(tmp_path / "c.keras")
    keras.saving.get_custom_objects().pop("tests_pkg>Doubler")     # a fresh server
    with pytest.raises(SpecError) as info:
        import_keras(tmp_path / "c.keras", shown="upload.keras")
    assert info.value.key == "spec.import_custom_class"
    assert info.value.params == {"name": "upload.keras", "cls": "tests_pkg>Doubler"}
    assert "register_keras_serializable" in info.value.message
    assert str(tmp_path) not in info.value.message


def test_a_damaged_file_is_not_file_not_found(tmp_path: Path) -> None:
    (tmp_path / "junk.keras").write_bytes(b"not a zip")
    with pytest.raises(SpecError) as info:
        import_keras(tmp_path / "junk.keras")
    assert info.value.key == "spec.import_not_keras"           # not "File not found"
    assert info.value.params == {"name": "junk.keras"} and str(tmp_path) not in str(info.value)
