"""Issue 12 engine pieces without a worker: every step recorded (batched writes and
TensorBoard), the pacing field and its pacer, where multi-step calls must end, both loops
reporting every step with the same numbers, and restoring Dropout's checkpoints."""

from __future__ import annotations

import time

import pytest

from tfcore.errors import RunError
from tfcore.rundir import RunPaths, read_metrics
from tfcore.training import plan
from tfcore.training.callbacks import (
    Listener,
    Listeners,
    MetricsLogger,
    StopPoller,
    TrainState,
)
from tfcore.training.config import TrainConfig
from tfcore.training.tape_loop import MAX_STEPS_PER_CALL, CallSizer


@pytest.mark.parametrize("value", [None, 5, 20.0, 100, 0.5])
def test_steps_per_second_accepts_a_cap_or_none(value) -> None:
    config = TrainConfig.from_dict({"steps_per_second": value})
    assert config.steps_per_second == value
    assert TrainConfig.from_dict(config.to_dict()) == config
    assert TrainConfig().steps_per_second is None


@pytest.mark.parametrize("value", [0, -1, float("inf"), float("nan"), "fast", True, 1e9])
def test_steps_per_second_refuses_bad_values_with_the_value(value) -> None:
    with pytest.raises(RunError) as info:
        TrainConfig.from_dict({"steps_per_second": value})
    assert info.value.key == "train.err.float_range_or_none"
    assert info.value.params == {"name": "steps_per_second", "value": repr(value),
                                 "low": 0.01, "high": 10_000.0}
    assert f"steps_per_second={value!r}" in info.value.message


class _Writes:
    """Counts write calls on the metrics file handle."""

    def __init__(self, handle) -> None:
        self.handle, self.calls = handle, 0

    def write(self, text: str) -> int:
        self.calls += 1
        return self.handle.write(text)

    def __getattr__(self, name: str):
        return getattr(self.handle, name)


def test_every_step_reaches_the_file_in_few_writes(tmp_path) -> None:
    paths = RunPaths(tmp_path / "run")
    paths.root.mkdir()
    logger = MetricsLogger(paths, log_every=1, max_per_sec=2.0, tensorboard=False)
    counter = _Writes(logger.buffer.file._handle)
    logger.buffer.file._handle = counter
    state = TrainState(total_steps=500, steps_per_epoch=250, batch_size=10)
    listeners = Listeners([logger])
    listeners.on_train_start(state)
    for step in range(1, 501):
        state.step, state.samples = step, step * 10
        listeners.on_batch_end(state, {"loss": 1.0 / step, "acc": 0.5})
        if step % 250 == 0:
            listeners.on_epoch_end(state, {"loss": 0.1, "acc": 0.9} if step == 500 else None)
    listeners.on_train_end(state, "finished")
    logger.close()
    records = read_metrics(paths.metrics).records
    train = [r for r in records if r["split"] == "train"]
    assert [r["step"] for r in train] == list(range(1, 501))
    assert train[9]["loss"] == pytest.approx(0.1) and train[9]["acc"] == 0.5
    assert all("samples_per_sec" in r and "elapsed" in r and "time" in r for r in train)
    assert [r["step"] for r in records if r["split"] == "val"] == [500]
    assert counter.calls <= 10         # first step, two epoch ends, the end (+ the clock)


def test_per_step_tensorboard_scalars(tmp_path) -> None:
    pytest.importorskip("tensorflow")
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    paths = RunPaths(tmp_path / "run")
    paths.root.mkdir()
    logger = MetricsLogger(paths, log_every=1, max_per_sec=1000.0)
    state = TrainState(total_steps=40, steps_per_epoch=40, batch_size=4)
    listeners = Listeners([logger])
    listeners.on_train_start(state)
    for step in range(1, 41):
        state.step, state.samples = step, 4 * step
        listeners.on_batch_end(state, {"loss": float(step)})
    listeners.on_epoch_end(state, {"loss": 0.5})
    listeners.on_train_end(state, "finished")
    logger.close()
    events = EventAccumulator(str(paths.tb_dir / "train"), size_guidance={"scalars": 0})
    events.Reload()
    assert {"batch_loss", "epoch_loss", "batch_samples_per_sec"} <= set(events.Tags()["scalars"])
    losses = events.Scalars("batch_loss")
    assert [e.step for e in losses] == list(range(1, 41))
    assert [e.value for e in losses] == [float(s) for s in range(1, 41)]
    assert [(e.step, e.value) for e in events.Scalars("epoch_loss")] == [(0, 20.5)]
    val = EventAccumulator(str(paths.tb_dir / "validation"), size_guidance={"scalars": 0})
    val.Reload()
    assert [e.value for e in val.Scalars("epoch_loss")] == [0.5]
    assert abs(losses[0].wall_time - time.time()) < 3600       # a real clock, not zero


