"""The two loop styles of the tutorials: Keras ``fit`` and a hand-written GradientTape loop
(eager or ``tf.function``). Both walk the same deterministic batch order (a permutation
per epoch from the seed), so a resumed run continues mid-epoch exactly where it stopped,
and both report through the same :class:`tfcore.training.callbacks.Listeners`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterator

import numpy as np

from tfcore.training.callbacks import Listeners, TrainState
from tfcore.training.config import LOSSES, METRICS, TrainConfig, make_loss, make_metrics


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


MAX_CHUNK_STEPS, MAX_CHUNK_ROWS = 2000, 20_000


def fit_chunk(state: TrainState, config: TrainConfig, n: int) -> tuple[int, np.ndarray]:
    """Example indices for the next ``model.fit`` call: the rest of the current epoch and,
    when every batch is full (``n % batch_size == 0``), following epochs up to the next
    validation, so thousands of tiny epochs (M1) do not cost one ``fit`` call each.
    Returns ``(epochs spanned, indices)``."""
    spe, bs = state.steps_per_epoch, config.batch_size
    epoch_index, done = divmod(state.step, spe)
    epochs = 1
    if n % bs == 0:
        epoch_no = epoch_index + 1
        next_val = -(-epoch_no // config.validate_every) * config.validate_every
        cap = max(1, min(MAX_CHUNK_STEPS // spe, MAX_CHUNK_ROWS // max(1, n)))
        epochs = max(1, min(next_val, epoch_no + cap - 1) - epoch_no + 1)
    parts, steps_left = [], state.total_steps - state.step
    for offset in range(epochs):
        if steps_left <= 0:
            break
        order = epoch_order(n, config.seed, epoch_index + offset, config.shuffle)
        start = done * bs if offset == 0 else 0
        take = min(spe - start // bs, steps_left)
        parts.append(order[start:start + take * bs])
        steps_left -= take
    return len(parts), np.concatenate(parts) if parts else np.zeros((0,), np.int64)


def _epoch_complete(state: TrainState) -> bool:
    return state.step % state.steps_per_epoch == 0 or state.step >= state.total_steps


def _should_validate(state: TrainState, config: TrainConfig, data: TrainData) -> bool:
    if not len(data.x_val) or not _epoch_complete(state) or state.should_stop:
        return False
    epoch_done = math.ceil(state.step / state.steps_per_epoch)
    return epoch_done % config.validate_every == 0 or state.step >= state.total_steps


# ---------------------------------------------------------------- Keras fit
def compile_for_fit(model: Any, optimizer: Any, config: TrainConfig) -> None:
    model.compile(optimizer=optimizer, loss=make_loss(config.loss),
                  metrics=make_metrics(config.metrics), run_eagerly=bool(config.eager),
                  jit_compile=False)


def fit_loop(model: Any, data: TrainData, config: TrainConfig, strategy: Any,
             state: TrainState, listeners: Listeners, optimizer: Any) -> None:
    """Train with ``model.fit``: one call per epoch (or per run of whole epochs up to the
    next validation, see :func:`fit_chunk`)."""
    import keras
    import tensorflow as tf

    with strategy.scope():
        compile_for_fit(model, optimizer, config)
    names = ("loss",) + tuple(config.metrics)

    class Bridge(keras.callbacks.Callback):
        """Turns Keras' running epoch means into per-batch values and listener events."""

        def __init__(self, sizes: np.ndarray) -> None:
            super().__init__()
            self.sizes = sizes
            self.prev = {n: 0.0 for n in names}
            self.seen = 0

        def on_train_batch_end(self, batch: int, logs: Any = None) -> None:
            logs = logs or {}
            size = int(self.sizes[min(batch, len(self.sizes) - 1)])
            total = self.seen + size
            values = {}
            for n in names:
                if n in logs:
                    mean = float(logs[n])
                    values[n] = (mean * total - self.prev[n] * self.seen) / size
                    self.prev[n] = mean
            self.seen = total
            state.step += 1
            state.epoch = (state.step - 1) // state.steps_per_epoch + 1
            state.samples += size
            listeners.on_batch_end(state, values)
            if state.should_stop:
                self.model.stop_training = True
            elif state.step % state.steps_per_epoch == 0 and batch < len(self.sizes) - 1:
                listeners.on_epoch_end(state, None)     # an inner epoch of a chunk

    bs = config.batch_size
    while state.step < state.total_steps and not state.should_stop:
        _, idx = fit_chunk(state, config, data.n_train)
        state.epoch = state.step // state.steps_per_epoch + 1
        sizes = np.array([len(idx[i:i + bs]) for i in range(0, len(idx), bs)])
        ds = (tf.data.Dataset.from_tensor_slices((data.x_train[idx], data.y_train[idx]))
              .batch(bs).prefetch(tf.data.AUTOTUNE))
        model.fit(ds, epochs=1, verbose=0, callbacks=[Bridge(sizes)], shuffle=False)
        val = None
        if _should_validate(state, config, data):
            val = model.evaluate(data.x_val, data.y_val, batch_size=bs, verbose=0,
                                 return_dict=True)
            val = {k: float(v) for k, v in val.items() if k in names}
        if _epoch_complete(state) or state.should_stop:
            listeners.on_epoch_end(state, val if _epoch_complete(state) else None)


