"""Issue 22, item 1: one run lifecycle for a single process and for every worker of a cluster.

The same request (initial weights from a ``.weights.h5`` file in the workspace, mixed
precision asked for) trains locally and on a 2-process loopback cluster, at once. Both honour
the initial weights: their first-step loss equals the loss of those weights on the first
batch (computed here from the file, same seed and data) and is far from the loss of the
seeded initialization. Both record the dtype policy they trained in (``mixed_float16`` where
the process sees a GPU; on a CPU ``float32`` with a note). Waits are for states, not time.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.unit.fixtures_train import mlp_request, train_records
from tfcore.rundir import RunStore
from tfcore.training import jobs

STEPS, BATCH, SEED = 2, 64, 1
WAIT = 300.0
# float32 on both sides: the cluster averages two half-batch means, the local run takes one
# mean over the batch (round-off only). Under mixed_float16 (a GPU) float16 activations.
TOLERANCE = {"float32": 1e-3, "mixed_float16": 2e-2}


def _training(**extra) -> dict:
    return dict(steps=STEPS, batch_size=BATCH, seed=SEED, ckpt_every=10, loop="fit",
                mixed_precision=True) | extra


def _first_batch_loss(weights: Path | None) -> float:
    """The loss of the run's first batch with the weights in ``weights`` (None: the model
    the seed alone gives), computed here as the run's loss function computes it."""
    import keras

    from tfcore.data import load_dataset
    from tfcore.training import RunRequest
    from tfcore.training.config import make_loss
    from tfcore.training.lifecycle import build_model
    from tfcore.training.plan import epoch_order

    request = RunRequest.from_dict(mlp_request(**_training()))
    config = request.train_config()
    bundle = load_dataset(request.dataset)
    rows = epoch_order(len(bundle.x_train), SEED, 0, config.shuffle)[:BATCH]
    x, y = bundle.x_train[rows], bundle.y_train[rows]
    keras.mixed_precision.set_global_policy("float32")
    keras.utils.set_random_seed(SEED)
    model = build_model(request.spec, bundle.x_train)
    if weights is not None:
        model.load_weights(str(weights))
    return float(make_loss(config.loss)(y, model(x)))


def _weights_file() -> tuple[str, Path]:
    """A ``.weights.h5`` file in the workspace whose logits favour class 3 strongly (its
    loss is far from a fresh model's); returns its workspace-relative path and the file."""
    from tfcore.model import build_model, get_preset
    from tfcore.workspace import default_workspace

    model = build_model(get_preset("mlp"))
    logits = model.get_layer("logits")
    kernel, bias = logits.get_weights()
    bias[:] = 0.0
    bias[3] = 6.0
    logits.set_weights([kernel, bias])
    folder = default_workspace().ensure().exports / "lifecycle-test"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "start.weights.h5"
    model.save_weights(str(path))
    return str(path.relative_to(default_workspace().root)), path


def _status(root: Path, run_id: str) -> dict:
    return json.loads((root / run_id / "status.json").read_text())


def test_local_and_cluster_runs_honour_initial_weights_and_mixed_precision(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import tensorflow as tf

    gpu = bool(tf.config.list_physical_devices("GPU"))
    relative, file = _weights_file()
    monkeypatch.setenv("TFLAB_MAX_WORKERS", "2")
    base = mlp_request(**_training()) | {"initial_weights": relative}
    local = jobs.start_run(tmp_path, base | {"device": {"kind": "gpu" if gpu else "cpu"}})
    cluster = jobs.start_run(tmp_path, base | {"device": {"kind": "cluster"},
                                               "cluster": {"workers": 2}})
    try:
        for run_id in (local, cluster):
            assert jobs.wait_for(tmp_path, run_id, timeout=WAIT) == "finished", \
                _status(tmp_path, run_id).get("traceback")
    finally:
        for run_id in (local, cluster):
            if RunStore(tmp_path).get(run_id).status.state in ("running", "queued"):
                jobs.stop_run(tmp_path, run_id)
    expected, seeded = _first_batch_loss(file), _first_batch_loss(None)
    first = {r: train_records(tmp_path, r)[0] for r in (local, cluster)}
    status = {r: _status(tmp_path, r) for r in (local, cluster)}
    print(f"first-step loss: local {first[local]['loss']:.6f}, cluster "
          f"{first[cluster]['loss']:.6f}, from the weights file {expected:.6f}, "
          f"seeded initialization {seeded:.6f}; policies "
          f"{status[local]['dtype_policy']}, {status[cluster]['dtype_policy']}")
    assert abs(expected - seeded) > 1.0               # the check can tell them apart
    policy = "mixed_float16" if gpu else "float32"
    for run_id in (local, cluster):
        assert first[run_id]["step"] == 1
        assert status[run_id]["dtype_policy"] == policy
        assert abs(first[run_id]["loss"] - expected) < TOLERANCE[policy]
        if policy == "float32":
            assert "mixed precision needs a GPU; trained in float32" in status[run_id]["notes"]
        assert status[run_id]["step"] == STEPS
    assert abs(first[local]["loss"] - first[cluster]["loss"]) < TOLERANCE[policy]
    assert status[cluster]["replicas"] == 2
    # issue 25: the chief records insight (a plain copy of the model: no collective op, no
    # hang); the first layer's weights at the start are the weights file's on both
    from tfcore.rundir import read_insight

    starts = {}
    for run_id in (local, cluster):
        insight = read_insight(tmp_path / run_id)
        steps = [r["step"] for r in insight.records]      # auto mode: first, last, and
        assert steps[0] == 0 and steps[-1] == STEPS        # what the budget allows between
        assert steps == sorted(set(steps)) and not insight.problems
        starts[run_id] = insight.records[0]["hist"]["dense/kernel"]
    assert starts[local] == starts[cluster]
    assert json.loads((tmp_path / cluster / "run.json").read_text())["initial_weights"] \
        == relative
    if len(os.sched_getaffinity(0)) >= 2:             # both trained at once
        assert {status[local]["cpu_slot"], status[cluster]["cpu_slot"]} == {0, 1}


def test_without_initial_weights_the_run_starts_from_the_seeded_model(tmp_path: Path) -> None:
    """In-process, no file, mixed precision not asked: the first-step loss is the seeded
    model's (so the other test's difference comes from the file), the status records float32
    without a note, and no mixed policy is left behind."""
    import keras

    from tfcore.rundir import RunWriter
    from tfcore.training import RunRequest
    from tfcore.training.worker import train_run

    request = mlp_request(**_training(mixed_precision=False))
    writer = RunWriter.create(tmp_path, request)
    fields = train_run(writer.paths, writer, RunRequest.from_dict(request), 1)
    writer.set_status(**fields)
    status = _status(tmp_path, writer.paths.run_id)
    first = train_records(tmp_path, writer.paths.run_id)[0]
    seeded = _first_batch_loss(None)
    print(f"first-step loss {first['loss']:.6f}, seeded model {seeded:.6f}")
    assert fields["state"] == "finished" and first["step"] == 1
    assert abs(first["loss"] - seeded) < TOLERANCE["float32"]
    assert status["dtype_policy"] == "float32" and status["notes"] == []
    assert keras.mixed_precision.global_policy().name == "float32"
