"""A cluster worker's listeners when the all-reduce of a step's logged values fails.

The step trained on every worker (its gradients were all-reduced), so the checkpoint the
chief writes as it ends is numbered with that step; its record must exist too, or the
records of a restarted run skip a step (the flake CI once caught in
``test_a_killed_worker_is_restarted_and_training_continues_from_the_backup``).
"""
from __future__ import annotations

import pytest

from tfcore.training.callbacks import Listener, TrainState
from tfcore.training.cluster_sync import ClusterListeners


class UnavailableError(Exception):
    """Named like TensorFlow's error for a collective op whose peer is gone."""


class Recorder(Listener):
    def __init__(self) -> None:
        self.steps: list[tuple[int, dict]] = []

    def on_batch_end(self, state, logs) -> None:
        self.steps.append((state.step, dict(logs)))


class FakeSync:
    workers = 2

    def __init__(self, fail_at: int | None, error: type[Exception]) -> None:
        self.calls, self.fail_at, self.error = 0, fail_at, error

    def sum(self, values):
        self.calls += 1
        if self.calls == self.fail_at:
            raise self.error("peer gone")
        return [2 * v for v in values]          # both workers logged the same values


def _listeners(fail_at: int | None, error: type[Exception] = UnavailableError):
    recorder = Recorder()
    return ClusterListeners([recorder], FakeSync(fail_at, error), None), recorder


def test_a_step_whose_value_all_reduce_lost_its_peer_is_still_recorded() -> None:
    listeners, recorder = _listeners(fail_at=2)
    state = TrainState(total_steps=10, steps_per_epoch=5, batch_size=4)
    state.step = 1
    listeners.on_batch_end(state, {"loss": 0.5})
    state.step = 2
    with pytest.raises(UnavailableError):
        listeners.on_batch_end(state, {"loss": 0.25})
    assert recorder.steps == [(1, {"loss": 0.5}), (2, {"loss": 0.25})]


def test_any_other_failure_of_the_all_reduce_records_nothing() -> None:
    listeners, recorder = _listeners(fail_at=1, error=ValueError)
    state = TrainState(total_steps=10, steps_per_epoch=5, batch_size=4, step=1)
    with pytest.raises(ValueError):
        listeners.on_batch_end(state, {"loss": 0.5})
    assert recorder.steps == []


def test_the_averaged_values_are_recorded_when_the_all_reduce_works() -> None:
    listeners, recorder = _listeners(fail_at=None)
    state = TrainState(total_steps=10, steps_per_epoch=5, batch_size=4, step=3)
    listeners.on_batch_end(state, {"loss": 0.75, "accuracy": 0.5})
    assert recorder.steps == [(3, {"loss": 0.75, "accuracy": 0.5})]
