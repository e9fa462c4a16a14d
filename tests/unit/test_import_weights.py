"""An imported ``.keras`` file keeps its weights: they are saved in the workspace as the
spec's initial weights, so Try it computes what the file computes, a model built from the
spec starts from them (same first loss), and the exported code given them agrees."""

from __future__ import annotations

import re
from pathlib import Path

import keras
import numpy as np
import pytest

from tfcore.errors import SpecError
from tfcore.model.build import build_model
from tfcore.model.codegen import generate
from tfcore.model.keras_import import import_keras_weights, load_initial_weights
from tfcore.model.roundtrip import max_output_diff, run_generated
from tfcore.model.spec import from_dict, from_json
from tfcore.model.try_it import try_it
from tfcore.workspace import default_workspace


def _trained(folder: Path) -> tuple[keras.Model, Path]:
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((64, 6)).astype("float32"), rng.integers(0, 3, 64)
    model = keras.Sequential([keras.Input((6,), name="x"),
                              keras.layers.Dense(8, activation="relu", name="hidden"),
                              keras.layers.Activation("relu", name="act"),
                              keras.layers.Dense(3, name="logits")], name="trained")
    model.compile("adam", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    model.fit(x, y, epochs=2, batch_size=16, verbose=0)
    model.save(folder / "trained.keras")
    return model, folder / "trained.keras"


def test_an_imported_file_keeps_its_weights(tmp_path: Path) -> None:
    model, path = _trained(tmp_path)
    ws = default_workspace()
    result = import_keras_weights(path, ws, shown="trained.keras")
    assert (result.layers, result.params) == (3, model.count_params())
    assert re.fullmatch(r"models/imported/trained-[0-9a-f]{12}\.weights\.h5", result.weights)
    assert ws.confine(result.weights).is_file()
    spec = from_json(result.spec.to_json())               # the spec file names them
    assert spec.weights == result.weights and spec == result.spec

    tried = try_it(spec, [(4, 6)], seed=3)                # Try it: the file's outputs
    assert np.max(np.abs(tried.outputs[0] - model(tried.inputs[0]).numpy())) == 0.0

    rebuilt = load_initial_weights(build_model(spec), spec, ws)   # Train starts here
    x = np.random.default_rng(1).standard_normal((16, 6)).astype("float32")
    y = np.arange(16) % 3
    loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    assert float(loss(y, rebuilt(x))) == float(loss(y, model(x)))

    for style in ("sequential", "functional", "subclass", "container"):   # the code view
        code = run_generated(generate(spec, style), weights=str(ws.confine(spec.weights)))
        assert max_output_diff(model, code, [x]) == 0.0, style


def test_a_spec_cannot_name_weights_outside_the_workspace(tmp_path: Path) -> None:
    base = {"name": "m", "kind": "sequential", "inputs": [{"name": "x", "shape": [2]}],
            "layers": [{"name": "d", "type": "Dense", "config": {"units": 1}}]}
    assert from_dict({**base, "weights": "models/a.weights.h5"}).weights == "models/a.weights.h5"
    for bad in ("../../etc/a.weights.h5", "/tmp/a.weights.h5", "models/a.npy", 3):
        with pytest.raises(SpecError):
            from_dict({**base, "weights": bad})