class _Clock:
    def __init__(self) -> None:
        self.now, self.slept = 100.0, 0.0

    def perf_counter(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds
        self.slept += seconds


def test_pacer_caps_the_rate_and_a_stop_ends_the_wait(monkeypatch, tmp_path) -> None:
    clock = _Clock()
    monkeypatch.setattr(plan, "time", clock)
    state = TrainState(total_steps=100, steps_per_epoch=100, batch_size=1)
    idle = []

    class Idle(Listener):
        def on_idle(self, state: TrainState) -> None:
            idle.append(clock.now)

    pacer = plan.Pacer(5.0, Listeners([Idle()]), state)
    for _ in range(6):
        pacer.wait()
        clock.now += 0.01                      # the step itself
    assert clock.slept == pytest.approx(5 * 0.2 - 5 * 0.01)
    assert len(idle) >= 5
    slow = plan.Pacer(5.0, Listeners([]), state)   # steps slower than the pace: no wait
    clock.slept = 0.0
    for _ in range(3):
        slow.wait()
        clock.now += 0.5
    assert clock.slept == 0.0
    paths = RunPaths(tmp_path)
    paths.stop_request.write_text("now")
    stopping = plan.Pacer(0.1, Listeners([StopPoller(paths)]), state)
    stopping.wait()
    clock.slept = 0.0
    stopping.wait()                            # would sleep 10 s; the stop ends it at once
    assert state.stop_reason == "request" and clock.slept == pytest.approx(plan.Pacer.SLICE)
    assert not plan.Pacer(None, Listeners([]), state).active


def test_multi_step_calls_end_at_checkpoints_epochs_and_the_run() -> None:
    config = TrainConfig(ckpt_every=10)
    state = TrainState(total_steps=95, steps_per_epoch=26, batch_size=50, step=0)
    assert plan.steps_to_boundary(state, config) == 10
    state.step = 24
    assert plan.steps_to_boundary(state, config) == 2         # epoch ends at 26
    state.step = 26
    assert plan.steps_to_boundary(state, config) == 4         # checkpoint at 30
    state.step = 93
    assert plan.steps_to_boundary(state, config) == 2         # the run ends at 95
    sizer = CallSizer()
    assert sizer.size == 1                                    # the first point comes fast
    sizer.update(1, 2.0)                                      # tracing: no estimate
    sizer.update(2, 0.002)                                    # 1 ms a step
    assert sizer.size == 8                                    # at most 4x per call
    for _ in range(5):
        sizer.update(sizer.size, sizer.size * 0.001)
    assert sizer.size == 50                                   # ~50 ms a call
    sizer.update(50, 0.0001 * 50)
    assert sizer.size == min(MAX_STEPS_PER_CALL, 200)


class _Steps(Listener):
    def __init__(self) -> None:
        self.rows: list[tuple[int, dict]] = []

    def on_batch_end(self, state: TrainState, logs) -> None:
        self.rows.append((state.step, dict(logs)))


def _train(loop: str, listen=None, **training) -> tuple[TrainState, list]:
    import keras
    import tensorflow as tf

    from tests.unit.fixtures_runs import tiny_spec
    from tfcore.data import DatasetRequest, load_dataset
    from tfcore.model import build_model, from_dict
    from tfcore.training.config import make_optimizer, steps_per_epoch
    from tfcore.training.loops import LOOPS, TrainData

    bundle = load_dataset(DatasetRequest(name="digits8"))
    data = TrainData(bundle.x_train, bundle.y_train, bundle.x_val, bundle.y_val)
    config = TrainConfig.from_dict({"epochs": 2, "batch_size": 32, "loop": loop,
                                    "ckpt_every": 7} | training)
    keras.utils.set_random_seed(0)
    model = build_model(from_dict(tiny_spec()))
    spe = steps_per_epoch(data.n_train, 32)
    total = config.total_steps(data.n_train)
    optimizer = make_optimizer(config, total, spe)
    optimizer.build(model.trainable_variables)
    state = TrainState(total_steps=total, steps_per_epoch=spe, batch_size=32)
    steps = _Steps()
    extra = [listen(optimizer)] if listen else []
    LOOPS[loop](model, data, config, tf.distribute.get_strategy(), state,
                Listeners([steps, *extra]), optimizer)
    return state, steps.rows


def test_both_loops_report_every_step_with_the_same_numbers() -> None:
    pytest.importorskip("tensorflow")
    fit_state, fit_rows = _train("fit")
    tape_state, tape_rows = _train("custom")
    assert fit_state.step == tape_state.step == fit_state.total_steps
    assert [s for s, _ in fit_rows] == [s for s, _ in tape_rows] == list(
        range(1, fit_state.total_steps + 1))
    for (_, a), (_, b) in zip(fit_rows, tape_rows):
        assert a["loss"] == pytest.approx(b["loss"], rel=1e-4, abs=1e-5)
        assert a["sparse_categorical_accuracy"] == pytest.approx(
            b["sparse_categorical_accuracy"], abs=1e-4)


class _AtCheckpoints(Listener):
    """What a checkpoint at each ``every``-th step would hold: the optimizer's step count."""

    def __init__(self, optimizer, every: int) -> None:
        self.optimizer, self.every, self.seen = optimizer, every, []

    def on_batch_end(self, state: TrainState, logs) -> None:
        if state.step % self.every == 0:
            self.seen.append((state.step, int(self.optimizer.iterations.numpy())))


def test_fit_is_called_once_per_validation_span_and_checkpoints_see_their_step(
        monkeypatch) -> None:
    """The fit loop makes one ``model.fit`` call per validation span (not one per
    checkpoint interval, each with a new pipeline), and every checkpoint step still ends a
    graph call: the model a checkpoint would save has trained exactly that many steps."""
    pytest.importorskip("tensorflow")
    import keras

    calls: list[int] = []
    fit = keras.Model.fit

    def counted(self, *args, **kwargs):
        calls.append(kwargs.get("steps_per_epoch"))
        return fit(self, *args, **kwargs)

    monkeypatch.setattr(keras.Model, "fit", counted)
    probes: list[_AtCheckpoints] = []
    state, rows = _train("fit", listen=lambda opt: probes.append(_AtCheckpoints(opt, 10))
                         or probes[-1], ckpt_every=10, validate_every=2)
    assert [s for s, _ in rows] == list(range(1, state.total_steps + 1))
    assert calls == [state.total_steps]               # both epochs in one call
    assert probes[0].seen == [(s, s) for s in range(10, state.total_steps + 1, 10)]
    calls.clear()
    state, rows = _train("fit", ckpt_every=10, validate_every=1)
    assert calls == [state.steps_per_epoch] * 2       # one call per validated epoch


def test_dropout_checkpoints_restore_complete() -> None:
    tf = pytest.importorskip("tensorflow")
    import keras

    from tfcore.runs.restore import restore_objects

    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3),
                              keras.layers.Dropout(0.5), keras.layers.GaussianNoise(0.1)])
    import tempfile

    prefix = tf.train.Checkpoint(model=model).save(tempfile.mkdtemp() + "/ckpt")
    report = restore_objects(prefix, {"model": model}, list(model.variables))
    assert report.complete and not report.missing
    assert len(report.matched) == 2                       # kernel and bias


