"""Exported code with custom classes reloads in plain Keras; the hand-written sequential
container style (B1); B2's block as in the seed, its constant kept by the Weights lab;
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
from tfcore.errors import SpecError, WeightsError
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


def test_b2_fixed_hidden_block_as_in_the_seed() -> None:
    model = build_model(get_preset("fixed_hidden"))
    block = model.layers[0]
    assert block.rand_weight.shape == (20, 20) and not block.rand_weight.trainable
    assert model.count_params() == 820 and len(model.trainable_weights) == 2
    x = np.random.default_rng(0).uniform(size=(2, 20)).astype("float32")
    value = model(x).numpy()
    # the seed: flatten -> relu(X W + 1) -> Dense(20, relu) once -> halve while |sum| > 1
    h = np.maximum(x @ block.rand_weight.numpy() + 1, 0)
    kernel, bias = block.dense.get_weights()
    h = np.maximum(h @ kernel + bias, 0)
    while np.abs(h).sum() > 1:
        h = h / 2
    assert value.shape == (1,) and abs(value[0]) <= 1
    assert np.isclose(value[0], h.sum(), atol=1e-5)


def test_the_constant_stays_constant_under_every_weights_action() -> None:
    from tfcore.weights import (
        InitChoice, add_constant, initialize_layer, initialize_model, initialize_variable,
        rewind, set_element)

    model = build_model(get_preset("fixed_hidden"))
    constant = model.layers[0].rand_weight
    before = constant.numpy().copy()
    path = constant.path
    for action in (lambda: initialize_variable(model, path, InitChoice("zeros")),
                   lambda: set_element(model, path, "0, 0", 42),
                   lambda: add_constant(model, path, 1)):
        with pytest.raises(WeightsError) as info:
            action()
        assert info.value.key == "errors.weights_constant"
    initialize_model(model, InitChoice("ones"))
    initialize_layer(model, model.layers[0].name, InitChoice("ones"))
    rewind(model, seed=3)
    assert np.array_equal(constant.numpy(), before)
    assert not np.all(model.layers[0].dense.kernel.numpy() == 1)       # rewound


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
