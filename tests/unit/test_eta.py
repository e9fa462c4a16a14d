"""No ETA until it is meaningful (issue 23, item 8): the first step of a run traces and
builds the graph, so a speed measured over it read "0:04:25" at step 1 of a 5 s run."""

from __future__ import annotations

import pytest

from tfcore.rundir import RunStore, RunWriter
from tfcore.training import callbacks
from tfcore.training.callbacks import Heartbeat, Listeners, SteadyRate, TrainState


def test_no_eta_until_steps_and_time_after_the_first_step() -> None:
    rate = SteadyRate()
    assert rate.eta(0, 500, 100.0) is None
    rate.observe(1, 105.0)                       # the first step: 5 s of tracing
    assert rate.eta(1, 500, 105.0) is None
    for step in range(2, 5):                     # then 10 ms a step
        rate.observe(step, 105.0 + (step - 1) * 0.01)
    assert rate.eta(4, 500, 105.03) is None      # 3 steps, but not a second yet
    rate.observe(60, 105.59)
    assert rate.eta(60, 500, 105.59) is None     # still under a second
    rate.observe(101, 106.0)
    assert rate.eta(101, 500, 106.0) == pytest.approx(399 * 0.01)
    assert rate.eta(500, 500, 109.99) == 0.0


def test_a_slow_step_after_a_second_still_needs_three_steps() -> None:
    rate = SteadyRate()
    rate.observe(1, 10.0)
    rate.observe(2, 12.0)                        # 2 s, one step: not enough steps
    assert rate.eta(2, 10, 12.0) is None
    rate.observe(4, 16.0)
    assert rate.eta(4, 10, 16.0) == pytest.approx(6 * 2.0)


def test_steps_reported_with_the_first_one_are_warm_up() -> None:
    """One multi-step call reports 8 steps at once; they were trained during the warm-up."""
    rate = SteadyRate()
    for step in range(1, 9):
        rate.observe(step, 50.0 + step * 1e-4)
    assert rate.mark == (50.0001, 8)
    rate.observe(58, 51.0001)                   # 50 steps in the second after the call
    assert rate.eta(58, 558, 51.0001) == pytest.approx(10.0)


class _Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def time(self) -> float:
        return self.now


def test_the_heartbeat_writes_no_eta_at_step_one_then_the_steady_one(tmp_path,
                                                                        monkeypatch) -> None:
    clock = _Clock(1000.0)
    monkeypatch.setattr(callbacks, "time", clock)
    writer = RunWriter.create(tmp_path, {"name": "eta", "spec": {}, "training": {}}, "eta")
    state = TrainState(total_steps=500, steps_per_epoch=500, batch_size=32, started=1000.0)
    listeners = Listeners([Heartbeat(writer, interval=0.0)])
    listeners.on_train_start(state)

    def step(number: int, at: float) -> dict:
        clock.now, state.step, state.samples = at, number, 32 * number
        listeners.on_batch_end(state, {"loss": 1.0})
        return RunStore(tmp_path).get("eta").status.extra

    assert step(1, 1005.0)["eta_seconds"] is None      # was 499 * 5 s = 0:41:35
    assert step(3, 1005.02)["eta_seconds"] is None
    assert step(101, 1006.0)["eta_seconds"] == pytest.approx(3.99, abs=0.05)
