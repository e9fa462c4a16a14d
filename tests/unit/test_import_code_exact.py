"""Imported models come back exactly through their code: every catalog type is written so
that Keras makes the same layer (every argument Keras requires, every value that differs
from Keras's own default), and a ``.keras`` file imported and written in each style builds,
in a fresh namespace, a model with the same parameter count and, given the same weights,
the same outputs (max abs difference 0). ``bench/bench_import_apps.py`` checks every
``keras.applications`` constructor."""

from __future__ import annotations

from pathlib import Path

import keras
import pytest

from tfcore.model.catalog import create_layer, get_type, layer_types
from tfcore.model.codegen import STYLES, generate, layer_source
from tfcore.model.codegen_custom import custom_classes
from tfcore.model.import_graph import entry_from_keras
from tfcore.model.keras_import import import_keras
from tfcore.model.roundtrip import (
    code_round_trip,
    config_diff,
    fixed_inputs,
    max_output_diff,
    run_generated,
)
from tfcore.model.spec import SEQUENTIAL, InputSpec, LayerSpec, ModelSpec
from tfcore.model.spec_ops import new_layer

SMALL_IMAGE = (32, 32, 3)


def _one_layer_spec(entry: LayerSpec) -> ModelSpec:
    return ModelSpec("one", SEQUENTIAL, (), (entry,))


def _written_layer(entry: LayerSpec, shape: tuple | None) -> keras.layers.Layer:
    """The layer the generated constructor call makes, run in a fresh namespace with the
    generated classes (the tutorials' layers are written out in full)."""
    spec = _one_layer_spec(entry)
    source = "\n".join(["import keras", custom_classes(spec),
                        f"layer = {layer_source(entry, {entry.name: shape}, spec)}"])
    namespace: dict = {"__name__": "generated"}
    exec(compile(source, "<generated>", "exec"), namespace)
    return namespace["layer"]


def _compare(made: keras.layers.Layer, written: keras.layers.Layer, entry: LayerSpec) -> list:
    if get_type(entry.type).wants_input_shape:   # an application: a whole model
        return [] if made.count_params() == written.count_params() else ["parameters"]
    diffs = config_diff(made.get_config(), written.get_config())
    if "seed" not in entry.config:   # a seed drawn at construction differs every time
        diffs = [d for d in diffs if not d.startswith(".seed:")]
    return diffs


def test_every_catalog_type_is_written_with_what_keras_requires() -> None:
    """For each type, a new entry and the entry imported from its Keras layer: the code
    makes a layer with the Keras config the build makes (before, ``Activation`` lost its
    required activation: TypeError)."""
    failures = []
    for name in layer_types():
        kind = get_type(name)
        shape = SMALL_IMAGE if kind.wants_input_shape else None
        fresh = new_layer(_one_layer_spec(LayerSpec("x", "Dense")), name)
        made = create_layer(fresh, input_shape=shape)
        entries = [fresh]
        if kind.keras_class:
            entries.append(entry_from_keras(keras.saving.serialize_keras_object(made)))
        for entry in entries:
            try:
                written = _written_layer(entry, shape)
            except Exception as exc:  # noqa: BLE001 - collected, all named at once
                failures.append(f"{name}: {type(exc).__name__}: {str(exc)[:160]}")
                continue
            failures += [f"{name}: {d}" for d in _compare(made, written, entry)[:2]]
        if kind.wants_input_shape:
            keras.backend.clear_session()
    assert failures == []


def test_activation_keeps_its_argument_through_import_and_code() -> None:
    layer = keras.layers.Activation("relu", name="conv1_relu")
    entry = entry_from_keras(keras.saving.serialize_keras_object(layer))
    assert entry.config == {"activation": "relu"}
    source = layer_source(entry, {}, _one_layer_spec(entry))
    assert source == "keras.layers.Activation(activation='relu', name='conv1_relu')"


def _chain() -> keras.Model:
    """A chain of layers whose Keras defaults differ from the catalog's or that Keras
    requires: every style can write it."""
    L = keras.layers
    return keras.Sequential([
        keras.Input((8, 8, 3), name="image"),
        L.Conv2D(4, 3, padding="same", name="conv"), L.Activation("relu", name="act"),
        L.BatchNormalization(name="bn"), L.MaxPooling2D(name="pool"),
        L.Flatten(name="flat"), L.Dropout(0.5, name="drop"), L.Dense(3, name="dense"),
        L.Activation("softmax", name="probs")], name="chain")


def _case(model: keras.Model, folder: Path, styles: tuple[str, ...]) -> None:
    model.save(folder / "model.keras")
    spec = import_keras(folder / "model.keras")
    for style in styles:
        result = code_round_trip(model, spec, style)
        assert (result.style, result.rebuilt) == (style, model.count_params())
        assert result.max_diff == 0.0, style
    fresh = run_generated(generate(spec, styles[0]))        # the weights make the match
    assert max_output_diff(model, fresh, fixed_inputs(model)) > 0


def test_a_chain_in_every_style_gives_the_same_outputs(tmp_path: Path) -> None:
    _case(_chain(), tmp_path, STYLES)


@pytest.mark.parametrize("name", ["ResNet50", "MobileNetV2", "MobileNetV3Small"])
def test_applications_from_keras_files_give_the_same_outputs(name: str, tmp_path: Path) -> None:
    """Logits (a softmax of random weights is flat): before, ResNet50's code stopped at
    ``Activation(name='conv1_relu')`` with a TypeError, and MobileNetV3Small's spec was
    refused (its head's pooling keeps its axes; its squeeze-and-excite blocks multiply
    (h, w, c) by (1, 1, c))."""
    model = getattr(keras.applications, name)(weights=None, input_shape=SMALL_IMAGE,
                                              classes=10, classifier_activation=None)
    _case(model, tmp_path, ("functional", "subclass"))
    keras.backend.clear_session()
