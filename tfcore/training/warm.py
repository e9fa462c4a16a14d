"""``python -m tfcore.training.warm DEVICE_JSON [DELAY]``: a pre-started worker.

It applies its device settings, imports TensorFlow and the engine, loads the default
dataset, traces one tiny training step and rehearses one epoch of the default run in a
scratch folder (:func:`rehearse`; so the first run pays none of that), prints
``ready`` on stdout and then waits for one job: a JSON line ``{"run_dir": ...}`` on stdin.
With the job it becomes that run's worker (``tfcore.training.worker.run``), its output
going to the run's ``log.txt``. It exits without training when stdin closes (the server
that started it is gone: no orphans) or after ``TFLAB_WARM_IDLE`` seconds (default two
hours). A job that comes while it warms up ends the warm-up at its next stage. ``DELAY``
seconds pass before it imports TensorFlow (a job arriving meanwhile is
taken at once), so a replacement does not compete with the run that was just handed over.
The job manager (``tfcore.training.jobs``) starts it in its own session, like a worker.
"""

from __future__ import annotations

import json
import os
import select
import sys
import time
import traceback
from typing import TYPE_CHECKING, Callable

from tfcore import settings

if TYPE_CHECKING:
    from tfcore.training.devices import DeviceConfig

READY = b"ready\n"


def _wait_line(timeout: float | None) -> bytes | None:
    """One line from stdin; ``b""`` at end of file, None when ``timeout`` passed first."""
    readable, _, _ = select.select([sys.stdin.buffer], [], [], timeout)
    if not readable:
        return None
    return sys.stdin.buffer.readline()


def job_waiting() -> bool:
    """Whether a job (or the end of stdin) is waiting to be read; never blocks."""
    readable, _, _ = select.select([sys.stdin.buffer], [], [], 0)
    return bool(readable)


def warm_up(stop: Callable[[], bool] = job_waiting, device: "DeviceConfig | None" = None,
            replicas: int = 1) -> None:
    """Pay the one-time costs a first run would: imports, the default dataset, one traced
    training step of the default model, then a short rehearsal of the default run on
    ``device`` (:func:`rehearse`); then forget them (names restart at zero).

    Between its stages it asks ``stop`` whether a job has come meanwhile (a run handed
    over while this worker was still warming up: a resume soon after a start) and then
    returns at once: the run pays what is left once, not after a warm-up it does not need.
    """
    import keras
    import tensorflow as tf
    from tensorboard.compat.proto import event_pb2  # noqa: F401 - the model graph's events

    from tfcore.training import loops, tape_loop, worker  # noqa: F401 - import now
    from tfcore.training.recorder import TBScalars  # noqa: F401
    if stop():
        return
    from tfcore.data import DatasetRequest, load_dataset
    from tfcore.model import build_model, get_preset

    bundle = load_dataset(DatasetRequest(name="digits28"))
    if stop():
        return
    model = build_model(get_preset("mlp"))
    optimizer = keras.optimizers.Adam(1e-3)
    loss = keras.losses.SparseCategoricalCrossentropy()

    @tf.function
    def step(x, y):
        with tf.GradientTape() as tape:
            value = loss(y, model(x, training=True))
        grads = tape.gradient(value, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return value

    step(bundle.x_train[:8], bundle.y_train[:8]).numpy()
    keras.backend.clear_session()
    if stop():
        return
    from tfcore.training.devices import DeviceConfig

    rehearse(device or DeviceConfig(), replicas, stop)
    keras.backend.clear_session()


def rehearse(device: "DeviceConfig", replicas: int, stop: Callable[[], bool]) -> dict:
    """One epoch of the Train page's default run (the ``mlp`` preset on ``digits28``, the
    default settings: Keras fit, insight on) through the run lifecycle, in a scratch
    folder that is then deleted: the first calls of Keras fit's machinery, the data
    pipeline, the checkpoint and TensorBoard writers and the insight probe are paid here,
    not by the first run handed over (hand-over -> first point 0.71 s -> 0.49 s in one
    process, ``bench/bench_live.py``). A job arriving meanwhile stops it within a step
    (its stop request), like a person's Stop. Returns the rehearsal's final status fields."""
    import tempfile
    import threading
    from pathlib import Path

    from tfcore.model import get_preset
    from tfcore.rundir import RunWriter
    from tfcore.training.request import RunRequest
    from tfcore.training.worker import train_run

    body = {"spec": get_preset("mlp").to_dict(), "dataset": {"name": "digits28"},
            "training": {"epochs": 1}, "device": device.to_dict()}
    with tempfile.TemporaryDirectory(prefix="tflab-warm-") as scratch:
        writer = RunWriter.create(Path(scratch), body)
        done = threading.Event()

        def watch() -> None:
            while not done.wait(0.02):
                if stop():
                    writer.paths.stop_request.write_text("a job came")
                    return

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        try:
            return train_run(writer.paths, writer, RunRequest.from_dict(body), replicas)
        finally:
            done.set()
            watcher.join()


def main(argv: list[str]) -> int:
    from tfcore.training.devices import DeviceConfig, apply_device_config

    device = DeviceConfig.from_dict(json.loads(argv[1]) if len(argv) > 1 else None)
    delay = float(argv[2]) if len(argv) > 2 else 0.0
    line = _wait_line(delay) if delay > 0 else None
    if line == b"":
        return 0
    applied = apply_device_config(device)
    if line is None:
        try:
            warm_up(device=device, replicas=applied.replicas)
        except Exception:  # noqa: BLE001 - a failed warm-up only costs time later
            traceback.print_exc()
        try:
            os.write(1, READY)
        except OSError:
            pass      # the server stopped listening: it handed us a job, or it is gone
        line = _wait_line(settings.warm_idle_seconds())
    if not line or not line.strip():
        return 0                                  # idle timeout or the server is gone
    run_dir = json.loads(line)["run_dir"]
    log = os.open(os.path.join(run_dir, "log.txt"), os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.close(log)
    print(f"[warm worker {os.getpid()}] took run {run_dir} at {time.strftime('%H:%M:%S')}",
          flush=True)
    from tfcore.training.worker import run

    return run(run_dir, applied=applied)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
