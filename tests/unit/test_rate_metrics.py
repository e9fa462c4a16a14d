"""A rate is never outside [0, 1] (issue 23, item 7).

``fit`` used to turn Keras' float32 running means back into per-step values by differencing,
``(mean_n·seen_n − mean_n−1·seen_n−1) / batch``, which multiplies each mean's rounding by
``seen / batch``: 50 steps into an epoch an all-right batch read 1.000003. A model that never
changes (learning rate 0) with a known number of wrong labels per batch gives the true value
of every step, which every recorded value must match.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from tfcore.rundir import RunPaths, RunStore, RunWriter, read_metrics
from tfcore.training.callbacks import Listener, Listeners, MetricsLogger, TrainState
from tfcore.training.config import TrainConfig
from tfcore.training.losses import bound_rates, is_rate

BATCH, STEPS_PER_EPOCH, ACC = 32, 160, "sparse_categorical_accuracy"


def _data(seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """x in ±[0.5, 2], label ``x > 0`` except 0–2 wrong labels in some batches; returns
    (x, y, wrong labels per batch)."""
    rng = np.random.default_rng(seed)
    n = BATCH * STEPS_PER_EPOCH
    x = (rng.uniform(0.5, 2.0, n) * rng.choice([-1.0, 1.0], n)).astype(np.float32)
    y = (x > 0).astype(np.int64)
    wrong = rng.choice([0, 0, 0, 1, 2], STEPS_PER_EPOCH)
    for batch, count in enumerate(wrong):
        y[batch * BATCH:batch * BATCH + count] ^= 1
    return x[:, None], y, wrong


def _model():
    import keras

    model = keras.Sequential([keras.Input((1,)), keras.layers.Dense(2)])
    model.layers[0].set_weights([np.array([[-1.0, 1.0]], np.float32), np.zeros(2, np.float32)])
    return model


def _true_losses(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Cross-entropy of logits ``[-x, x]`` per example (float64)."""
    logits = np.concatenate([-x, x], axis=1).astype(np.float64)
    log_p = logits - np.logaddexp(logits[:, :1], logits[:, 1:])
    return -log_p[np.arange(len(y)), y]


class _Rows(Listener):
    """Every step's values; with a model, Keras' own running means at each epoch's end."""

    def __init__(self, model=None) -> None:
        self.rows: list[tuple[int, dict]] = []
        self.model, self.epoch_means = model, []

    def on_batch_end(self, state: TrainState, logs) -> None:
        self.rows.append((state.step, dict(logs)))
        if self.model is not None and state.step % state.steps_per_epoch == 0:
            self.epoch_means.append(float(self.model.get_metrics_result()[ACC]))


