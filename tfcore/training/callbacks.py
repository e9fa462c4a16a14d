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

from tfcore.rundir import RUNNING, STOPPING, RunPaths, RunWriter
from tfcore.training.losses import bound_rates
from tfcore.training.recorder import (
    TEST_RUN,
    TRAIN_RUN,
    VALIDATION_RUN,
    RecordBuffer,
    TBRuns,
    compact,
    finite,
)

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
    ahead: int = 0                 # steps the model has trained past ``step`` (a multi-step
                                   # call's steps are reported after it returns)
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

    def on_idle(self, state: TrainState) -> None:
        """Called while a paced loop waits between steps (e.g. to notice a stop request)."""


class Listeners(Listener):
    """Dispatch each event to every listener, in order; every listener hears rates inside
    [0, 1] (:func:`tfcore.training.losses.bound_rates`)."""

    def __init__(self, items: Sequence[Listener]) -> None:
        self.items = list(items)

    def keras_callbacks(self) -> list[Any]:
        """Extra Keras callbacks the ``fit`` loop passes to ``model.fit`` (a cluster
        run's BackupAndRestore); none for a local run."""
        return []

    def on_train_start(self, state: TrainState) -> None:
        for item in self.items:
            item.on_train_start(state)

    def on_batch_end(self, state: TrainState, logs: Mapping[str, float]) -> None:
        logs = state.last_logs = bound_rates(logs)
        for item in self.items:
            item.on_batch_end(state, logs)

    def on_epoch_end(self, state: TrainState, val_logs: Mapping[str, float] | None) -> None:
        if val_logs:
            val_logs = state.last_val = bound_rates(val_logs)
        for item in self.items:
            item.on_epoch_end(state, val_logs)

    def on_train_end(self, state: TrainState, outcome: str) -> None:
        for item in self.items:
            item.on_train_end(state, outcome)

    def on_idle(self, state: TrainState) -> None:
        for item in self.items:
            item.on_idle(state)


class StopPoller(Listener):
    """Asks the loop to stop after the current batch once ``stop.request`` exists."""

    def __init__(self, paths: RunPaths) -> None:
        self.path = paths.stop_request

    def on_batch_end(self, state: TrainState, logs: Mapping[str, float]) -> None:
        if self.path.exists():
            state.request_stop(STOP_REQUEST)

    def on_idle(self, state: TrainState) -> None:
        if self.path.exists():
            state.request_stop(STOP_REQUEST)


class NaNGuard(Listener):
    """Stops the run when the loss becomes NaN or infinite."""

    def on_batch_end(self, state: TrainState, logs: Mapping[str, float]) -> None:
        loss = logs.get("loss")
        if loss is not None and not math.isfinite(loss):
            state.request_stop(STOP_NAN)


class EpochMeans:
    """The running means of one epoch's steps, each step weighted by its examples: what
    Keras reports at an epoch's end (for a mean metric such as an accuracy, exactly it)."""

    def __init__(self) -> None:
        self.sums: dict[str, float] = {}
        self.weight = 0.0

    def add(self, logs: Mapping[str, float], weight: float) -> None:
        for name, value in logs.items():
            self.sums[name] = self.sums.get(name, 0.0) + float(value) * weight
        self.weight += weight

    def take(self) -> dict[str, float]:
        """The means so far (empty when no step was seen), and start afresh."""
        means = {k: v / self.weight for k, v in self.sums.items()} if self.weight else {}
        self.sums, self.weight = {}, 0.0
        return means


