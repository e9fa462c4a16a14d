"""Training events and their listeners.

A loop only advances a :class:`TrainState` and emits four events (train start, batch end,
epoch end, train end) to a :class:`Listeners` list. Writing metrics, TensorBoard
summaries, checkpoints, the status heartbeat and polling for a stop request are each one
listener, so a loop never knows where its numbers go.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from tfcore.rundir import RUNNING, STOPPING, MetricsWriter, RunPaths, RunWriter

STOP_REQUEST, STOP_NAN = "request", "nan"


@dataclass
class TrainState:
    """Where a run is: the one mutable object loops and listeners share."""

    total_steps: int
    steps_per_epoch: int
    batch_size: int
    replicas: int = 1
    step: int = 0
    epoch: int = 1                 # 1-based epoch the current step belongs to
    start_step: int = 0
    elapsed_before: float = 0.0    # seconds trained by earlier attempts (resume)
    samples: int = 0               # samples seen since this attempt started
    started: float = field(default_factory=time.time)
    stop_reason: str | None = None
    last_logs: dict = field(default_factory=dict)
    last_val: dict = field(default_factory=dict)

    @property
    def should_stop(self) -> bool:
        return self.stop_reason is not None

    def request_stop(self, reason: str) -> None:
        if self.stop_reason is None:
            self.stop_reason = reason

    @property
    def elapsed(self) -> float:
        return self.elapsed_before + (time.time() - self.started)

    @property
    def samples_per_sec(self) -> float:
        spent = time.time() - self.started
        return self.samples / spent if spent > 0 else 0.0

    @property
    def epochs_total(self) -> int:
        return max(1, math.ceil(self.total_steps / self.steps_per_epoch))


class Listener:
    """Base listener: override the events you need."""

    def on_train_start(self, state: TrainState) -> None:
        pass

    def on_batch_end(self, state: TrainState, logs: Mapping[str, float]) -> None:
        pass

    def on_epoch_end(self, state: TrainState, val_logs: Mapping[str, float] | None) -> None:
        pass

    def on_train_end(self, state: TrainState, outcome: str) -> None:
        pass


class Listeners(Listener):
    """Dispatch each event to every listener, in order."""

    def __init__(self, items: Sequence[Listener]) -> None:
        self.items = list(items)

    def on_train_start(self, state: TrainState) -> None:
        for item in self.items:
            item.on_train_start(state)

    def on_batch_end(self, state: TrainState, logs: Mapping[str, float]) -> None:
        state.last_logs = dict(logs)
        for item in self.items:
            item.on_batch_end(state, logs)

    def on_epoch_end(self, state: TrainState, val_logs: Mapping[str, float] | None) -> None:
        if val_logs:
            state.last_val = dict(val_logs)
        for item in self.items:
            item.on_epoch_end(state, val_logs)

    def on_train_end(self, state: TrainState, outcome: str) -> None:
        for item in self.items:
            item.on_train_end(state, outcome)


class StopPoller(Listener):
    """Asks the loop to stop after the current batch once ``stop.request`` exists."""

    def __init__(self, paths: RunPaths) -> None:
        self.path = paths.stop_request

    def on_batch_end(self, state: TrainState, logs: Mapping[str, float]) -> None:
        if self.path.exists():
            state.request_stop(STOP_REQUEST)


class NaNGuard(Listener):
    """Stops the run when the loss becomes NaN or infinite."""

    def on_batch_end(self, state: TrainState, logs: Mapping[str, float]) -> None:
        loss = logs.get("loss")
        if loss is not None and not math.isfinite(loss):
            state.request_stop(STOP_NAN)


def _finite(logs: Mapping[str, float]) -> dict:
    """JSON-safe copy: NaN and infinity become None."""
    return {k: (float(v) if math.isfinite(float(v)) else None) for k, v in logs.items()}


class MetricsLogger(Listener):
    """Writes ``metrics.jsonl`` and TensorBoard scalars at a bounded rate.

    A train record is written when ``step % log_every == 0`` and at least
    ``1 / max_per_sec`` seconds passed since the last one (the first and the last step of
    an attempt are always written); a val record after every evaluated epoch.
    """

    def __init__(self, paths: RunPaths, log_every: int = 1, max_per_sec: float = 20.0,
                 tensorboard: bool = True) -> None:
        self.writer = MetricsWriter(paths.metrics)
        self.log_every = max(1, log_every)
        self.min_gap = 1.0 / max_per_sec if max_per_sec > 0 else 0.0
        self.tb_dir = paths.tb_dir
        self.tensorboard = tensorboard
        self._tb: Any = None
        self._last_time = 0.0
        self._last_samples = 0
        self._last_clock = time.time()
        self._pending: tuple[TrainState, dict] | None = None

    def on_train_start(self, state: TrainState) -> None:
        if self.tensorboard:
            import tensorflow as tf

            self._tb = tf.summary.create_file_writer(str(self.tb_dir))
        self._last_clock = time.time()
        self._last_samples = state.samples

    def _record(self, state: TrainState, split: str, logs: Mapping[str, float],
                rate: float | None = None) -> None:
        record = {"step": state.step, "epoch": state.epoch, "time": time.time(),
                  "elapsed": round(state.elapsed, 3), "split": split, **_finite(logs)}
        if rate is not None:
            record["samples_per_sec"] = round(rate, 2)
        self.writer.append(record)
        if self._tb is not None:
            import tensorflow as tf

            with self._tb.as_default(step=state.step):
                for name, value in logs.items():
                    if math.isfinite(float(value)):
                        tf.summary.scalar(f"{split}/{name}", float(value))
                if rate is not None:
                    tf.summary.scalar("train/samples_per_sec", rate)

    def _write_train(self, state: TrainState, logs: Mapping[str, float]) -> None:
        now = time.time()
        spent = now - self._last_clock
        rate = (state.samples - self._last_samples) / spent if spent > 0 else 0.0
        self._record(state, "train", logs, rate)
        self._last_time = now
        self._last_clock, self._last_samples = now, state.samples
        self._pending = None

    def on_batch_end(self, state: TrainState, logs: Mapping[str, float]) -> None:
        first = state.step == state.start_step + 1
        due = state.step % self.log_every == 0 and time.time() - self._last_time >= self.min_gap
        if first or due or state.step >= state.total_steps or state.should_stop:
            self._write_train(state, logs)
        else:
            self._pending = (state, dict(logs))

    def on_epoch_end(self, state: TrainState, val_logs: Mapping[str, float] | None) -> None:
        if self._pending is not None and time.time() - self._last_time >= self.min_gap:
            self._write_train(*self._pending)    # an epoch's last step, when the rate allows
        if val_logs:
            self._record(state, "val", val_logs)

    def log_test(self, state: TrainState, logs: Mapping[str, float]) -> None:
        self._record(state, "test", logs)

    def on_train_end(self, state: TrainState, outcome: str) -> None:
        if self._pending is not None:
            self._write_train(*self._pending)
        if self._tb is not None:
            self._tb.flush()

    def close(self) -> None:
        self.writer.close()
        if self._tb is not None:
            self._tb.close()


class CheckpointSaver(Listener):
    """Saves ``tf.train.CheckpointManager`` checkpoints numbered by step: every
    ``every`` steps, when the run stops, and at the end (never NaN weights)."""

    def __init__(self, checkpoint: Any, manager: Any, every: int) -> None:
        self.checkpoint = checkpoint
        self.manager = manager
        self.every = max(1, every)
        self.saved_at = -1

    def save(self, state: TrainState) -> None:
        if self.saved_at == state.step:
            return
        self.checkpoint.step.assign(state.step)
        self.manager.save(checkpoint_number=state.step)
        self.saved_at = state.step

    def on_batch_end(self, state: TrainState, logs: Mapping[str, float]) -> None:
        if state.step % self.every == 0 and not state.stop_reason == STOP_NAN:
            self.save(state)

    def on_train_end(self, state: TrainState, outcome: str) -> None:
        if state.stop_reason != STOP_NAN and state.step > 0:
            self.save(state)


class Heartbeat(Listener):
    """Refreshes ``status.json`` (step, epoch, speed, ETA) at most every ``interval`` s."""

    def __init__(self, writer: RunWriter, interval: float = 1.0) -> None:
        self.writer = writer
        self.interval = interval
        self._last = 0.0

    def beat(self, train: TrainState, **extra: Any) -> None:
        state = train
        rate = state.samples_per_sec
        steps_left = max(0, state.total_steps - state.step)
        step_rate = rate / max(1, state.batch_size)
        eta = steps_left / step_rate if step_rate > 0 else None
        self.writer.set_status(step=state.step, epoch=state.epoch,
                               total_steps=state.total_steps, epochs=state.epochs_total,
                               samples_per_sec=round(rate, 2),
                               eta_seconds=round(eta, 1) if eta is not None else None,
                               elapsed=round(state.elapsed, 2), last=_finite(state.last_logs),
                               last_val=_finite(state.last_val), **extra)
        self._last = time.time()

    def on_train_start(self, state: TrainState) -> None:
        self.beat(state)

    def on_batch_end(self, state: TrainState, logs: Mapping[str, float]) -> None:
        if state.stop_reason == STOP_REQUEST and self.writer.status.state == RUNNING:
            self.beat(state, state=STOPPING)
        elif time.time() - self._last >= self.interval:
            self.beat(state)

    def on_epoch_end(self, state: TrainState, val_logs: Mapping[str, float] | None) -> None:
        if val_logs or time.time() - self._last >= self.interval:
            self.beat(state)
