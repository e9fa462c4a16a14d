"""Training throughput side by side in one run, on the same model, data and steps.

Part 1 (``digits28``, 1,437 training rows: mostly per-epoch overhead):
1. through TF Lab's worker (``tfcore.training.jobs`` -> ``python -m tfcore.training.worker``), fit loop and
   GradientTape loop, with metrics, TensorBoard, checkpoints and heartbeat all on;
2. a plain ``model.fit`` script;
3. a plain ``tf.function`` GradientTape loop over ``tf.data``.

Part 2 (``--rows``, default 40,000 synthetic 28x28 rows: training itself), in this process:
the engine's two loops with the worker's listeners (checkpoints, heartbeat, stop poller)
with logging on (every step to metrics.jsonl and TensorBoard) and off, against
the plain ``model.fit`` (``steps_per_execution=1``) and plain ``tf.function`` loop, bare
and with the engine's recording (every step's values read and written, a checkpoint of
model and optimizer every 100 steps: the fair baselines of the two goal ratios, engine fit
loop / plain fit >= 1.0 and engine tape loop / plain tf.function loop >= 1.2). Each
number is the best of ``--repeat`` runs, the runs alternating, in samples/s over the whole
training call. ``--only-goals`` runs just the four rows of the goal ratios.

Part 3 (same synthetic rows; `bench_reporting.py`): the fit loop with and without its per-batch reporting
(``report_batch_values``), logging off, interleaved; prints the per-step cost ratio.

    .venv/bin/python bench/bench_training.py [--epochs 10] [--batch-size 50] [--preset mlp]
        [--rows 40000] [--synthetic-epochs 2] [--repeat 2] [--skip-worker] [--only-reporting]
        [--only-goals]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


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


def part2(args) -> None:
    x, y = synthetic(args.rows)
    runs = {
        "engine tape loop, logging on": lambda: engine_loop(args.preset, x, y,
                                                            args.synthetic_epochs,
                                                            args.batch_size, "custom", True),
        "engine tape loop, logging off": lambda: engine_loop(args.preset, x, y,
                                                             args.synthetic_epochs,
                                                             args.batch_size, "custom", False),
        "engine fit loop, logging on": lambda: engine_loop(args.preset, x, y,
                                                           args.synthetic_epochs,
                                                           args.batch_size, "fit", True),
        "engine fit loop, logging off": lambda: engine_loop(args.preset, x, y,
                                                            args.synthetic_epochs,
                                                            args.batch_size, "fit", False),
        "plain model.fit": lambda: plain_fit_on(args.preset, x, y, args.synthetic_epochs,
                                                args.batch_size),
        "plain tf.function loop": lambda: plain_tf_function(args.preset, args.synthetic_epochs,
                                                            args.batch_size, (x, y)),
        **goal_runs(args, x, y),
    }
    if args.only_goals:
        runs = {name: fn for name, fn in runs.items() if name in GOAL_ROWS}
    best = {name: 0.0 for name in runs}
    for _ in range(max(1, args.repeat)):          # interleaved, so load drifts hit all rows
        for name, fn in runs.items():
            best[name] = max(best[name], fn())
    print(f"\npreset={args.preset} synthetic rows={args.rows} epochs={args.synthetic_epochs} "
          f"batch={args.batch_size} best of {args.repeat} alternating runs (samples/s)")
    for name, rate in best.items():
        print(f"  {name:44s} {rate:10.1f}")
    for engine, plain, goal in GOALS:
        if engine in best and plain in best:
            print(f"goal ratio {engine} / {plain}: {best[engine] / best[plain]:.3f} "
                  f"(goal >= {goal})")
    if args.only_goals:
        return
    ratios = [
        ("engine tape loop (logging on) / plain tf.function loop",
         best["engine tape loop, logging on"] / best["plain tf.function loop"]),
        ("engine fit loop (logging on) / plain model.fit",
         best["engine fit loop, logging on"] / best["plain model.fit"]),
        ("tape loop: logging cost (1 - on/off)",
         1 - best["engine tape loop, logging on"] / best["engine tape loop, logging off"]),
        ("fit loop: logging cost (1 - on/off)",
         1 - best["engine fit loop, logging on"] / best["engine fit loop, logging off"]),
    ]
    for name, value in ratios:
        print(f"ratio {name}: {value:.3f}")
    for loop, shares in LOGGER_SHARE.items():
        print(f"{loop} loop: time inside the MetricsLogger / rest of the same run: "
              f"{min(shares):.3%} (best) {max(shares):.3%} (worst)")


# The goals: each engine loop (logging on: every step recorded, checkpoints every
# 100 steps) against a plain script that records every step and checkpoints as often.
PLAIN_FIT_REC = "plain model.fit, recording + ckpt"
PLAIN_TF_REC = "plain tf.function loop, recording + ckpt"
GOALS = (("engine fit loop, logging on", PLAIN_FIT_REC, 1.0),
         ("engine tape loop, logging on", PLAIN_TF_REC, 1.2))
GOAL_ROWS = {name for engine, plain, _ in GOALS for name in (engine, plain)}


def goal_runs(args, x, y) -> dict:
    epochs, batch = args.synthetic_epochs, args.batch_size
    return {PLAIN_FIT_REC: lambda: plain_fit_on(args.preset, x, y, epochs, batch, True),
            PLAIN_TF_REC: lambda: plain_tf_function(args.preset, epochs, batch, (x, y), True)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="mlp")
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--batch-size", type=int, default=50)
    parser.add_argument("--rows", type=int, default=40_000)
    parser.add_argument("--synthetic-epochs", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--skip-worker", action="store_true", help="only parts 2 and 3")
    parser.add_argument("--only-reporting", action="store_true",
                        help="only part 3: the fit loop with and without per-batch reporting")
    parser.add_argument("--only-goals", action="store_true",
                        help="only the goal rows of part 2: each engine loop against a plain "
                             "script with the same recording and checkpoints")
    args = parser.parse_args()
    from tfcore.training.devices import DeviceConfig, apply_device_config

    apply_device_config(DeviceConfig())
    from bench_reporting import part3                  # bench/ is on the path of a script

    if args.only_reporting:
        part3(args)
        return
    if args.only_goals:
        part2(args)
        return
    if not args.skip_worker:
        part1(args)
    part2(args)
    part3(args)


def part1(args) -> None:
    rows = {
        "worker (fit loop)": through_worker(args.preset, args.epochs, args.batch_size, "fit"),
        "worker (tf.function loop)": through_worker(args.preset, args.epochs,
                                                    args.batch_size, "custom"),
        "plain model.fit": plain_fit(args.preset, args.epochs, args.batch_size),
        "plain tf.function loop": plain_tf_function(args.preset, args.epochs, args.batch_size),
    }
    print(f"preset={args.preset} dataset=digits28 epochs={args.epochs} "
          f"batch={args.batch_size} (samples/s, higher is better)")
    for name, rate in rows.items():
        print(f"  {name:28s} {rate:10.1f}")
    best_plain = max(rows["plain model.fit"], rows["plain tf.function loop"])
    for name in ("worker (fit loop)", "worker (tf.function loop)"):
        print(f"ratio {name} / faster plain script: {rows[name] / best_plain:.2f}")
    print(f"ratio plain tf.function / plain fit: "
          f"{rows['plain tf.function loop'] / rows['plain model.fit']:.2f}")


if __name__ == "__main__":
    main()
