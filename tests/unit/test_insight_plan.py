"""Issue 25: when the insight recorder takes a snapshot (tfcore.training.insight.SnapshotPlan),
on a fake clock: the auto plan's budget spread over a run, the Keras fit calls of the MLP
and CNN benches, the start snapshot as the probe's first pass, the minimum gap, a set
interval, and the graph calls that end on it."""

from __future__ import annotations

import numpy as np
import pytest

from tfcore.training.callbacks import TrainState
from tfcore.training.config import TrainConfig
from tfcore.training.insight import BUDGET, SnapshotPlan


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_auto_plan_spreads_its_snapshots_evenly_within_its_budget() -> None:
    """Steps of 10 ms, snapshots of 50 ms after the probe's one-off warm-up of 0.4 s, a run
    of 5,000 steps: each snapshot is followed by the training time its cost buys at the
    budget (50 ms / 3 % = 1.67 s, 167 steps), so the first frame after the start one comes
    at step 167 (not once the budget covers three snapshots: step 500, nor once it has paid
    for the warm-up: step 1,500). From then on the run's projected time is known and the
    warm-up's share of it (0.4 s of 50 s) narrows the rate to 2.2 %: the frames are evenly
    spaced at 228 steps to the end, the snapshots' cost so far never passes the budget of
    the time so far by more than the newest one, and with the warm-up and the last step's
    the whole run's cost stays within the budget of its training time, taking as many as
    that allows. The warm-up is not training time and not a snapshot."""
    clock = Clock()
    plan = SnapshotPlan(0, clock=clock)
    clock.now += 0.4
    plan.warmed(0.4)                     # the probe's warm-up: in the budget
    clock.now += 0.050
    plan.took(0.050)                     # the start snapshot: forced
    assert plan.training_time() == pytest.approx(0.0)
    taken = []
    for step in range(1, 5000):          # the recorder asks before every step but the last
        clock.now += 0.010
        if plan.due(step, 5000):
            clock.now += 0.050
            plan.took(0.050)
            taken.append(step)
            assert plan.spent - plan.warmup - 0.050 <= BUDGET * plan.training_time() + 1e-9
    clock.now += 0.010 + 0.050
    plan.took(0.050)                     # the last step's
    training = 5000 * 0.010
    assert plan.spent <= BUDGET * training + 1e-9
    assert plan.spent + 0.050 > BUDGET * training             # as often as it allows
    assert taken[0] == 167                # the start's 50 ms paid at 3 %
    assert set(np.diff(taken)) == {228}   # then at 3 % less 0.4 s of 50 s: evenly spaced
    assert len(taken) == 20 and plan.taken == 22 and plan.warmup == 0.4


def fit_calls(plan: SnapshotPlan, clock: Clock, total: int, every: int, first: float,
              call: float, cost: float) -> list[int]:
    """A run after its start snapshot as Keras fit makes it: calls of ``every`` steps up to
    ``total``, the first taking ``first`` seconds (the training graph's trace), then
    ``call`` each; snapshots cost ``cost``. Returns the steps the plan took between the
    start and the last step's (taken too)."""
    taken = []
    for step in range(every, total, every):
        clock.now += first if step == every else call
        if plan.due(step, total):
            clock.now += cost
            plan.took(cost)
            taken.append(step)
    clock.now += call + cost
    plan.took(cost)                      # the last step's
    return taken


def mlp_bench_fit(plan: SnapshotPlan, clock: Clock) -> list[int]:
    """The MLP bench's run after its start snapshot: Keras fit's calls of 10 steps, the
    first paying a 0.45 s trace, then 20 ms a call, 780 steps; snapshots of 10 ms."""
    return fit_calls(plan, clock, 780, 10, 0.45, 0.020, 0.010)


def test_auto_plan_does_not_project_the_run_from_its_traced_first_call() -> None:
    """The MLP bench's run as Keras fit makes it: calls of 10 steps, the first paying a
    0.45 s trace, then 20 ms a call; 780 steps, 1.85 s of training. The start snapshot
    (10 ms) and the warm-up (30 ms) leave the 56 ms budget no room for a third snapshot
    beside the last step's. Projected from the first call (0.45 s for 10 steps: 35 s), a
    snapshot at step 10 looked affordable and took the run over its budget."""
    clock = Clock()
    plan = SnapshotPlan(0, clock=clock)
    clock.now += 0.030
    plan.warmed(0.030)
    clock.now += 0.010
    plan.took(0.010)
    taken = mlp_bench_fit(plan, clock)
    assert taken == []
    assert plan.whole == pytest.approx(0.45 + 77 * 0.020)
    assert plan.spent <= BUDGET * plan.whole + 1e-9


