"""The two loop styles of the tutorials: Keras ``fit`` and a hand-written GradientTape loop
(eager or ``tf.function``, in ``tfcore.training.tape_loop``). Both walk the same
deterministic batch order (``tfcore.training.plan``), so a resumed run continues mid-epoch
exactly where it stopped, both report every step through the same
:class:`tfcore.training.callbacks.Listeners`, and both honour ``steps_per_second``.

``fit`` is called once per validation span (the whole run when there is no validation
split) over one ``tf.data`` pipeline that gathers each batch from the training arrays
(:func:`fit_dataset`), and runs up to :data:`FIT_STEPS_PER_EXECUTION` steps per graph call
(``steps_per_execution``, a divisor of ``ckpt_every``) on one replica when not paced; a
:class:`StepRecorder` keeps each step's loss and metric values on the device, so every step
is still recorded, and every checkpoint step ends a graph call, so checkpoints hold the
model of their step (:func:`tfcore.training.plan.fit_call_end`).
"""

from __future__ import annotations

from typing import Any

from tfcore.training.callbacks import Listeners, TrainState
from tfcore.training.config import TrainConfig
from tfcore.training.losses import make_loss, make_metrics
from tfcore.training.plan import (  # noqa: F401 - re-exported for callers and tests
    Pacer,
    TrainData,
    batch_indices,
    epoch_complete,
    epoch_order,
    epoch_plan,
    fit_call_end,
    fit_span_end,
    should_validate,
    steps_to_boundary,
)
from tfcore.training.registry import LOOP_KINDS
from tfcore.training.tape_loop import custom_loop, evaluate_custom  # noqa: F401

FIT_STEPS_PER_EXECUTION = 10      # the most steps per fit graph call
MIN_DIVISOR = 4                   # a smaller divisor of ckpt_every: calls end at checkpoints


# ---------------------------------------------------------------- Keras fit
def fit_steps_per_execution(config: TrainConfig, replicas: int) -> int:
    """Steps per ``fit`` graph call: 1 when paced, eager or on several replicas; else the
    largest divisor of ``ckpt_every`` up to :data:`FIT_STEPS_PER_EXECUTION` (so one ``fit``
    call passes checkpoint steps on graph-call ends), or that maximum when the divisor
    would be below :data:`MIN_DIVISOR` (each call then ends at a checkpoint step).
    (Checkpoint steps here are those of ``config.sync_every``: insight snapshots at a set
    interval need their step's model too.)"""
    if config.steps_per_second or config.eager or replicas > 1:
        return 1
    divisor = max(d for d in range(1, FIT_STEPS_PER_EXECUTION + 1) if config.sync_every % d == 0)
    return divisor if divisor >= MIN_DIVISOR else FIT_STEPS_PER_EXECUTION


def compile_for_fit(model: Any, optimizer: Any, config: TrainConfig,
                    steps_per_execution: int = 1) -> None:
    model.compile(optimizer=optimizer, loss=make_loss(config.loss),
                  metrics=make_metrics(config.metrics), run_eagerly=bool(config.eager),
                  jit_compile=False, steps_per_execution=steps_per_execution)


