"""Training throughput three ways, side by side in one run, on the same model, data and steps:

1. through TF Lab's worker (``tfcore.training.jobs`` -> ``python -m tfcore.training.worker``), fit loop and
   GradientTape loop, with metrics, TensorBoard, checkpoints and heartbeat all on;
2. a plain ``model.fit`` script;
3. a plain ``tf.function`` GradientTape loop over ``tf.data``.

Each number is samples per second over the whole training call (tracing included, process
start excluded). Prints a table and the ratio of each worker loop to the faster plain script.

    .venv/bin/python bench/bench_training.py [--epochs 10] [--batch-size 50] [--preset mlp]
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


def plain_tf_function(preset: str, epochs: int, batch: int) -> float:
    import keras
    import tensorflow as tf

    from tfcore.model.build import build_model
    from tfcore.model.presets import get_preset

    x, y = _data()
    keras.utils.set_random_seed(0)
    model = build_model(get_preset(preset))
    optimizer = keras.optimizers.Adam(1e-3)
    loss_fn = keras.losses.SparseCategoricalCrossentropy()
    accuracy = keras.metrics.SparseCategoricalAccuracy()

    @tf.function
    def step(xb, yb):
        with tf.GradientTape() as tape:
            pred = model(xb, training=True)
            loss = loss_fn(yb, pred)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        accuracy.update_state(yb, pred)
        return loss

    ds = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(len(x), seed=0).batch(batch)
    start = time.perf_counter()
    for _ in range(epochs):
        for xb, yb in ds.prefetch(tf.data.AUTOTUNE):
            step(xb, yb)
    return len(x) * epochs / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="mlp")
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--batch-size", type=int, default=50)
    args = parser.parse_args()
    from tfcore.training.devices import DeviceConfig, apply_device_config

    apply_device_config(DeviceConfig())
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