class MetricsLogger(Listener):
    """Records every training step (every ``log_every``-th) in ``metrics.jsonl`` and as
    TensorBoard scalars, batched: records wait in memory and are written at most
    ``max_per_sec`` times a second, and always at the first step of an attempt, at every
    epoch end, on a stop request and at the end; a val record after every evaluated epoch.
    Records written together share one ``samples_per_sec``: the rate since the last write.

    TensorBoard gets what ``keras.callbacks.TensorBoard(update_freq=1)`` writes, in its
    layout (``tb/train/``, ``tb/validation/``): ``batch_<metric>`` at each recorded step
    (this step's own value, as ``metrics.jsonl``), ``epoch_<metric>`` at each complete
    epoch (step = the 0-based epoch index; train: the mean of this attempt's steps of the
    epoch), ``evaluation_<metric>_vs_iterations`` at each evaluation (step = the training
    step; the final test evaluation in ``tb/test/``) and the model graph
    (:meth:`write_graph`).
    """

    def __init__(self, paths: RunPaths, log_every: int = 1, max_per_sec: float = 4.0,
                 tensorboard: bool = True) -> None:
        self.buffer = RecordBuffer(paths.metrics, None)
        self.log_every = max(1, log_every)
        self.min_gap = 1.0 / max_per_sec if max_per_sec > 0 else 0.0
        self.tb_dir = paths.tb_dir
        self.tensorboard = tensorboard
        self._last_flush = 0.0
        self._window = (time.time(), 0)          # (clock, samples) at the last write
        self._pending_rate: list[dict] = []      # train records still without a rate
        self._epoch = EpochMeans()
        self._seen = 0                           # state.samples at the last step

    def _board(self) -> TBRuns | None:
        if self.tensorboard and self.buffer.tb is None:
            self.buffer.tb = TBRuns(self.tb_dir)
        return self.buffer.tb

    def write_graph(self, model: Any, sample: Any) -> None:
        """Write ``model``'s graph (traced for batches shaped like ``sample``) to
        ``tb/train/``, as Keras' callback does when ``write_graph`` is on."""
        board = self._board()
        if board is not None:
            board.write_graph(model, sample)
            board.flush()

    def on_train_start(self, state: TrainState) -> None:
        self._board()
        self._window = (time.time(), state.samples)
        self._seen = state.samples

    def _add(self, state: TrainState, split: str, logs: Mapping[str, float]) -> dict:
        now = time.time()
        record = {"step": state.step, "epoch": state.epoch, "time": round(now, 3),
                  "elapsed": round(state.elapsed, 3), "split": split,
                  **{k: compact(v) for k, v in logs.items()}}
        self.buffer.add(record)
        add = self.buffer.add_scalars
        if split == "train":
            add(TRAIN_RUN, state.step, logs, now, "batch_{}")
        elif split == "val":
            add(VALIDATION_RUN, state.epoch - 1, logs, now, "epoch_{}")
            add(VALIDATION_RUN, state.step, logs, now, "evaluation_{}_vs_iterations")
        else:
            add(TEST_RUN, state.step, logs, now, "evaluation_{}_vs_iterations")
        return record

    def flush(self, state: TrainState) -> None:
        """Write what is pending; train records get the rate since the last write."""
        now = time.time()
        clock, samples = self._window
        if self._pending_rate:
            spent = now - clock
            rate = round((state.samples - samples) / spent, 2) if spent > 0 else 0.0
            for record in self._pending_rate:
                record["samples_per_sec"] = rate
            self.buffer.add_scalars(TRAIN_RUN, state.step, {"samples_per_sec": rate}, now,
                                    "batch_{}")
            self._pending_rate = []
            self._window = (now, state.samples)
        self.buffer.flush()
        self._last_flush = now

    def on_batch_end(self, state: TrainState, logs: Mapping[str, float]) -> None:
        self._epoch.add(logs, max(1, state.samples - self._seen))
        self._seen = state.samples
        first = state.step == state.start_step + 1
        last = state.step >= state.total_steps or state.should_stop
        if first or last or state.step % self.log_every == 0:
            self._pending_rate.append(self._add(state, "train", logs))
        if first or last or time.time() - self._last_flush >= self.min_gap:
            self.flush(state)

    def on_epoch_end(self, state: TrainState, val_logs: Mapping[str, float] | None) -> None:
        means = self._epoch.take()
        if state.step % state.steps_per_epoch == 0 or state.step >= state.total_steps:
            self.buffer.add_scalars(TRAIN_RUN, state.epoch - 1, means, tag="epoch_{}")
        if val_logs:
            self._add(state, "val", val_logs)
        self.flush(state)

    def log_test(self, state: TrainState, logs: Mapping[str, float]) -> None:
        self._add(state, "test", bound_rates(logs))
        self.flush(state)

    def on_train_end(self, state: TrainState, outcome: str) -> None:
        self.flush(state)
        if self.buffer.tb is not None:
            self.buffer.tb.flush()

    def close(self) -> None:
        self.buffer.close()


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


class SteadyRate:
    """Time left from the steady speed, or None until that speed is known.

    The first step of an attempt traces and builds the graph (seconds, where a later step
    takes milliseconds), so the clock starts when it ends; steps reported together with it
    (one multi-step call, within :attr:`BURST` s) are part of that warm-up too. An estimate
    needs :attr:`MIN_STEPS` steps and :attr:`MIN_SECONDS` s after the warm-up; it is the
    steps left times the mean time of a step since then (validation included).
    """

    MIN_STEPS = 3
    MIN_SECONDS = 1.0
    BURST = 0.005

    def __init__(self) -> None:
        self.mark: tuple[float, int] | None = None     # (clock, step) at the warm-up's end

    def observe(self, step: int, now: float) -> None:
        """Note that ``step`` finished at ``now``."""
        if self.mark is None or now - self.mark[0] < self.BURST:
            self.mark = (self.mark[0] if self.mark else now, step)

    def eta(self, step: int, total_steps: int, now: float) -> float | None:
        """Seconds left to ``total_steps``, or None while the steady speed is unknown."""
        if self.mark is None:
            return None
        steps, spent = step - self.mark[1], now - self.mark[0]
        if steps < self.MIN_STEPS or spent < self.MIN_SECONDS:
            return None
        return max(0, total_steps - step) * spent / steps


class Heartbeat(Listener):
    """Refreshes ``status.json`` (step, epoch, speed, ETA) at most every ``interval`` s."""

    def __init__(self, writer: RunWriter, interval: float = 1.0) -> None:
        self.writer = writer
        self.interval = interval
        self.steady = SteadyRate()
        self._last = 0.0

    def beat(self, train: TrainState, **extra: Any) -> None:
        state = train
        eta = self.steady.eta(state.step, state.total_steps, time.time())
        self.writer.set_status(step=state.step, epoch=state.epoch,
                               total_steps=state.total_steps, epochs=state.epochs_total,
                               samples_per_sec=round(state.samples_per_sec, 2),
                               eta_seconds=round(eta, 1) if eta is not None else None,
                               elapsed=round(state.elapsed, 2), last=finite(state.last_logs),
                               last_val=finite(state.last_val), **extra)
        self._last = time.time()

    def on_train_start(self, state: TrainState) -> None:
        self.beat(state)

    def on_batch_end(self, state: TrainState, logs: Mapping[str, float]) -> None:
        self.steady.observe(state.step, time.time())
        if state.stop_reason == STOP_REQUEST and self.writer.status.state == RUNNING:
            self.beat(state, state=STOPPING)
        elif time.time() - self._last >= self.interval:
            self.beat(state)

    def on_epoch_end(self, state: TrainState, val_logs: Mapping[str, float] | None) -> None:
        if val_logs or time.time() - self._last >= self.interval:
            self.beat(state)
