"""Exported code with custom classes reloads in plain Keras; the hand-written sequential
container style (B1); B2's block as in the seed (420 parameters, a scalar; its
constant outside the weights, rebuilt from the seed on load);
importing a .keras whose custom class was written on the Custom code page."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tfcore.custom import TEMPLATES, TRUSTED_ENV, load_sources
from tfcore.errors import SpecError
from tfcore.model import build_model, from_dict, generate, get_preset, import_keras

SCRIPT_SAVE = """
import numpy as np, generated
model = generated.build_model()
x = np.random.default_rng(0).uniform(size=(3, 5)).astype("float32")
np.save("x.npy", x); np.save("y.npy", np.asarray(model(x)))
model.save("model.keras")
"""
SCRIPT_LOAD = """
import numpy as np, keras, generated   # importing the code registers its classes
model = keras.saving.load_model("model.keras")
assert np.allclose(np.asarray(model(np.load("x.npy"))), np.load("y.npy"), atol=1e-6)
print("RELOADED", model.count_params(), sorted({type(l).__name__ for l in model.layers}))
"""


@pytest.fixture()
def trusted(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(TRUSTED_ENV, "1")
    load_sources({"my_dense": TEMPLATES["my_dense"].source})
    yield
    load_sources({})


def _spec() -> dict:
    return {"format": 1, "name": "mixed", "kind": "sequential",
            "inputs": [{"name": "x", "shape": [5], "dtype": "float32"}],
            "layers": [{"name": "mine", "type": "custom.MyDense", "config": {"units": 4}},
                       {"name": "centre", "type": "MeanCenter", "config": {}},
                       {"name": "out", "type": "Dense", "config": {"units": 2}}]}


def _plain_python(folder: Path, script: str) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", TRUSTED_ENV)}
    env["TF_CPP_MIN_LOG_LEVEL"] = "3"
    done = subprocess.run([sys.executable, "-c", script], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@pytest.mark.parametrize("style", ["functional", "subclass", "container"])
def test_exported_custom_classes_reload_in_plain_keras(tmp_path: Path, trusted, style) -> None:
    code = generate(from_dict(_spec()), style)
    assert "register_keras_serializable(package='custom', name='MyDense')(MyDense)" in code
    assert "@keras.saving.register_keras_serializable(package=PACKAGE)" in code
    (tmp_path / "generated.py").write_text(code, encoding="utf-8")
    _plain_python(tmp_path, SCRIPT_SAVE)
    out = _plain_python(tmp_path, SCRIPT_LOAD)
    assert "RELOADED 34" in out         # MyDense 5*4+4, Dense 4*2+2
    assert "MyDense" in out and "MeanCenter" in out


def test_container_style_is_the_b1_my_sequential(tmp_path: Path) -> None:
    spec = get_preset("b1_mlp")
    code = generate(spec, "container")
    tree = ast.parse(code)
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef))
    assert cls.name == "MySequential" and ast.unparse(cls.bases[0]) == "keras.Model"
    assert any(isinstance(n, ast.For) for n in ast.walk(cls))       # calls blocks in order
    namespace: dict = {}
    exec(compile(code, "container.py", "exec"), namespace)
    written = namespace["build_model"]()
    built = build_model(spec)
    assert written.count_params() == built.count_params() == 20 * 256 + 256 + 256 * 10 + 10
    written.set_weights(built.get_weights())
    x = np.random.default_rng(1).uniform(size=(2, 20)).astype("float32")
    assert np.allclose(written(x).numpy(), built(x).numpy(), atol=1e-6)
    with pytest.raises(SpecError):
        generate(from_dict({**_spec(), "kind": "functional", "outputs": ["out"],
                            "layers": [{**entry, "inputs": [src]} for entry, src in zip(
                                _spec()["layers"], ["x", "x", "centre"])]}), "container")


def _seed_forward(block, x: np.ndarray) -> float:
    """The seed's forward pass in NumPy: flatten -> relu(X W + 1) -> Dense(20, relu) once ->
    halve while |sum| > 1 -> the sum."""
    h = np.maximum(x.reshape(len(x), -1) @ block.rand_weight + 1, 0)
    kernel, bias = block.dense.get_weights()
    h = np.maximum(h @ kernel + bias, 0)
    while np.abs(h).sum() > 1:
        h = h / 2
    return float(h.sum())


def test_b2_fixed_hidden_block_as_in_the_seed() -> None:
    """Issue 24 item 4: the seed's numbers, not near them: the fixed 20x20 weight is not a
    model parameter (420, not 820) and the block returns one scalar, shape ()."""
    model = build_model(get_preset("fixed_hidden"))
    block = model.layers[0]
    assert isinstance(block.rand_weight, np.ndarray) and block.rand_weight.shape == (20, 20)
    assert 0 <= block.rand_weight.min() and block.rand_weight.max() < 1        # U(0, 1)
    assert model.count_params() == 420 == 20 * 20 + 20
    assert [tuple(w.shape) for w in model.weights] == [(20, 20), (20,)]          # Dense only
    assert not model.non_trainable_weights
    assert tuple(model.outputs[0].shape) == ()
    x = np.random.default_rng(0).uniform(size=(2, 20)).astype("float32")
    value = model(x).numpy()
    assert value.shape == () and 0 < abs(float(value)) <= 1
    assert np.isclose(float(value), _seed_forward(block, x), atol=1e-5)


def test_b2_constant_is_the_same_for_a_seed_and_independent_of_the_input() -> None:
    from tfcore.model.layers import FixedHiddenMLP

    first = build_model(get_preset("fixed_hidden")).layers[0].rand_weight
    again = build_model(get_preset("fixed_hidden")).layers[0].rand_weight
    assert np.array_equal(first, again)
    assert np.array_equal(FixedHiddenMLP(seed=0).rand_weight, first)   # made in __init__
    assert not np.array_equal(FixedHiddenMLP(seed=1).rand_weight, first)
    block = FixedHiddenMLP()
    block(np.ones((2, 4, 5), "float32"))               # (2, 4, 5) flattens to 20 numbers
    assert block.rand_weight.shape == (20, 20) and block.count_params() == 420
    with pytest.raises(ValueError, match="20x20"):
        FixedHiddenMLP()(np.ones((2, 3), "float32"))
    with pytest.raises(ValueError, match="seed"):
        FixedHiddenMLP(seed=-1)


@pytest.mark.parametrize("preset, count", [("fixed_hidden", 420), ("nested_mlp", 4712)])
def test_b2_b3_save_load_and_export_keep_the_outputs(preset: str, count: int,
                                                     tmp_path: Path) -> None:
    """The constant is not in the weights file: loading rebuilds it from the seed kept in
    the config, so a loaded model and an exported SavedModel give the same scalar."""
    import keras
    import tensorflow as tf

    model = build_model(get_preset(preset))
    x = np.random.default_rng(2).uniform(size=(2, 20)).astype("float32")
    expected = model(x).numpy()
    assert expected.shape == () and model.count_params() == count
    model.save(tmp_path / "b.keras")
    back = keras.saving.load_model(tmp_path / "b.keras")
    assert back.count_params() == count
    assert np.array_equal(back(x).numpy(), expected)
    model.save_weights(tmp_path / "b.weights.h5")
    fresh = build_model(get_preset(preset))
    fresh.load_weights(tmp_path / "b.weights.h5")
    assert np.array_equal(fresh(x).numpy(), expected)
    model.export(str(tmp_path / "saved"), verbose=False)
    reloaded = tf.saved_model.load(str(tmp_path / "saved"))      # kept: it owns the variables
    served = reloaded.serve(x).numpy()
    assert served.shape == () and np.isclose(served, expected, atol=1e-6)


def test_the_constant_is_out_of_reach_of_every_weights_action() -> None:
    """Not a variable, so the Weights lab neither lists nor changes it."""
    from tfcore.weights import (
        InitChoice, add_constant, initialize_model, rewind, variable_table)

    model = build_model(get_preset("fixed_hidden"))
    block = model.layers[0]
    before = block.rand_weight.copy()
    paths = [v.path for v in variable_table(model).variables]
    assert paths and not [p for p in paths if "rand_weight" in p]
    for path in paths:
        add_constant(model, path, 1)
    initialize_model(model, InitChoice("ones"))
    rewind(model, seed=3)
    assert np.array_equal(block.rand_weight, before)
    assert not np.all(block.dense.kernel.numpy() == 1)       # rewound

def test_keras_file_with_a_page_written_class_imports(tmp_path: Path, trusted) -> None:
    model = build_model(from_dict(_spec()))
    path = tmp_path / "mine.keras"
    model.save(path)
    spec = import_keras(path)
    assert [e.type for e in spec.layers] == ["custom.MyDense", "MeanCenter", "Dense"]
    assert build_model(spec).count_params() == model.count_params()
    load_sources({})                        # the code is no longer loaded: named, refused
    with pytest.raises(SpecError) as info:
        import_keras(path)
    assert "custom>MyDense" in info.value.message and "Custom code page" in info.value.message