def test_a_start_snapshot_that_was_the_probes_first_pass_holds_no_frame_back() -> None:
    """A short run on a 2-D set: the start snapshot was the probe's first pass (60 ms with
    TensorFlow's first calls; a steady one costs 15 ms), then 600 steps of 10 ms. Its cost
    counts like the warm-up: the first frame after it comes as soon as the run's rate is
    known and the clock's gap has passed (step 25), not once its 60 ms are paid at 3 %
    (step 200); the last step's is reserved at its cost until a steady cost is measured,
    and the whole run stays within the budget, taking as many as that allows."""
    clock = Clock()
    plan = SnapshotPlan(0, clock=clock)
    clock.now += 0.060
    plan.opened(0.060)
    assert plan.warmup == 0.060 and plan.taken == 1
    assert plan.training_time() == pytest.approx(0.0)
    taken = []
    for step in range(1, 600):
        clock.now += 0.010
        if plan.due(step, 600):
            clock.now += 0.015
            plan.took(0.015)
            taken.append(step)
    clock.now += 0.010 + 0.015
    plan.took(0.015)                     # the last step's
    assert taken[0] == 25 and len(taken) >= 3
    assert plan.spent <= BUDGET * 6.0 + 1e-9
    assert plan.spent + 0.015 > BUDGET * 6.0 + 1e-9         # as often as it allows


def test_a_start_snapshot_that_paid_the_warm_up_leaves_the_mlp_bench_in_budget() -> None:
    """The MLP bench's run (Keras fit, calls of 10 steps, 1.99 s of training): the start
    snapshot as the probe's first pass costs 30 ms, the last step's 10 ms. Reserved at the
    first pass's cost, no snapshot between fits (30 + 2 * 30 ms > 60 ms): the run's insight
    costs 40 ms, 2 %. With a separate warm-up pass (30 ms) and a start snapshot (10 ms) it
    cost 50 ms, 2.5 %, and measured 3.3 % on this machine."""
    clock = Clock()
    plan = SnapshotPlan(0, clock=clock)
    clock.now += 0.030
    plan.opened(0.030)
    taken = mlp_bench_fit(plan, clock)
    assert taken == []
    assert plan.spent == pytest.approx(0.040)
    assert plan.spent <= BUDGET * plan.whole + 1e-9


def test_the_cnn_benchs_start_pass_reserves_room_for_its_last_snapshot() -> None:
    """The CNN bench's run: the start snapshot as the probe's first pass costs 120 ms, a
    steady one 100 ms; 260 steps in fit calls of 26, the first paying a 0.75 s trace, then
    0.96 s a call (9.4 s). The last step's is reserved at the first pass's cost, so no
    snapshot is taken between (120 + 2 * 120 ms > 3 % of 9.4 s): 220 ms in all, within the
    budget. Reserved at half of it, one was taken after the second call and the run's three
    cost 320 ms, above it (measured: 3.5 %)."""
    clock = Clock()
    plan = SnapshotPlan(0, clock=clock)
    clock.now += 0.120
    plan.opened(0.120)
    assert fit_calls(plan, clock, 260, 26, 0.75, 0.96, 0.100) == []
    assert plan.spent == pytest.approx(0.220)
    assert plan.spent <= BUDGET * plan.training_time() + 1e-9


def test_auto_plan_keeps_its_minimum_gap_and_works_without_a_last_step() -> None:
    """Snapshots of 1 ms buy 33 ms of training, less than MIN_GAP: the clock's gap rules
    (at most 4 a second); without the run's last step the spacing alone decides."""
    clock = Clock()
    plan = SnapshotPlan(0, clock=clock)
    plan.took(0.001)
    taken = []
    for step in range(1, 1001):
        clock.now += 0.010
        if plan.due(step):
            plan.took(0.001)
            taken.append(step)
    assert taken[0] == 25 and set(np.diff(taken)) == {25}


def test_a_set_interval_is_every_n_steps() -> None:
    plan = SnapshotPlan(7, clock=Clock())
    assert [s for s in range(1, 30) if plan.due(s)] == [7, 14, 21, 28]


def test_graph_calls_end_on_a_set_insight_interval() -> None:
    """Insight every 5 steps with checkpoints every 100: a fit graph call trains 5 steps
    (not 10) and a tape call stops at the next multiple of 5, so a snapshot sees its
    step's model; auto mode leaves the calls as checkpoints alone make them."""
    from tfcore.training.loops import fit_steps_per_execution
    from tfcore.training.plan import fit_call_end, steps_to_boundary

    state = TrainState(total_steps=1000, steps_per_epoch=500, batch_size=10, step=3)
    every5 = TrainConfig(ckpt_every=100, insight_every=5)
    assert every5.sync_every == 5 and fit_steps_per_execution(every5, 1) == 5
    assert steps_to_boundary(state, every5) == 2
    assert fit_call_end(state, every5, 5, 1000) == 5
    auto = TrainConfig(ckpt_every=100, insight_every=0)
    off = TrainConfig(ckpt_every=100, insight_every=5, insight=False)
    for config in (auto, off):
        assert config.sync_every == 100 and fit_steps_per_execution(config, 1) == 10
        assert steps_to_boundary(state, config) == 97
