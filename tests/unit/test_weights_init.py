"""Initialization (B5), the custom initializer, seeds and rewind."""

from __future__ import annotations

import math

import keras
import numpy as np
import pytest

from tests.unit.fixtures_weights import scenario_model
from tfcore.errors import WeightsError
from tfcore.model.build import build_model
from tfcore.model.initializers import INITIALIZERS, make_initializer
from tfcore.model.presets import get_preset
from tfcore.weights.edit import add_constant
from tfcore.weights.init import (
    InitChoice,
    initialize_layer,
    initialize_model,
    initialize_variable,
    rewind,
)
from tfcore.weights.table import variable_values


@pytest.fixture()
def mlp():
    return build_model(get_preset("mlp"))


def _values(model) -> list[np.ndarray]:
    return [np.array(v.numpy()) for v in model.weights]


def test_b5_random_normal_kernel_zero_bias(mlp) -> None:
    add_constant(mlp, "dense/bias", 3.0)
    report = initialize_layer(mlp, "dense", InitChoice("random_normal",
                                                       {"mean": 0.0, "stddev": 0.01}, 7),
                              bias_choice=InitChoice("zeros"))
    kernel = report.changes[0]
    assert kernel.path == "dense/kernel"
    assert abs(kernel.after.mean) < 5e-4
    assert kernel.after.std == pytest.approx(0.01, rel=0.03)
    assert report.changes[1].before.mean == pytest.approx(3.0)
    assert np.all(variable_values(mlp, "dense/bias") == 0)


def test_b5_constant_one_everywhere(mlp) -> None:
    report = initialize_model(mlp, InitChoice("constant", {"value": 1.0}))
    assert len(report.changes) == 4
    assert all(np.all(v == 1.0) for v in _values(mlp))


def test_b5_glorot_for_one_layer_constant_for_another(mlp) -> None:
    initialize_layer(mlp, "dense", InitChoice("glorot_uniform", seed=1))
    initialize_layer(mlp, "logits", InitChoice("constant", {"value": 1.0}))
    kernel = variable_values(mlp, "dense/kernel")
    limit = math.sqrt(6 / (784 + 100))
    assert np.abs(kernel).max() <= limit and kernel.std() > limit / 3
    assert np.all(variable_values(mlp, "logits/kernel") == 1.0)


def test_b5_custom_initializer_zeroes_small_values(mlp) -> None:
    assert "tutorial_custom" in INITIALIZERS
    initialize_variable(mlp, "dense/kernel", InitChoice("tutorial_custom", seed=3))
    kernel = variable_values(mlp, "dense/kernel")
    magnitude = np.abs(kernel)
    assert not np.any((magnitude > 0) & (magnitude < 5))
    assert magnitude.max() <= 10 and (kernel < -5).any() and (kernel > 5).any()
    assert np.mean(kernel == 0) == pytest.approx(0.5, abs=0.02)


def test_custom_initializer_saves_and_loads_with_the_model(tmp_path) -> None:
    init = make_initializer("tutorial_custom", {"threshold": 2.0}, seed=4)
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4, kernel_initializer=init)])
    path = tmp_path / "custom.keras"
    model.save(path)
    loaded = keras.saving.load_model(path, safe_mode=True)
    restored = loaded.layers[0].kernel_initializer
    assert type(restored).__name__ == "ZeroedUniform"
    assert restored.get_config()["threshold"] == 2.0
    assert keras.saving.get_registered_name(type(restored)) == "tflab>ZeroedUniform"
    np.testing.assert_array_equal(loaded.layers[0].kernel.numpy(), model.layers[0].kernel.numpy())


def test_same_seed_same_values_different_seed_different(mlp) -> None:
    choice = InitChoice("he_normal", seed=11)
    initialize_layer(mlp, "dense", choice)
    first = _values(mlp)
    initialize_layer(mlp, "dense", InitChoice("he_normal", seed=12))
    other = _values(mlp)
    initialize_layer(mlp, "dense", choice)
    again = _values(mlp)
    assert np.array_equal(first[0], again[0])
    assert not np.array_equal(first[0], other[0])


def test_rewind_restores_the_initial_weights_of_a_seed(mlp) -> None:
    rewind(mlp, 5)
    start = _values(mlp)
    add_constant(mlp, "dense/kernel", 1.0)
    initialize_layer(mlp, "logits", InitChoice("ones"))
    report = rewind(mlp, 5)
    assert all(np.array_equal(a, b) for a, b in zip(start, _values(mlp)))
    assert report.changes[0].before.mean != report.changes[0].after.mean
    rewind(mlp, 6)
    assert not np.array_equal(start[0], _values(mlp)[0])


def test_initializer_that_cannot_fill_a_shape_changes_nothing(mlp) -> None:
    before = _values(mlp)
    with pytest.raises(WeightsError, match="cannot fill dense/bias"):
        initialize_layer(mlp, "dense", InitChoice("identity"))
    assert all(np.array_equal(a, b) for a, b in zip(before, _values(mlp)))


def test_unknown_initializer_layer_and_bad_params_are_refused(mlp) -> None:
    with pytest.raises(WeightsError, match="Unknown initializer"):
        initialize_model(mlp, InitChoice("magic"))
    with pytest.raises(WeightsError, match="No layer 'softmax' with weights"):
        initialize_layer(mlp, "softmax", InitChoice("zeros"))
    with pytest.raises(WeightsError, match="stddev must be >= 0"):
        make_initializer("random_normal", {"stddev": -1.0})
    with pytest.raises(WeightsError, match="minval must not exceed maxval"):
        make_initializer("random_uniform", {"minval": 1.0, "maxval": 0.0})


def test_tied_layer_initialized_once(tmp_path) -> None:
    model = scenario_model("tied")
    shared = model.layers[1].name
    report = initialize_layer(model, shared, InitChoice("ones"))
    assert len(report.changes) == 2
    assert np.all(model.layers[2].kernel.numpy() == 1.0)


def test_spec_with_custom_initializer_saves_and_loads_in_a_fresh_process(tmp_path) -> None:
    import json
    import subprocess
    import sys

    from tests.conftest import ROOT
    from tfcore.model.spec import InputSpec, LayerSpec, ModelSpec

    spec = ModelSpec(name="custom_init", kind="sequential", inputs=(InputSpec("x", (30,)),),
                     layers=(LayerSpec("wide", "Dense", {"units": 40,
                                                         "kernel_initializer": "tutorial_custom"}),))
    model = build_model(spec)
    kernel = model.get_layer("wide").kernel.numpy()
    assert not np.any((np.abs(kernel) > 0) & (np.abs(kernel) < 5))
    path = tmp_path / "custom.keras"
    model.save(path)
    done = subprocess.run([sys.executable, "-m", "tfcore", "weights", str(path)], cwd=ROOT,
                          capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-2000:]
    stats = json.loads(done.stdout)["variables"][0]["stats"]
    assert stats["zero_share"] == pytest.approx(float(np.mean(kernel == 0)))
    assert stats["max"] == pytest.approx(float(kernel.max()))
