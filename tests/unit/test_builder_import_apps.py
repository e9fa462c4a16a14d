"""Anything built from built-in Keras layers imports: ``keras.applications`` models and
hand-made graphs with ops, call arguments, wrappers and raw config go import -> spec ->
build with the same Keras config and the same parameter count. Each application is built
once (CPU); ``bench/bench_import_apps.py`` checks every constructor."""

from __future__ import annotations

from pathlib import Path

import keras
import pytest

from tfcore.model.build import build_model
from tfcore.model.codegen import generate
from tfcore.model.keras_import import import_keras
from tfcore.model.presets import get_preset
from tfcore.model.roundtrip import config_diff, round_trip
from tfcore.model.summary import summarize
from tfcore.model.validate import validate

pytestmark = pytest.mark.slow


def test_mobilenet_v2_five_classes_through_a_keras_file(tmp_path: Path) -> None:
    original = keras.applications.MobileNetV2(weights=None, classes=5)
    assert original.count_params() == 2_264_389
    original.save(tmp_path / "mnv2.keras")
    spec = import_keras(tmp_path / "mnv2.keras", shown="mnv2.keras")
    assert validate(spec).ok and len(spec.layers) == 155 and spec.kind == "functional"
    rebuilt = build_model(spec)
    assert rebuilt.count_params() == 2_264_389
    assert config_diff(original.get_config(), rebuilt.get_config()) == []
    summary = summarize(spec)
    assert (summary.total, summary.trainable, summary.non_trainable) == \
        (2_264_389, 2_230_277, 34_112)
    relu6 = [e for e in spec.layers if e.type == "ReLU"]
    assert len(relu6) == 35 and relu6[0].config == {"max_value": 6.0}


@pytest.mark.parametrize("name,params", [("ResNet50", 25_636_712),
                                         ("EfficientNetB0", 5_330_571),
                                         ("DenseNet121", 8_062_504)])
def test_application_round_trip_keeps_config_and_parameters(name: str, params: int) -> None:
    result = round_trip(getattr(keras.applications, name)(weights=None))
    assert (result.original, result.rebuilt) == (params, params)
    assert result.diffs == () and result.ok
    assert validate(result.spec, param_limit=10**9).ok
    if name == "EfficientNetB0":   # its dropout layers are called with training=False
        calls = [e.call for e in result.spec.layers if e.call]
        assert {"args": [{"__input__": 0}], "kwargs": {"training": False}} in calls
        seeded = result.spec.layer("stem_conv").config["kernel_initializer"]
        assert seeded["class_name"] == "VarianceScaling"        # kept as Keras config


def test_our_mobilenet_v2_preset_saved_to_keras_imports(tmp_path: Path) -> None:
    build_model(get_preset("mobilenet_v2")).save(tmp_path / "preset.keras")
    spec = import_keras(tmp_path / "preset.keras")
    assert [e.type for e in spec.layers] == ["KerasRaw"]
    assert spec.layers[0].config["keras"]["class_name"] == "Functional"
    summary = summarize(spec)
    assert (summary.total, summary.trainable) == (2_264_389, 2_230_277)


def _everything_model() -> keras.Model:
    """Ops with constants, a call kwarg, attention called (x, x), a wrapper, a shared
    layer, a nested Sequential, a frozen layer, a seeded initializer, a constraint and a
    value only raw config holds."""
    L = keras.layers
    x = keras.Input((6, 4), name="seq")
    h = L.Bidirectional(L.LSTM(3, return_sequences=True), name="bi")(x)
    h = L.MultiHeadAttention(num_heads=2, key_dim=3, name="mha")(h, h)
    h = L.LayerNormalization(axis=[-1], name="ln")(h)
    h = h * 0.5 + 1.0
    h = L.Dropout(0.3, name="drop")(h, training=False)
    shared = L.Dense(5, kernel_initializer=keras.initializers.VarianceScaling(seed=3),
                     kernel_constraint=keras.constraints.MaxNorm(2.0), name="shared")
    a, b = shared(h), shared(L.Reshape((6, 6), name="again")(h))
    block = keras.Sequential([L.Conv1D(4, 2, padding="causal"), L.ReLU(6.0)], name="block")
    frozen = L.Dense(2, name="frozen", trainable=False)
    out = frozen(L.GlobalAveragePooling1D(name="gap")(block(L.Add(name="sum")([a, b]))))
    return keras.Model(x, out, name="everything")


def test_a_graph_with_ops_calls_wrappers_and_raw_config_round_trips(tmp_path: Path) -> None:
    model = _everything_model()
    model.save(tmp_path / "all.keras")
    spec = import_keras(tmp_path / "all.keras")
    types = {e.name: e.type for e in spec.layers}
    assert types["bi"] == "Bidirectional" and types["mha"] == "MultiHeadAttention"
    assert types["block"] == "Block" and types["shared_2"] == "Dense"
    assert spec.layer("shared_2").shares == "shared"
    assert spec.layer("ln").config["keras_config"] == {"axis": [-1]}
    assert spec.layer("frozen").config["trainable"] is False
    assert spec.layer("drop").call == {"args": [{"__input__": 0}], "kwargs": {"training": False}}
    assert sum(e.type == "KerasRaw" for e in spec.layers) == 2        # multiply, add ops
    rebuilt = build_model(spec)
    assert config_diff(model.get_config(), rebuilt.get_config()) == []
    assert rebuilt.count_params() == model.count_params() == 461
    # the builder page's summary: a raw op is no layer (no ``built``, no weights); the page
    # stopped with an AttributeError after importing MobileNetV3Small
    summary = summarize(spec)
    assert not summary.problems and summary.total == 461
    assert {r.name: r.params for r in summary.rows if types[r.name] == "KerasRaw"} \
        == {name: 0 for name, kind in types.items() if kind == "KerasRaw"}
    for style in ("functional", "subclass"):
        namespace: dict = {"__name__": "generated"}
        exec(generate(spec, style), namespace)
        assert namespace["build_model"]().count_params() == 461, style
