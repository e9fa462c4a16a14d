"""The rows of ``bench_training.py``: each trains one way and returns samples/s over the
whole training call. Through TF Lab's worker (``through_worker``), the engine's loops in this
process with the worker's listeners (``engine_loop``), and the plain baselines: ``model.fit``
(``plain_fit``, ``plain_fit_on``) and a ``tf.function`` GradientTape loop
(``plain_tf_function``), bare or with the engine's recording (``PlainRecorder``).
``LOGGER_SHARE`` collects, per loop, the time inside the MetricsLogger / the rest of a run.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path


def through_worker(preset: str, epochs: int, batch: int, loop: str) -> float:
    from tfcore.model.presets import get_preset
    from tfcore.rundir.store import RunStore
    from tfcore.training import jobs

    with tempfile.TemporaryDirectory() as tmp:
        request = {"spec": get_preset(preset).to_dict(), "dataset": {"name": "digits28"},
                   "training": {"epochs": epochs, "batch_size": batch, "loop": loop,
                                "ckpt_every": 100, "shuffle": True,
                                "validate_every": epochs},   # like the plain scripts
                   "device": {"kind": "cpu"}}
        run_id = jobs.start_run(Path(tmp), request)
        state = jobs.wait_for(Path(tmp), run_id, timeout=1800)
        status = RunStore(Path(tmp)).get(run_id).status
        if state != "finished":
            raise SystemExit(f"worker run {state}: {status.message}")
        return float(status.extra["samples_per_sec"])


def _data():
    from tfcore.data.loader import DatasetRequest, load_dataset

    bundle = load_dataset(DatasetRequest(name="digits28"))
    return bundle.x_train, bundle.y_train


def plain_fit(preset: str, epochs: int, batch: int) -> float:
    import keras

    from tfcore.model.build import build_model
    from tfcore.model.presets import get_preset

    x, y = _data()
    keras.utils.set_random_seed(0)
    model = build_model(get_preset(preset))
    model.compile(optimizer=keras.optimizers.Adam(1e-3),
                  loss="sparse_categorical_crossentropy", metrics=["sparse_categorical_accuracy"])
    start = time.perf_counter()
    model.fit(x, y, batch_size=batch, epochs=epochs, shuffle=True, verbose=0)
    return len(x) * epochs / (time.perf_counter() - start)


def plain_tf_function(preset: str, epochs: int, batch: int, arrays=None,
                      recorded: bool = False) -> float:
    """A plain ``tf.function`` GradientTape step over ``tf.data``; ``recorded`` adds what
    the engine does: every step's loss and batch accuracy read on the host and written to
    a JSON-lines file, and a checkpoint of model and optimizer every 100 steps."""
    import keras
    import tensorflow as tf

    from tfcore.model.build import build_model
    from tfcore.model.presets import get_preset

    x, y = arrays if arrays is not None else _data()
    keras.utils.set_random_seed(0)
    model = build_model(get_preset(preset))
    optimizer = keras.optimizers.Adam(1e-3)
    loss_fn = keras.losses.SparseCategoricalCrossentropy()
    accuracy = keras.metrics.SparseCategoricalAccuracy()

    @tf.function
    def step(xb, yb):
        accuracy.reset_state()
        with tf.GradientTape() as tape:
            pred = model(xb, training=True)
            loss = loss_fn(yb, pred)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        accuracy.update_state(yb, pred)
        return loss, accuracy.result()

    ds = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(len(x), seed=0).batch(batch)
    with tempfile.TemporaryDirectory() as tmp:
        saver = PlainRecorder(Path(tmp), model, optimizer) if recorded else None
        start = time.perf_counter()
        for _ in range(epochs):
            for xb, yb in ds.prefetch(tf.data.AUTOTUNE):
                loss, acc = step(xb, yb)
                if saver is not None:
                    saver.step({"loss": float(loss), "sparse_categorical_accuracy": float(acc)})
        if saver is not None:
            saver.close()
        return len(x) * epochs / (time.perf_counter() - start)


class PlainRecorder:
    """What a plain script adds to match the engine's recording: each step's values as a
    JSON line (written in batches) and a ``tf.train.CheckpointManager`` checkpoint of
    model and optimizer every ``every`` steps, numbered by step."""

    def __init__(self, folder: Path, model, optimizer, every: int = 100) -> None:
        import tensorflow as tf

        self.file = (folder / "metrics.jsonl").open("w")
        self.manager = tf.train.CheckpointManager(
            tf.train.Checkpoint(model=model, optimizer=optimizer), str(folder / "ckpt"),
            max_to_keep=3)
        self.every, self.steps, self.pending = every, 0, []

    def step(self, values: dict) -> None:
        import json

        self.steps += 1
        self.pending.append(json.dumps({"step": self.steps, **values}))
        if len(self.pending) >= 100:
            self.file.write("\n".join(self.pending) + "\n")
            self.pending = []
        if self.steps % self.every == 0:
            self.manager.save(checkpoint_number=self.steps)

    def close(self) -> None:
        self.file.write("".join(line + "\n" for line in self.pending))
        self.file.close()


def synthetic(rows: int, seed: int = 0):
    """``rows`` random 28x28x1 images labelled by a random linear teacher (learnable)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    x = rng.normal(size=(rows, 28, 28, 1)).astype(np.float32)
    teacher = rng.normal(size=(784, 10)).astype(np.float32)
    y = (x.reshape(rows, -1) @ teacher).argmax(axis=1).astype(np.int64)
    return x, y