def test_the_worker_reports_its_phases_while_resuming(tmp_path) -> None:
    pytest.importorskip("tensorflow")
    import json

    from tests.unit.fixtures_runs import make_run
    from tfcore.rundir import RunWriter
    from tfcore.training import RunRequest
    from tfcore.training.worker import train_run

    run_id = make_run(tmp_path, steps=12, ckpt_every=4)         # checkpoints 4, 8, 12
    paths = RunPaths(tmp_path / run_id)
    request = json.loads(paths.run_json.read_text())
    request["training"]["steps"] = 16                          # resume: 4 more steps

    class Recording(RunWriter):
        def __init__(self, paths: RunPaths) -> None:
            super().__init__(paths)
            self.phases: list[tuple] = []

        def set_status(self, **fields):
            if "phase" in fields:
                self.phases.append((fields["phase"], fields.get("phase_checkpoint")))
            return super().set_status(**fields)

    writer = Recording(paths)
    fields = train_run(paths, writer, RunRequest.from_dict(request), 1)
    assert fields["state"] == "finished" and fields["step"] == 16
    assert [p for p, _ in writer.phases] == ["loading_data", "building", "restoring",
                                             "training", "evaluating", "saving"]
    assert dict(writer.phases)["restoring"] == 12
    assert fields["phase"] is None
    train = [r for r in read_metrics(paths.metrics).records if r["split"] == "train"]
    assert [r["step"] for r in train][-4:] == [13, 14, 15, 16]
