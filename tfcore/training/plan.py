"""What a loop trains next: the deterministic batch order, the plan of an epoch, the
chunks of ``model.fit`` calls, where calls must end (epochs, checkpoints) and the pace.

Both loops walk the same batch order (a permutation per epoch from the seed), so a
resumed run continues mid-epoch exactly where it stopped.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Iterator

import numpy as np

from tfcore.training.callbacks import Listeners, TrainState
from tfcore.training.config import TrainConfig


@dataclass(frozen=True)
class TrainData:
    """In-memory arrays of the train and validation splits."""

    x_train: np.ndarray
    y_train: np.ndarray
    x_val: np.ndarray
    y_val: np.ndarray

    @property
    def n_train(self) -> int:
        return int(len(self.x_train))


def epoch_order(n: int, seed: int, epoch_index: int, shuffle: bool) -> np.ndarray:
    """The example order of one epoch: the same for the same seed and epoch."""
    if not shuffle:
        return np.arange(n)
    return np.random.default_rng([seed, epoch_index]).permutation(n)


def epoch_plan(state: TrainState, config: TrainConfig, n: int) -> Iterator[tuple[int, np.ndarray]]:
    """Yield ``(epoch_index, example indices still to train this epoch)`` from
    ``state.step`` until ``state.total_steps``."""
    spe, bs = state.steps_per_epoch, config.batch_size
    while state.step < state.total_steps and not state.should_stop:
        epoch_index, done = divmod(state.step, spe)
        steps = min(spe - done, state.total_steps - state.step)
        order = epoch_order(n, config.seed, epoch_index, config.shuffle)
        state.epoch = epoch_index + 1
        yield epoch_index, order[done * bs:(done + steps) * bs]


MAX_PIECE_ROWS = 20_000


def fit_span_end(state: TrainState, config: TrainConfig, has_val: bool) -> int:
    """The step one ``model.fit`` call trains up to: the end of the next epoch that is
    validated (validation runs between calls), else the end of the run."""
    spe = state.steps_per_epoch
    if not has_val:
        return state.total_steps
    epoch_no = state.step // spe + 1
    next_val = -(-epoch_no // config.validate_every) * config.validate_every
    return min(state.total_steps, next_val * spe)


def fit_call_end(state: TrainState, config: TrainConfig, per_execution: int,
                 span_end: int) -> int:
    """Where the next ``model.fit`` call ends when each graph call trains
    ``per_execution`` steps: checkpoints must see the model of their step, so every
    checkpoint step must end a graph call. When ``per_execution`` divides ``ckpt_every``
    that holds within one call that starts on a multiple of ``per_execution`` (a run
    resumed elsewhere first trains up to one); otherwise each call ends at the next
    checkpoint step (``config.sync_every``: checkpoints and a set insight interval)."""
    step, every = state.step, config.sync_every
    if per_execution > 1 and every % per_execution:
        return min(span_end, step + every - step % every)
    if step % per_execution:
        return min(span_end, step + per_execution - step % per_execution)
    return span_end


def batch_indices(start: int, end: int, spe: int, config: TrainConfig,
                  n: int) -> Iterator[np.ndarray]:
    """Example indices of the steps ``start .. end - 1`` (``spe`` steps an epoch) in the run's batch order, in
    pieces that batch into exactly those steps: the rest of one epoch, or, when every
    batch is full (``n % batch_size == 0``), several whole epochs (at most
    :data:`MAX_PIECE_ROWS` rows unless one epoch is more), so thousands of tiny epochs
    (M1) are not one piece each."""
    bs = config.batch_size
    step, parts, rows = start, [], 0
    while step < end:
        epoch_index, done = divmod(step, spe)
        take = min(spe - done, end - step)
        order = epoch_order(n, config.seed, epoch_index, config.shuffle)
        part = order[done * bs:(done + take) * bs]
        step += take
        if n % bs:
            yield part
            continue
        parts.append(part)
        rows += len(part)
        if rows >= MAX_PIECE_ROWS or step >= end:
            yield np.concatenate(parts)
            parts, rows = [], 0


def epoch_complete(state: TrainState) -> bool:
    return state.step % state.steps_per_epoch == 0 or state.step >= state.total_steps


def should_validate(state: TrainState, config: TrainConfig, data: TrainData) -> bool:
    if not len(data.x_val) or not epoch_complete(state) or state.should_stop:
        return False
    epoch_done = math.ceil(state.step / state.steps_per_epoch)
    return epoch_done % config.validate_every == 0 or state.step >= state.total_steps


def steps_to_boundary(state: TrainState, config: TrainConfig) -> int:
    """Steps until the next checkpoint step, the end of the epoch or of the run (>= 1):
    a call that trains several steps must end there, so that checkpoints, validation and
    epoch ends see the model exactly at their step."""
    step = state.step
    ckpt = config.sync_every - step % config.sync_every
    epoch = state.steps_per_epoch - step % state.steps_per_epoch
    return max(1, min(ckpt, epoch, state.total_steps - step))


class Pacer:
    """Demo pacing: at most ``steps_per_second`` steps a second (None: no wait).

    While it waits it calls ``listeners.on_idle`` every 0.1 s at most, so a stop request
    ends the wait; a loop slower than the pace never waits and never bursts to catch up.
    """

    SLICE = 0.1

    def __init__(self, steps_per_second: float | None, listeners: Listeners,
                 state: TrainState) -> None:
        self.gap = 1.0 / steps_per_second if steps_per_second else 0.0
        self.listeners, self.state = listeners, state
        self._due = time.perf_counter()

    @property
    def active(self) -> bool:
        return self.gap > 0

    def wait(self) -> None:
        """Call before each step: sleep until it is due (or a stop was requested)."""
        if not self.gap:
            return
        while not self.state.should_stop:
            left = self._due - time.perf_counter()
            if left <= 0:
                break
            time.sleep(min(left, self.SLICE))
            self.listeners.on_idle(self.state)
        self._due = max(self._due, time.perf_counter()) + self.gap
