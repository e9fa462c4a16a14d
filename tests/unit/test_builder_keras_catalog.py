"""The catalog is every built-in Keras layer: generated from the pinned Keras (the data file
cannot drift), each type made with its defaults and imported back to the same config."""

from __future__ import annotations

import json

import keras
import pytest

from tfcore.model.catalog import create_layer, get_type, layer_types
from tfcore.model.catalog_gen import SKIPPED, generate, layer_classes
from tfcore.model.catalog_keras import data, skipped
from tfcore.model.import_graph import entry_from_keras
from tfcore.model.params import RAW_KEY
from tfcore.model.roundtrip import config_diff
from tfcore.model.spec import LayerSpec

KERAS_TYPES = [n for n, k in layer_types().items() if k.keras_class]


def test_the_data_file_is_what_the_installed_keras_generates() -> None:
    assert data()["keras_version"] == keras.__version__ == "3.15.1"
    assert json.loads(json.dumps(generate())) == json.loads(json.dumps(data()))


def test_every_public_keras_layer_class_is_in_the_catalog_or_left_out_with_a_reason() -> None:
    classes = set(layer_classes())
    assert len(classes) >= 140
    assert set(SKIPPED) == set(skipped()) == {
        "Layer", "Wrapper", "InputLayer", "Lambda", "TFSMLayer", "JaxLayer", "FlaxLayer",
        "TorchModuleWrapper", "GRUCell", "LSTMCell", "SimpleRNNCell", "StackedRNNCells"}
    assert classes - set(SKIPPED) == set(KERAS_TYPES)
    assert len(KERAS_TYPES) == 131 and len(layer_types()) == 141
    for name in KERAS_TYPES:
        kind = get_type(name)
        assert kind.title["en"] and kind.title["zh"] and kind.help["zh"], name
        for param in kind.params:
            assert param.help["en"] and param.help["zh"], (name, param.name)
            assert param.check(param.default), (name, param.name, param.default)
    hand = get_type("Dense")
    assert [p.name for p in hand.params if not p.advanced][:3] == ["units", "activation",
                                                                    "use_bias"]
    assert {"trainable", "kernel_constraint"} <= {p.name for p in hand.params if p.advanced}
    assert get_type("ReLU").generated and get_type("ReLU").title["en"] == "ReLU"
    assert get_type("MultiHeadAttention").positional and not get_type("Add").positional
    assert "hard_sigmoid" in get_type("Dense").param("activation").choices


@pytest.mark.parametrize("name", KERAS_TYPES)
def test_every_keras_type_imports_back_to_the_same_config(name: str) -> None:
    layer = create_layer(LayerSpec(f"x_{name.lower()}", name))
    entry = entry_from_keras(keras.saving.serialize_keras_object(layer))
    assert entry.type == name and RAW_KEY not in entry.config
    again = create_layer(entry)
    assert config_diff(layer.get_config(), again.get_config()) == []


def test_values_no_field_holds_are_kept_as_raw_config() -> None:
    layer = keras.layers.Dense(3, lora_rank=2, kernel_initializer=keras.initializers.HeNormal(
        seed=5), kernel_regularizer=keras.regularizers.L1L2(0.1, 0.2), name="d")
    entry = entry_from_keras(keras.saving.serialize_keras_object(layer))
    assert entry.config[RAW_KEY] == {"lora_rank": 2, "lora_alpha": 2.0}
    assert entry.config["kernel_initializer"]["config"]["seed"] == 5
    assert entry.config["kernel_regularizer"]["config"] == {"l1": 0.1, "l2": 0.2}
    assert config_diff(layer.get_config(), create_layer(entry).get_config()) == []


def test_a_raw_config_naming_another_module_is_refused() -> None:
    from tfcore.model.spec import FUNCTIONAL, InputSpec, ModelSpec
    from tfcore.model.validate import validate

    evil = {"module": "os", "class_name": "system", "config": {}}
    spec = ModelSpec("m", FUNCTIONAL, (InputSpec("x", (3,)),), (
        LayerSpec("a", "Dense", {"units": 2, RAW_KEY: {"kernel_constraint": evil}},
                  inputs=("x",)),
        LayerSpec("b", "KerasRaw", {"keras": evil}, inputs=("a",)),
        LayerSpec("c", "Dense", {"kernel_initializer": {
            "class_name": "Lambda", "config": {}}}, inputs=("b",)),
        LayerSpec("d", "Dense", inputs=("c",), call={"args": [{"__input__": 3}]})),
        outputs=("d",))
    found = {(p.location, p.field, p.key) for p in validate(spec).problems}
    assert ("a", RAW_KEY, "spec.problem.raw_unsafe") in found
    assert ("b", "keras", "spec.problem.value") in found
    assert ("c", "kernel_initializer", "spec.problem.value") in found
    assert ("d", "call", "spec.problem.call_refs") in found
