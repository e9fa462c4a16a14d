"""The hand-written GradientTape loop (eager or ``tf.function``).

On one replica (and without pacing or eager mode) one ``tf.function`` call trains several
steps: the training split is one tensor on the device for the whole run, a graph loop
gathers batch after batch in the epoch's order (an index tensor), and the call returns a ``[steps, 2 + metrics]`` matrix of per-step sums (loss, count, metrics), so
every step is still recorded while the host reads once a call. A call never crosses a
checkpoint step or an epoch end (:func:`tfcore.training.plan.steps_to_boundary`), and the
number of steps a call trains grows until a call takes about :data:`CALL_SECONDS`; the
first call trains one step so the first point appears at once. Under MirroredStrategy,
in eager mode and when paced, each call trains one step.
"""

from __future__ import annotations

import time
from typing import Any, Iterator

import numpy as np

from tfcore.training.callbacks import Listeners, TrainState
from tfcore.training.config import TrainConfig
from tfcore.training.losses import LOSSES, METRICS, make_loss
from tfcore.training.plan import (
    Pacer,
    TrainData,
    epoch_complete,
    epoch_plan,
    should_validate,
    steps_to_boundary,
)

CALL_SECONDS = 0.05      # aim of one multi-step call: short enough for a prompt stop
MAX_STEPS_PER_CALL = 256


class TapeSteps:
    """The train and eval steps of the hand-written loop, per replica and reduced."""

    def __init__(self, model: Any, optimizer: Any, config: TrainConfig, strategy: Any) -> None:
        import tensorflow as tf

        self.tf, self.model, self.optimizer, self.strategy = tf, model, optimizer, strategy
        self.config = config
        self.loss_obj = make_loss(config.loss, per_example=True)
        self.mean_loss = LOSSES[config.loss].reduction != "sum"
        self.metric_sums = [(n, METRICS[n].batch_sum) for n in config.metrics]
        wrap = (lambda f: f) if config.eager else (lambda f: tf.function(f, reduce_retracing=True))
        self.train_fn = wrap(self._train_replicas)
        self.eval_fn = wrap(self._eval_replicas)
        self.many_fn = None if config.eager else tf.function(
            self._train_many, reduce_retracing=True, autograph=False)

    def _stats(self, y: Any, pred: Any, per_example: Any) -> dict:
        tf = self.tf
        out = {"loss": tf.reduce_sum(tf.cast(per_example, tf.float32)),
               "count": tf.cast(tf.shape(per_example)[0], tf.float32)}
        for name, fn in self.metric_sums:
            out[name] = fn(tf, y, tf.cast(pred, tf.float32))
        return out

    def _train_one(self, x: Any, y: Any) -> dict:
        tf = self.tf
        ctx = tf.distribute.get_replica_context()
        count = tf.cast(tf.shape(x)[0], tf.float32)
        global_count = ctx.all_reduce(tf.distribute.ReduceOp.SUM, count)
        with tf.GradientTape() as tape:
            pred = self.model(x, training=True)
            per_example = self.loss_obj(y, pred)
            total = tf.reduce_sum(tf.cast(per_example, tf.float32))
            loss = total / global_count if self.mean_loss else total
            if self.model.losses:
                loss += tf.add_n(self.model.losses) / tf.cast(ctx.num_replicas_in_sync,
                                                                tf.float32)
            scaled = self.optimizer.scale_loss(loss)
        variables = self.model.trainable_variables
        grads = tape.gradient(scaled, variables)
        self.optimizer.apply_gradients(zip(grads, variables))
        return self._stats(y, pred, per_example)

    def _reduce(self, per_replica: dict) -> Any:
        """Sum over replicas, packed in one vector (one device-to-host copy per step)."""
        keys = ["loss", "count"] + [n for n, _ in self.metric_sums]
        return self.tf.stack([self.strategy.reduce(self.tf.distribute.ReduceOp.SUM,
                                                   per_replica[k], axis=None) for k in keys])

    def _train_replicas(self, x: Any, y: Any) -> Any:
        return self._reduce(self.strategy.run(self._train_one, args=(x, y)))

    def _train_many(self, x: Any, y: Any, order: Any, first: Any, count: Any) -> Any:
        """Train batches ``first .. first + count - 1`` of the epoch whose example order
        (indices into the training tensors ``x, y``) is ``order``; returns one row of
        packed sums per step. A graph loop written out (no AutoGraph: nothing to convert
        while tracing), each batch gathered on the device."""
        tf, bs = self.tf, self.config.batch_size

        def body(i: Any, rows: Any) -> tuple[Any, Any]:
            lo = (first + i) * bs
            idx = order[lo:lo + bs]
            return i + 1, rows.write(i, self._train_replicas(tf.gather(x, idx),
                                                              tf.gather(y, idx)))

        rows = tf.TensorArray(tf.float32, size=count, element_shape=[2 + len(self.metric_sums)])
        _, rows = tf.while_loop(lambda i, _: i < count, body, (tf.constant(0), rows))
        return rows.stack()

    def _eval_one(self, x: Any, y: Any) -> dict:
        pred = self.model(x, training=False)
        return self._stats(y, pred, self.loss_obj(y, pred))

    def _eval_replicas(self, x: Any, y: Any) -> Any:
        return self._reduce(self.strategy.run(self._eval_one, args=(x, y)))

    def finish(self, packed: Any) -> dict:
        """Packed sums ``[loss, count, metrics...]`` -> loss and metric values."""
        return self.finish_rows(np.asarray(packed, dtype=np.float64).reshape(1, -1))[0]

    def finish_rows(self, rows: np.ndarray) -> list[dict]:
        """One row of packed sums per step -> each step's loss and metric values."""
        rows = np.asarray(rows, dtype=np.float64)
        count = np.maximum(rows[:, 1], 1.0)
        columns = [("loss", rows[:, 0] / count if self.mean_loss else rows[:, 0])]
        columns += [(name, rows[:, 2 + i] / count) for i, (name, _) in
                    enumerate(self.metric_sums)]
        names = [name for name, _ in columns]
        return [dict(zip(names, values)) for values in
                zip(*(column.tolist() for _, column in columns))]


