"""Issue 24.2: Train fine-tunes an imported model from the file's weights.

A trained ``.keras`` file is imported (its weights kept as the spec's initial weights) and a
real run is started from the spec (a worker process, a temporary runs folder). Its first-step
loss equals the loss the original Keras model has on the run's first batch (same rows, same
loss function): the run started from the file's weights, not from the seed, which gives a
loss far away. status.json records where the weights came from; a run whose weights file is
gone fails with the located message. Waits are for states, not time.
"""

from __future__ import annotations

import json
from pathlib import Path

import keras
import numpy as np

from tests.unit.fixtures_train import train_records
from tfcore.model import import_keras_weights
from tfcore.training import jobs
from tfcore.workspace import default_workspace

STEPS, BATCH, SEED = 2, 64, 1
WAIT = 300.0
TOLERANCE = 1e-5   # float32 both sides, one batch mean; only the order of the sums differs


def _training() -> dict:
    return dict(steps=STEPS, batch_size=BATCH, seed=SEED, ckpt_every=10, loop="fit",
                mixed_precision=False)


def _trained_file(folder: Path) -> tuple[keras.Model, Path]:
    """A small digits classifier whose logits favour class 3 (far from a fresh model)."""
    keras.utils.set_random_seed(7)
    model = keras.Sequential([keras.Input((28, 28, 1), name="image"),
                              keras.layers.Flatten(name="flatten"),
                              keras.layers.Dense(16, activation="relu", name="hidden"),
                              keras.layers.Dense(10, name="logits"),
                              keras.layers.Softmax(name="softmax")], name="digits_small")
    kernel, bias = model.get_layer("logits").get_weights()
    bias[3] = 6.0
    model.get_layer("logits").set_weights([kernel, bias])
    path = folder / "digits_small.keras"
    model.save(path)
    return model, path


def _first_batch_loss(request: dict, model: keras.Model | None) -> float:
    """The loss of the run's first batch under ``model`` (None: the spec built with the
    run's seed and no file), computed as the run computes it."""
    from tfcore.data import load_dataset
    from tfcore.training import RunRequest
    from tfcore.training.config import make_loss
    from tfcore.training.lifecycle import build_model
    from tfcore.training.plan import epoch_order

    parsed = RunRequest.from_dict(request)
    config = parsed.train_config()
    bundle = load_dataset(parsed.dataset)
    rows = epoch_order(len(bundle.x_train), SEED, 0, config.shuffle)[:BATCH]
    x, y = bundle.x_train[rows], bundle.y_train[rows]
    if model is None:
        keras.utils.set_random_seed(SEED)
        model = build_model(parsed.spec, bundle.x_train)
    return float(make_loss(config.loss)(y, model(x)))


def _status(root: Path, run_id: str) -> dict:
    return json.loads((root / run_id / "status.json").read_text())


def test_a_run_from_an_imported_spec_starts_from_the_files_weights(tmp_path: Path) -> None:
    ws = default_workspace().ensure()
    original, path = _trained_file(tmp_path)
    spec = import_keras_weights(path, ws, shown=path.name).spec
    request = {"spec": spec.to_dict(), "dataset": {"name": "digits28"},
               "training": _training(), "device": {"kind": "cpu"}}
    runs = tmp_path / "runs"
    run_id = jobs.start_run(runs, request)
    assert jobs.wait_for(runs, run_id, timeout=WAIT) == "finished", \
        _status(runs, run_id).get("traceback")
    first = train_records(runs, run_id)[0]
    expected, seeded = _first_batch_loss(request, original), _first_batch_loss(request, None)
    print(f"first-step loss: run {first['loss']:.7f}, original Keras model on the same batch "
          f"{expected:.7f}, seeded initialization {seeded:.7f}")
    assert abs(expected - seeded) > 1.0                    # the check can tell them apart
    assert first["step"] == 1 and abs(first["loss"] - expected) < TOLERANCE
    status = _status(runs, run_id)
    assert status["started_from"] == {"weights": spec.weights, "from": "spec"}
    assert json.loads((runs / run_id / "run.json").read_text())["spec"]["weights"] \
        == spec.weights

    ws.confine(spec.weights).unlink()                      # the file is gone: located failure
    gone = jobs.start_run(runs, request)
    assert jobs.wait_for(runs, gone, timeout=WAIT) == "failed"
    error = json.dumps(_status(runs, gone), ensure_ascii=False)
    assert f"initial weights file {spec.weights} is missing" in error, error