def report_batch_values(model: Any, sample: tuple[Any, Any]) -> None:
    """Make ``model.train_step`` return each batch's own loss and metric values instead of
    Keras' running means of the epoch so far (call it in the strategy's scope).

    Before a step the metrics' state (``model.metrics_variables``) is set aside and reset,
    so the step's logs are Keras' own ``result()`` of this batch alone (an accuracy is hits
    / examples, never above 1); after it the set-aside state is added back, so the running
    means Keras keeps for the epoch end are what they would have been (the state of every
    Mean, Sum and confusion-matrix metric adds up). Recovering a step's value from two
    running means instead, ``(mean_n·seen_n − mean_n−1·seen_n−1) / batch``, multiplies each
    float32 mean's rounding by ``seen / batch``: a batch that was all right read 1.000003.

    The compiled metrics are built first, from ``sample`` (a batch ``(x, y)``), as Keras
    builds them under a distribution strategy: otherwise they would be built while the step
    is traced, after the state was set aside, and their running means would leak through.
    """
    import tensorflow as tf

    if not all(getattr(m, "built", True) for m in model.metrics):
        model._symbolic_build(data_batch=tuple(tf.convert_to_tensor(a) for a in sample))
    if getattr(model, "_tflab_batch_values", False):
        return
    original = model.train_step

    def train_step(data: Any) -> Any:
        variables = list(model.metrics_variables)
        before = [tf.identity(v.value) for v in variables]
        model.reset_metrics()
        logs = tf.nest.map_structure(tf.identity, original(data))   # read before restoring
        for variable, value in zip(variables, before):
            variable.assign_add(value)
        return logs

    model.train_step = train_step
    model._tflab_batch_values = True


class StepRecorder:
    """Per-step loss and metric values of ``fit`` with ``steps_per_execution > 1``.

    Wraps the model's ``train_step`` (already reporting batch values, see
    :func:`report_batch_values`): after each step its values go into a ring of device
    variables that the host reads once per execution. The variables belong to this object,
    not the model, so checkpoints do not see them.
    """

    def __init__(self, model: Any, names: tuple[str, ...], capacity: int) -> None:
        import tensorflow as tf

        self.names, self.capacity = names, capacity
        self.rows = tf.Variable(tf.zeros([capacity, len(names)], tf.float32), trainable=False)
        self.count = tf.Variable(tf.constant(0, tf.int64), trainable=False)
        self.read = 0
        original = model.train_step

        def train_step(data: Any) -> Any:
            logs = original(data)
            values = tf.stack([tf.cast(logs[n], tf.float32) for n in names])
            row = tf.cast(self.count.read_value() % capacity, tf.int32)
            self.rows.scatter_nd_update([[row]], values[None])
            self.count.assign_add(1)
            return logs

        model.train_step = train_step

    def take(self) -> list[dict]:
        """The values of the steps finished since the last call, oldest first."""
        count = int(self.count.numpy())
        rows = self.rows.numpy()
        out = [dict(zip(self.names, (float(v) for v in rows[i % self.capacity])))
               for i in range(self.read, count)]
        self.read = count
        return out


def fit_dataset(arrays: tuple[Any, Any], config: TrainConfig, state: TrainState,
                end: int) -> Any:
    """The batches of the steps ``state.step .. end - 1``: the batch order's indices
    (:func:`tfcore.training.plan.batch_indices`, made lazily) batched and gathered from
    ``arrays``, the training split as host tensors made once per run."""
    import tensorflow as tf

    xt, yt = arrays
    start, n = state.step, int(xt.shape[0])
    ds = tf.data.Dataset.from_generator(
        lambda: batch_indices(start, end, state.steps_per_epoch, config, n),
        output_signature=tf.TensorSpec([None], tf.int64))
    ds = ds.flat_map(lambda idx: tf.data.Dataset.from_tensor_slices(idx).batch(config.batch_size))
    ds = ds.map(lambda idx: (tf.gather(xt, idx), tf.gather(yt, idx)))
    return ds.prefetch(tf.data.AUTOTUNE).with_options(shard_options())


