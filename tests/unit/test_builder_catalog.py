"""The layer catalog: typed schemas, JSON round trip for every type, layers Keras accepts."""

from __future__ import annotations

import pytest

from tfcore.model.catalog import (
    CATEGORIES,
    create_layer,
    default_config,
    get_type,
    layer_types,
    type_names,
)
from tfcore.model.initializers import initializer_names
from tfcore.model.params import INIT, KINDS, REG
from tfcore.model.spec import FUNCTIONAL, SEQUENTIAL, InputSpec, LayerSpec, ModelSpec, from_json
from tfcore.model.validate import validate

ALL_TYPES = list(layer_types())
REQUIRED = {"Dense", "Conv1D", "Conv2D", "MaxPooling2D", "AveragePooling2D",
            "GlobalAveragePooling2D", "Flatten", "Reshape", "Dropout", "BatchNormalization",
            "LayerNormalization", "Activation", "Softmax", "Embedding", "LSTM", "GRU", "Add",
            "Concatenate", "Multiply", "Average", "MobileNetV2", "ResNet50", "VGG16",
            "EfficientNetB0", "Linear", "MeanCenter", "MyDense", "FixedHiddenMLP", "Block"}


def test_catalog_lists_every_required_type_with_typed_bilingual_params() -> None:
    assert REQUIRED <= set(ALL_TYPES)
    for name, kind in layer_types().items():
        assert kind.category in CATEGORIES
        assert kind.title["en"] and kind.title["zh"] and kind.help["en"] and kind.help["zh"]
        for param in kind.params:
            assert param.kind in KINDS, (name, param.name)
            assert param.help["en"] and param.help["zh"], (name, param.name)
            assert param.check(param.default), (name, param.name, param.default)
            if param.kind == "choice":
                assert param.choices


def test_weighted_layers_have_initializer_and_regularizer_fields() -> None:
    for name in ("Dense", "Conv1D", "Conv2D"):
        kinds = {p.name: p.kind for p in get_type(name).params}
        assert kinds["kernel_initializer"] == INIT and kinds["bias_initializer"] == INIT
        assert kinds["kernel_regularizer"] == REG
    dense_init = get_type("Dense").param("kernel_initializer")
    assert all(dense_init.check(n) for n in initializer_names())
    assert dense_init.check({"name": "random_normal", "params": {"stddev": 0.01}})
    assert not dense_init.check("not_an_initializer")
    assert not dense_init.check({"name": "random_normal", "params": {"bogus": 1}})


def _nondefault(type_name: str) -> dict:
    """A config that changes every main parameter it can from its default (the generated
    "more Keras options" keep theirs: their values depend on each other, e.g. groups)."""
    config = {}
    for param in get_type(type_name).params:
        if param.advanced:
            continue
        if param.kind == "int":
            base = int(param.default or 0)
            config[param.name] = base + 1 if param.maximum is None or \
                base + 1 <= param.maximum else base
        elif param.kind == "bool":
            config[param.name] = not param.default
        elif param.kind == "choice":
            config[param.name] = param.choices[-1]
        elif param.kind == INIT:
            config[param.name] = {"name": "random_normal", "params": {"stddev": 0.02}}
        elif param.kind == REG:
            config[param.name] = {"name": "l1_l2", "factor": 0.001}
        elif param.kind == "size":
            config[param.name] = [2] * param.length
        else:
            config[param.name] = param.default
    return config


@pytest.mark.parametrize("type_name", ALL_TYPES)
def test_spec_round_trip_for_every_catalog_type(type_name: str) -> None:
    kind = get_type(type_name)
    children = (LayerSpec("child", "Dense", {"units": 3}),) if kind.container else ()
    for config in (default_config(type_name), _nondefault(type_name)):
        entry = LayerSpec(f"my_{type_name.lower()}", type_name, config, layers=children,
                          inputs=("a", "b") if kind.min_inputs > 1 else ("a",))
        spec = ModelSpec("round_trip", FUNCTIONAL, (InputSpec("a", (4, 4)),
                                                     InputSpec("b", (4, 4))), (entry,),
                         outputs=(entry.name,), description="every field set")
        assert from_json(spec.to_json()) == spec
        problems = [p for p in validate(spec).problems
                    if p.key in ("spec.problem.value", "spec.problem.unknown_param")]
        assert problems == [], [str(p) for p in problems]


@pytest.mark.parametrize("type_name", [n for n in ALL_TYPES
                                       if layer_types()[n].category != "application"])
def test_every_non_application_type_creates_a_keras_layer(type_name: str) -> None:
    kind = get_type(type_name)
    children = [create_layer(LayerSpec("c", "Dense", {"units": 2}))] if kind.container else []
    layer = create_layer(LayerSpec(f"x_{type_name.lower()}", type_name, {}), children)
    assert layer.name == f"x_{type_name.lower()}"
    if not kind.generated and type_name != "Reshape":
        layer = create_layer(LayerSpec(f"y_{type_name.lower()}", type_name,
                                       _nondefault(type_name)), children)
        assert layer.name == f"y_{type_name.lower()}"


def test_initializer_and_regularizer_values_reach_keras() -> None:
    layer = create_layer(LayerSpec("d", "Dense", {
        "units": 3, "kernel_initializer": {"name": "constant", "params": {"value": 2.0}},
        "kernel_regularizer": {"name": "l2", "factor": 0.5}}))
    layer.build((None, 2))
    assert float(layer.kernel.numpy().min()) == 2.0 == float(layer.kernel.numpy().max())
    assert abs(float(layer.kernel_regularizer(layer.kernel)) - 0.5 * 6 * 4.0) < 1e-5


def test_unknown_type_is_refused_with_the_choices() -> None:
    from tfcore.errors import SpecError

    with pytest.raises(SpecError) as info:
        create_layer(LayerSpec("x", "Dens"))
    assert "Dens" in info.value.message and "Dense" in info.value.message
    assert "Dense" in type_names("core") and "Add" in type_names("merge")
    spec = ModelSpec("s", SEQUENTIAL, (InputSpec("x", (3,)),), (LayerSpec("d", "Dense"),))
    assert validate(spec).ok