def evaluate_fit(model: Any, x: np.ndarray, y: np.ndarray, config: TrainConfig) -> dict:
    names = ("loss",) + tuple(config.metrics)
    out = model.evaluate(x, y, batch_size=config.batch_size, verbose=0, return_dict=True)
    return {k: float(v) for k, v in out.items() if k in names}


# ---------------------------------------------------------------- GradientTape loop
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

    def _train_replicas(self, x: Any, y: Any) -> dict:
        return self._reduce(self.strategy.run(self._train_one, args=(x, y)))

    def _eval_one(self, x: Any, y: Any) -> dict:
        pred = self.model(x, training=False)
        return self._stats(y, pred, self.loss_obj(y, pred))

    def _eval_replicas(self, x: Any, y: Any) -> dict:
        return self._reduce(self.strategy.run(self._eval_one, args=(x, y)))

    def finish(self, packed: Any) -> dict:
        """Packed sums ``[loss, count, metrics...]`` -> loss and metric values."""
        values = np.asarray(packed, dtype=np.float64).ravel()
        loss, count = float(values[0]), max(float(values[1]), 1.0)
        out = {"loss": loss / count if self.mean_loss else loss}
        for index, (name, _) in enumerate(self.metric_sums):
            out[name] = float(values[2 + index]) / count
        return out


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


def custom_loop(model: Any, data: TrainData, config: TrainConfig, strategy: Any,
                state: TrainState, listeners: Listeners, optimizer: Any) -> None:
    """Train with a GradientTape step, eagerly or as ``tf.function``."""
    steps = TapeSteps(model, optimizer, config, strategy)
    bs = config.batch_size
    for _epoch_index, idx in epoch_plan(state, config, data.n_train):
        x, y = data.x_train[idx], data.y_train[idx]
        for xb, yb, size in _batches(strategy, x, y, bs):
            sums = steps.train_fn(xb, yb)
            state.step += 1
            state.samples += size
            listeners.on_batch_end(state, steps.finish(sums))
            if state.should_stop:
                break
        val = None
        if _should_validate(state, config, data):
            val = evaluate_custom(steps, data.x_val, data.y_val, bs)
        if _epoch_complete(state) or state.should_stop:
            listeners.on_epoch_end(state, val if _epoch_complete(state) else None)


def evaluate_custom(steps: TapeSteps, x: np.ndarray, y: np.ndarray, bs: int) -> dict:
    total = None
    for xb, yb, _ in _batches(steps.strategy, x, y, bs):
        packed = np.asarray(steps.eval_fn(xb, yb), dtype=np.float64)
        total = packed if total is None else total + packed
    return steps.finish(total) if total is not None else {}


LOOPS: dict = {"fit": fit_loop, "custom": custom_loop}