def fit_loop(model: Any, data: TrainData, config: TrainConfig, strategy: Any,
             state: TrainState, listeners: Listeners, optimizer: Any) -> None:
    """Train with ``model.fit``: one call per validation span (:func:`fit_span_end`), over
    one lazily gathered pipeline (:func:`fit_dataset`); a call passes checkpoint steps on
    graph-call ends (:func:`fit_call_end`)."""
    import keras
    import tensorflow as tf

    spe_exec = fit_steps_per_execution(config, strategy.num_replicas_in_sync)
    bs, n = config.batch_size, data.n_train
    last_size = n - (state.steps_per_epoch - 1) * bs      # the epoch's last batch
    with strategy.scope():
        compile_for_fit(model, optimizer, config, spe_exec)
        report_batch_values(model, (data.x_train[:bs], data.y_train[:bs]))
    names = ("loss",) + tuple(config.metrics)
    recorder = StepRecorder(model, names, spe_exec) if spe_exec > 1 else None
    pacer = Pacer(config.steps_per_second, listeners, state)

    class Bridge(keras.callbacks.Callback):
        """Turns each step's values (Keras' logs, or the recorder's rows) into listener
        events, up to the call's last step ``end``."""

        def __init__(self, end: int) -> None:
            super().__init__()
            self.end = end

        def _step(self, values: dict) -> None:
            state.step += 1
            state.epoch = (state.step - 1) // state.steps_per_epoch + 1
            epoch_end = state.step % state.steps_per_epoch == 0
            state.samples += last_size if epoch_end else bs
            listeners.on_batch_end(state, values)
            if epoch_end and state.step < self.end:
                listeners.on_epoch_end(state, None)     # an inner epoch of the call

        def on_train_batch_begin(self, batch: int, logs: Any = None) -> None:
            pacer.wait()                    # a stop seen while waiting ends after this step
            if state.should_stop:
                self.model.stop_training = True

        def on_train_batch_end(self, batch: int, logs: Any = None) -> None:
            if recorder is not None:
                rows = recorder.take()
                for index, values in enumerate(rows):
                    state.ahead = len(rows) - 1 - index     # the model is at the last row
                    self._step(values)
                state.ahead = 0
            else:
                logs = logs or {}
                self._step({n: float(logs[n]) for n in names if n in logs})
            if state.should_stop:
                self.model.stop_training = True

    with tf.device("/cpu:0"):
        arrays = tf.convert_to_tensor(data.x_train), tf.convert_to_tensor(data.y_train)
    has_val = bool(len(data.x_val))
    while state.step < state.total_steps and not state.should_stop:
        end = fit_call_end(state, config, spe_exec, fit_span_end(state, config, has_val))
        state.epoch = state.step // state.steps_per_epoch + 1
        model.fit(fit_dataset(arrays, config, state, end), epochs=1,
                  steps_per_epoch=end - state.step, verbose=0, shuffle=False,
                  callbacks=[Bridge(end), *listeners.keras_callbacks()])
        val = None
        if should_validate(state, config, data):
            val = model.evaluate(data.x_val, data.y_val, batch_size=bs, verbose=0,
                                 return_dict=True)
            val = {k: float(v) for k, v in val.items() if k in names}
        if epoch_complete(state) or state.should_stop:
            listeners.on_epoch_end(state, val if epoch_complete(state) else None)


def shard_options() -> Any:
    """tf.data options of the fit pipeline: shard in-memory arrays by element
    (``AutoShardPolicy.DATA``) under a multi-worker strategy, so each worker takes its part
    of every global batch; no default graph rewrites, which would serialize the pipeline
    with the training tensors it gathers from each time an iterator is made; and no
    model-based autotuning. Its background thread re-tunes the pipeline from time to time,
    and an iterator's teardown waits for a pass in progress: ``model.fit`` returned 2.5 to
    3.5 s after its last step in about half of the CNN bench's 10-epoch calls (a third of
    the run; ``bench/bench_fit_end.py``). Nothing here needs it: the pipeline gathers
    batches from tensors in memory, and ``prefetch(AUTOTUNE)`` still grows its buffer
    while the training waits for input (tf.data's legacy prefetch tuning, a counter in
    the prefetch op, no thread)."""
    import tensorflow as tf

    options = tf.data.Options()
    options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.DATA
    options.experimental_optimization.apply_default_optimizations = False
    options.autotune.enabled = False
    return options


# The function of each loop in the registry (``tfcore.training.registry.LOOP_KINDS``).
_RUNS = {"fit": fit_loop, "custom": custom_loop}
LOOPS: dict = {name: _RUNS[name] for name in LOOP_KINDS}