# fit: 10 steps a call (the recorder's rows) and eager (Keras' logs); the GradientTape loop
@pytest.mark.parametrize("loop, eager", [("fit", False), ("fit", True), ("custom", False)])
def test_each_batch_rate_is_recorded_exactly(tmp_path, loop: str, eager: bool) -> None:
    tf = pytest.importorskip("tensorflow")
    import keras

    from tfcore.training.loops import (
        FIT_STEPS_PER_EXECUTION,
        LOOPS,
        TrainData,
        fit_steps_per_execution,
    )
    from tfcore.runs.curves import run_curves
    from ui.training.charts import y_domain

    x, y, wrong = _data()
    data = TrainData(x, y, x[:256], y[:256])
    config = TrainConfig.from_dict({
        "epochs": 2, "batch_size": BATCH, "loop": loop, "shuffle": False, "eager": eager,
        "ckpt_every": 1000, "loss": "sparse_categorical_crossentropy_logits",
        "metrics": [ACC]})
    assert fit_steps_per_execution(config, 1) == (1 if eager else FIT_STEPS_PER_EXECUTION)
    writer = RunWriter.create(tmp_path, {"name": "rates", "spec": {}, "training": {}}, "rates")
    paths = RunPaths(tmp_path / "rates")
    logger = MetricsLogger(paths, tensorboard=False)
    model = _model()
    rows = _Rows(model if loop == "fit" else None)
    listeners = Listeners([rows, logger])
    state = TrainState(total_steps=2 * STEPS_PER_EPOCH, steps_per_epoch=STEPS_PER_EPOCH,
                       batch_size=BATCH)
    listeners.on_train_start(state)
    optimizer = keras.optimizers.SGD(learning_rate=0.0)
    optimizer.build(model.trainable_variables)
    LOOPS[loop](model, data, config, tf.distribute.get_strategy(), state, listeners, optimizer)
    listeners.on_train_end(state, "finished")
    logger.close()
    writer.set_status(state="finished")

    true_acc = 1.0 - wrong / BATCH
    true_loss = _true_losses(x, y).reshape(STEPS_PER_EPOCH, BATCH).mean(axis=1)
    assert [s for s, _ in rows.rows] == list(range(1, 2 * STEPS_PER_EPOCH + 1))
    train = [r for r in read_metrics(paths.metrics).records if r["split"] == "train"]
    assert [r["step"] for r in train] == [s for s, _ in rows.rows]
    for (step, logs), record in zip(rows.rows, train):
        batch = (step - 1) % STEPS_PER_EPOCH
        for value in (logs[ACC], record[ACC]):
            assert 0.0 <= value <= 1.0, (step, value)
            assert abs(value - true_acc[batch]) <= 1e-6, (step, value, true_acc[batch])
        assert math.isclose(logs["loss"], true_loss[batch], rel_tol=1e-5), step
    # Keras keeps its own running means for the epoch end (its state is added back)
    if loop == "fit":
        assert rows.epoch_means == pytest.approx([true_acc.mean()] * 2, abs=1e-6)
    val = [r for r in read_metrics(paths.metrics).records if r["split"] == "val"]
    assert val and all(0.0 <= r[ACC] <= 1.0 for r in val)
    # what the charts draw: the runs reader's values and smoothed values, the [0, 1] axis
    curves = run_curves(tmp_path, ["rates"], ACC, smoothing=0.9)
    assert len(curves) == len(train) + len(val)
    assert curves["value"].between(0.0, 1.0).all()
    assert curves["smoothed"].between(0.0, 1.0 + 1e-12).all()
    assert y_domain(ACC, curves["smoothed"].to_numpy()) == [0.0, 1.0]
    assert RunStore(tmp_path).get("rates").status.state == "finished"


def test_rates_are_registered_and_held_inside_the_unit_interval() -> None:
    assert is_rate(ACC) and is_rate("binary_accuracy")
    assert not is_rate("mae") and not is_rate("loss") and not is_rate("my_custom_metric")
    out = bound_rates({ACC: 1.000003, "binary_accuracy": -2e-7, "loss": 1.5, "mae": 1.2})
    assert out == {ACC: 1.0, "binary_accuracy": 0.0, "loss": 1.5, "mae": 1.2}
    assert math.isnan(bound_rates({ACC: float("nan")})[ACC])


def test_every_listener_and_record_hears_bounded_rates(tmp_path) -> None:
    paths = RunPaths(tmp_path / "run")
    paths.root.mkdir()
    logger, rows = MetricsLogger(paths, tensorboard=False), _Rows()
    listeners = Listeners([rows, logger])
    state = TrainState(total_steps=2, steps_per_epoch=2, batch_size=4)
    listeners.on_train_start(state)
    for step in (1, 2):
        state.step = step
        listeners.on_batch_end(state, {"loss": 0.1, ACC: 1.000003})
    listeners.on_epoch_end(state, {"loss": 0.2, ACC: 1.0000001})
    logger.log_test(state, {"loss": 0.3, ACC: 1.00001})
    listeners.on_train_end(state, "finished")
    logger.close()
    assert [r[ACC] for _, r in rows.rows] == [1.0, 1.0]
    assert state.last_logs[ACC] == 1.0 and state.last_val[ACC] == 1.0
    records = read_metrics(paths.metrics).records
    assert [r[ACC] for r in records] == [1.0, 1.0, 1.0, 1.0]
    assert [r["loss"] for r in records] == [0.1, 0.1, 0.2, 0.3]