def engine_loop(preset: str, x, y, epochs: int, batch: int, loop: str, logging: bool,
                batch_values: bool = True) -> float:
    """The worker's loop in this process with the worker's listeners (checkpoints every
    100 steps, heartbeat, stop poller, NaN guard); ``logging`` adds the MetricsLogger
    (every step to metrics.jsonl and TensorBoard). ``batch_values=False`` leaves out the
    fit loop's per-batch reporting (``report_batch_values``: Keras' running means are
    recorded instead), to measure what it costs."""
    if not batch_values:
        from tfcore.training import loops

        original, loops.report_batch_values = loops.report_batch_values, lambda *a: None
        try:
            return engine_loop(preset, x, y, epochs, batch, loop, logging)
        finally:
            loops.report_batch_values = original
    import keras
    import tensorflow as tf

    from tfcore.model.build import build_model
    from tfcore.model.presets import get_preset
    from tfcore.rundir import RunPaths, RunWriter
    from tfcore.training.callbacks import (
        CheckpointSaver,
        Heartbeat,
        Listeners,
        MetricsLogger,
        NaNGuard,
        StopPoller,
        TrainState,
    )
    from tfcore.training.config import TrainConfig, make_optimizer, steps_per_epoch
    from tfcore.training.loops import LOOPS, TrainData

    config = TrainConfig(epochs=epochs, batch_size=batch, loop=loop, ckpt_every=100,
                         validate_every=epochs)
    keras.utils.set_random_seed(0)
    model = build_model(get_preset(preset))
    data = TrainData(x, y, x[:0], y[:0])
    spe, total = steps_per_epoch(len(x), batch), config.total_steps(len(x))
    optimizer = make_optimizer(config, total, spe)
    optimizer.build(model.trainable_variables)
    state = TrainState(total_steps=total, steps_per_epoch=spe, batch_size=batch)
    with tempfile.TemporaryDirectory() as tmp:
        paths = RunPaths(Path(tmp) / "run")
        paths.root.mkdir()
        ckpt = tf.train.Checkpoint(step=tf.Variable(0, dtype=tf.int64), model=model,
                                   optimizer=optimizer)
        manager = tf.train.CheckpointManager(ckpt, str(paths.ckpt_dir), max_to_keep=3)
        logger = MetricsLogger(paths, 1, config.max_records_per_sec)
        items = [NaNGuard(), StopPoller(paths), logger,
                 CheckpointSaver(ckpt, manager, config.ckpt_every), Heartbeat(RunWriter(paths))]
        timed = Timed(logger)
        items[items.index(logger)] = timed
        if not logging:
            items.remove(timed)
        listeners = Listeners(items)
        start = time.perf_counter()
        listeners.on_train_start(state)
        LOOPS[loop](model, data, config, tf.distribute.get_strategy(), state, listeners,
                    optimizer)
        listeners.on_train_end(state, "finished")
        spent = time.perf_counter() - start
        if logging:
            logger.close()
            lines = paths.metrics.read_text().count("\n")
            assert lines >= total, (lines, total)          # every step recorded
            LOGGER_SHARE.setdefault(loop, []).append(timed.seconds / (spent - timed.seconds))
    return len(x) * epochs / spent


LOGGER_SHARE: dict[str, list[float]] = {}


class Timed:
    """Wraps a listener and adds up the seconds spent in it (the logging cost measured
    inside the same run, immune to load that drifts between runs)."""

    def __init__(self, inner) -> None:
        self.inner, self.seconds = inner, 0.0

    def __getattr__(self, name: str):
        method = getattr(self.inner, name)

        def timed(*args, **kwargs):
            start = time.perf_counter()
            try:
                return method(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - start
        return timed


def plain_fit_on(preset: str, x, y, epochs: int, batch: int, recorded: bool = False) -> float:
    """A plain ``model.fit(x, y, epochs, batch_size)``; ``recorded`` adds a callback that
    records every step's logs and checkpoints model and optimizer every 100 steps
    (:class:`PlainRecorder`), what the engine's fit loop does."""
    import keras

    from tfcore.model.build import build_model
    from tfcore.model.presets import get_preset

    keras.utils.set_random_seed(0)
    model = build_model(get_preset(preset))
    model.compile(optimizer=keras.optimizers.Adam(1e-3),
                  loss="sparse_categorical_crossentropy", metrics=["sparse_categorical_accuracy"])
    with tempfile.TemporaryDirectory() as tmp:
        callbacks = []
        if recorded:
            saver = PlainRecorder(Path(tmp), model, model.optimizer)

            class Record(keras.callbacks.Callback):
                def on_train_batch_end(self, batch, logs=None):
                    saver.step({k: float(v) for k, v in (logs or {}).items()})

            callbacks = [Record()]
        start = time.perf_counter()
        model.fit(x, y, batch_size=batch, epochs=epochs, shuffle=True, verbose=0,
                  callbacks=callbacks)
        if recorded:
            saver.close()
        return len(x) * epochs / (time.perf_counter() - start)
