"""TrainConfig and the registries: round trip, located errors, no TensorFlow needed."""

from __future__ import annotations

import numpy as np
import pytest

from tfcore.errors import RunError
from tfcore.rundir.store import RunPaths, read_metrics
from tfcore.training.callbacks import Listeners, MetricsLogger, NaNGuard, StopPoller, TrainState
from tfcore.training.config import (
    LOSSES,
    METRICS,
    OPTIMIZERS,
    SCHEDULES,
    TrainConfig,
    steps_per_epoch,
)
from tfcore.training.loops import epoch_order, epoch_plan


def test_config_round_trip_and_defaults() -> None:
    config = TrainConfig(epochs=3, optimizer="sgd", momentum=0.9, metrics=("mae",), loss="mse")
    assert TrainConfig.from_dict(config.to_dict()) == config
    assert TrainConfig().to_dict()["metrics"] == ["sparse_categorical_accuracy"]
    assert {"sgd", "adam", "adamw", "rmsprop", "adagrad", "nadam"} <= set(OPTIMIZERS)
    assert {"constant", "cosine", "exponential"} <= set(SCHEDULES)
    assert "half_sse" in LOSSES and "sparse_categorical_accuracy" in METRICS


@pytest.mark.parametrize("field,value,echo,key,bounds", [
    ("optimizer", "sgdd", "optimizer='sgdd'", "train.err.choice", {"choices": sorted(OPTIMIZERS)}),
    ("epochs", 0, "epochs=0", "train.err.int_range", {"low": 1, "high": 1_000_000}),
    ("learning_rate", -1.0, "learning_rate=-1.0", "train.err.float_range",
     {"low": 1e-7, "high": 1e7}),
    ("loss", "nope", "loss='nope'", "train.err.choice", {"choices": sorted(LOSSES)}),
    ("metrics", ["acc"], "metrics='acc'", "train.err.choice", {"choices": sorted(METRICS)}),
    ("batch_size", 2.5, "batch_size=2.5", "train.err.int_range", {"low": 1, "high": 1_000_000}),
    ("momentum", 1.0, "momentum=1.0", "train.err.float_range", {"low": 0.0, "high": 0.99}),
])
def test_bad_values_are_echoed_with_structured_params(field: str, value: object, echo: str,
                                                      key: str, bounds: dict) -> None:
    """The key names the kind of range; the params are the range itself, never a phrase."""
    with pytest.raises(RunError) as info:
        TrainConfig.from_dict({field: value})
    assert echo in info.value.message
    assert info.value.key == key
    name = "metrics" if field == "metrics" else field
    assert info.value.params == {"name": name, "value": repr(value if field != "metrics"
                                                           else value[0]), **bounds}


def test_steps_override_epochs_and_plan_resumes_mid_epoch() -> None:
    config = TrainConfig(epochs=2, batch_size=10, steps=7)
    assert steps_per_epoch(25, 10) == 3 and config.total_steps(25) == 7
    state = TrainState(total_steps=7, steps_per_epoch=3, batch_size=10, step=4, start_step=4)
    plan = []
    for epoch_index, idx in epoch_plan(state, config, 25):
        plan.append((epoch_index, len(idx)))
        state.step += -(-len(idx) // 10)
    # resumed at step 4: the rest of epoch 2 (2 batches = 15 examples), then 1 step of epoch 3
    assert plan == [(1, 15), (2, 10)]
    np.testing.assert_array_equal(epoch_order(25, 0, 1, True), epoch_order(25, 0, 1, True))
    assert not np.array_equal(epoch_order(25, 0, 1, True), epoch_order(25, 0, 2, True))


def test_listeners_stop_on_nan_and_request_and_bound_the_rate(tmp_path) -> None:
    paths = RunPaths(tmp_path / "run")
    paths.root.mkdir()
    logger = MetricsLogger(paths, log_every=1, max_per_sec=5.0, tensorboard=False)
    state = TrainState(total_steps=1000, steps_per_epoch=1000, batch_size=1)
    listeners = Listeners([NaNGuard(), StopPoller(paths), logger])
    listeners.on_train_start(state)
    for _ in range(200):                  # 200 fast steps: far fewer than 200 records
        state.step += 1
        listeners.on_batch_end(state, {"loss": 1.0})
    assert not state.should_stop
    records = read_metrics(paths.metrics).records
    assert 1 <= len(records) < 20 and records[0]["step"] == 1
    paths.stop_request.write_text("now")
    state.step += 1
    listeners.on_batch_end(state, {"loss": 0.5})
    assert state.stop_reason == "request"
    state2 = TrainState(total_steps=10, steps_per_epoch=10, batch_size=1)
    Listeners([NaNGuard()]).on_batch_end(state2, {"loss": float("nan")})
    assert state2.stop_reason == "nan"
    listeners.on_train_end(state, "stopped")
    logger.close()
    assert read_metrics(paths.metrics).records[-1]["step"] == 201


def test_fit_calls_span_validations_and_end_graph_calls_on_checkpoints() -> None:
    from tfcore.training.loops import batch_indices, fit_call_end, fit_span_end

    # M1: 5 examples, batch 5 -> one step per epoch; validation every 1000 epochs
    config = TrainConfig(batch_size=5, steps=10_000, validate_every=1000, shuffle=False,
                         ckpt_every=5000)
    state = TrainState(total_steps=10_000, steps_per_epoch=1, batch_size=5, step=0)
    assert fit_span_end(state, config, has_val=True) == 1000
    assert fit_span_end(state, config, has_val=False) == 10_000     # one call, no validation
    pieces = list(batch_indices(0, 1000, 1, config, 5))             # whole epochs together
    assert len(pieces) == 1 and len(pieces[0]) == 5000
    state.step = 9_990                                    # the span ends at the last step
    assert fit_span_end(state, config, has_val=True) == 10_000
    # 10 steps a graph call divide ckpt_every 100: one call runs on; a resume at step 37
    # first trains up to step 40, so later graph calls end on 100, 200, ...
    config = TrainConfig(batch_size=50, validate_every=5, ckpt_every=100)
    state = TrainState(total_steps=1000, steps_per_epoch=26, batch_size=50, step=30)
    assert fit_call_end(state, config, 10, 130) == 130
    state.step = 37
    assert fit_call_end(state, config, 10, 130) == 40
    config = TrainConfig(batch_size=50, ckpt_every=7)    # 10 does not divide 7
    assert fit_call_end(state, config, 10, 130) == 42
    # uneven last batch (1257 % 50 != 0): a piece never crosses an epoch end
    config = TrainConfig(batch_size=50, validate_every=5)
    pieces = list(batch_indices(30, 60, 26, config, 1257))
    assert [len(p) for p in pieces] == [1257 - 4 * 50, 50 * 8]
    np.testing.assert_array_equal(pieces[0], epoch_order(1257, 0, 1, True)[200:])
    np.testing.assert_array_equal(pieces[1], epoch_order(1257, 0, 2, True)[:400])