def _batches(strategy: Any, x: np.ndarray, y: np.ndarray, bs: int) -> Iterator[tuple[Any, Any, int]]:
    """Batches of ``(x, y, size)``: plain tensors on one replica, distributed otherwise."""
    import tensorflow as tf

    if strategy.num_replicas_in_sync == 1:
        for start in range(0, len(x), bs):
            xb, yb = x[start:start + bs], y[start:start + bs]
            yield tf.convert_to_tensor(xb), tf.convert_to_tensor(yb), len(xb)
        return
    sizes = [len(x[i:i + bs]) for i in range(0, len(x), bs)]
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(bs)
    options = tf.data.Options()
    options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.DATA
    dist = strategy.experimental_distribute_dataset(ds.with_options(options))
    for (xb, yb), size in zip(dist, sizes):
        yield xb, yb, size


def _one_step_epoch(steps: TapeSteps, x: np.ndarray, y: np.ndarray, state: TrainState,
                    listeners: Listeners, pacer: Pacer) -> None:
    """One call per step: MirroredStrategy, eager mode, or a paced run."""
    for xb, yb, size in _batches(steps.strategy, x, y, steps.config.batch_size):
        pacer.wait()
        if state.should_stop:
            break
        sums = steps.train_fn(xb, yb)
        state.step += 1
        state.samples += size
        listeners.on_batch_end(state, steps.finish(sums))
        if state.should_stop:
            break


class CallSizer:
    """How many steps the next multi-step call trains: 1 first, then about
    :data:`CALL_SECONDS` worth, never more than 4x the last call."""

    def __init__(self) -> None:
        self.size = 1
        self.calls = 0

    def update(self, steps: int, seconds: float) -> None:
        self.calls += 1
        if self.calls < 2 or seconds <= 0:     # the first call also traced the function
            self.size = max(self.size, 2)
            return
        want = int(CALL_SECONDS * steps / seconds)
        self.size = max(1, min(MAX_STEPS_PER_CALL, want, 4 * self.size))


def _multi_step_epoch(steps: TapeSteps, arrays: tuple[Any, Any], order: np.ndarray,
                      state: TrainState, listeners: Listeners, sizer: CallSizer) -> None:
    """Several steps per ``tf.function`` call over the training tensors ``arrays`` in the
    epoch's remaining ``order``; every step is reported."""
    tf, bs = steps.tf, steps.config.batch_size
    order_t = tf.convert_to_tensor(order.astype(np.int32))
    n, batches, done = len(order), -(-len(order) // bs), 0
    while done < batches and not state.should_stop:
        count = min(sizer.size, batches - done, steps_to_boundary(state, steps.config))
        began = time.perf_counter()
        rows = steps.many_fn(*arrays, order_t, tf.constant(done, tf.int32),
                             tf.constant(count, tf.int32)).numpy()
        sizer.update(count, time.perf_counter() - began)
        results = steps.finish_rows(rows)
        for index, values in enumerate(results):
            state.ahead = len(results) - 1 - index     # the model is at the call's last step
            state.step += 1
            state.samples += min(bs, n - done * bs)
            done += 1
            listeners.on_batch_end(state, values)
        state.ahead = 0


def device_arrays(tf: Any, data: TrainData) -> tuple[Any, Any]:
    """The training split as tensors on the default device, made once per run."""
    return (tf.identity(tf.convert_to_tensor(data.x_train)),
            tf.identity(tf.convert_to_tensor(data.y_train)))


def custom_loop(model: Any, data: TrainData, config: TrainConfig, strategy: Any,
                state: TrainState, listeners: Listeners, optimizer: Any) -> None:
    """Train with a GradientTape step, eagerly or as ``tf.function``."""
    steps = TapeSteps(model, optimizer, config, strategy)
    pacer = Pacer(config.steps_per_second, listeners, state)
    multi = (steps.many_fn is not None and not pacer.active
             and strategy.num_replicas_in_sync == 1       # 1-step epochs (M1): one per call
             and min(state.steps_per_epoch, config.sync_every, state.total_steps) > 1)
    sizer = CallSizer()
    bs = config.batch_size
    arrays = device_arrays(steps.tf, data) if multi else None
    for _epoch_index, idx in epoch_plan(state, config, data.n_train):
        if multi:
            _multi_step_epoch(steps, arrays, idx, state, listeners, sizer)
        else:
            _one_step_epoch(steps, data.x_train[idx], data.y_train[idx], state, listeners,
                            pacer)
        val = None
        if should_validate(state, config, data):
            val = evaluate_custom(steps, data.x_val, data.y_val, bs)
        if epoch_complete(state) or state.should_stop:
            listeners.on_epoch_end(state, val if epoch_complete(state) else None)


def evaluate_custom(steps: TapeSteps, x: np.ndarray, y: np.ndarray, bs: int) -> dict:
    total = None
    for xb, yb, _ in _batches(steps.strategy, x, y, bs):
        packed = np.asarray(steps.eval_fn(xb, yb), dtype=np.float64)
        total = packed if total is None else total + packed
    return steps.finish(total) if total is not None else {}
