"""Real run directories for the runs/checkpoint tests, written to the run contract.

``make_run`` trains a tiny Keras model (Flatten -> Dense(16) -> Dense(10) -> Softmax on the
8x8 digits) for a few steps and writes exactly what ``tfcore/rundir/store.py`` + interfaces.md ask of
a worker: ``run.json``, ``status.json`` (via RunWriter), ``metrics.jsonl``, ``ckpt/``
(tf.train.Checkpoint(step, model, optimizer) + CheckpointManager(checkpoint_name="ckpt"),
``checkpoint_number=step``) and ``model.keras``. ``make_cli_run`` uses the real worker
(``python -m tfcore train``) when it exists.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from tfcore.jsonio import atomic_write_json, now_iso
from tfcore.rundir.store import FINISHED, RUNNING, RunWriter

ROOT = Path(__file__).resolve().parents[2]
DATASET = {"name": "digits8", "options": {}, "val_fraction": 0.1, "test_fraction": 0.2,
           "seed": 0}


def tiny_spec(name: str = "tiny", units: int = 16) -> dict:
    """The tiny model's spec document."""
    return {"format": 1, "name": name, "kind": "sequential",
            "inputs": [{"name": "image", "shape": [8, 8, 1], "dtype": "float32"}],
            "layers": [{"name": "flatten", "type": "Flatten", "config": {}},
                       {"name": "dense", "type": "Dense",
                        "config": {"units": units, "activation": "relu"}},
                       {"name": "logits", "type": "Dense", "config": {"units": 10}},
                       {"name": "softmax", "type": "Softmax", "config": {}}],
            "outputs": []}


def tiny_cnn_spec(name: str = "tiny_cnn", filters: int = 4) -> dict:
    """A tiny CNN for the 8x8 digits: Conv2D(3x3, relu) -> Flatten -> Dense(10) -> Softmax."""
    return {"format": 1, "name": name, "kind": "sequential",
            "inputs": [{"name": "image", "shape": [8, 8, 1], "dtype": "float32"}],
            "layers": [{"name": "conv", "type": "Conv2D",
                        "config": {"filters": filters, "kernel_size": 3,
                                   "activation": "relu"}},
                       {"name": "flatten", "type": "Flatten", "config": {}},
                       {"name": "logits", "type": "Dense", "config": {"units": 10}},
                       {"name": "softmax", "type": "Softmax", "config": {}}],
            "outputs": []}


def training(steps: int, ckpt_every: int, seed: int, batch_size: int = 32) -> dict:
    return {"epochs": 1, "batch_size": batch_size, "optimizer": "adam",
            "learning_rate": 0.01, "momentum": 0.0, "schedule": "constant",
            "loss": "sparse_categorical_crossentropy",
            "metrics": ["sparse_categorical_accuracy"], "loop": "custom", "eager": False,
            "seed": seed, "ckpt_every": ckpt_every, "keep": 3, "mixed_precision": False,
            "log_every": 1, "steps": steps}


def make_run(runs_root: Path, name: str = "tiny", seed: int = 0, steps: int = 12,
             ckpt_every: int = 4, units: int = 16, spec_name: str = "tiny",
             spec: dict | None = None) -> str:
    """Train the tiny model (or ``spec``) ``steps`` batches; return the new run id."""
    import keras
    import tensorflow as tf

    from tfcore.data.loader import DatasetRequest, load_dataset
    from tfcore.model.build import build_model
    from tfcore.model.spec import from_dict
    from tfcore.training.config import TrainConfig
    from tfcore.training.evaluate import evaluate_split

    train_cfg = training(steps, ckpt_every, seed)
    request = {"name": name, "spec": spec or tiny_spec(spec_name, units),
               "dataset": dict(DATASET),
               "training": train_cfg,
               "device": {"kind": "cpu", "gpus": [], "logical_devices": 0,
                          "memory_growth": True, "memory_limit_mb": 0},
               "versions": {"tensorflow": tf.__version__, "keras": keras.__version__}}
    writer = RunWriter.create(runs_root, request)
    keras.utils.set_random_seed(seed)
    bundle = load_dataset(DatasetRequest.from_dict(DATASET))
    model = build_model(from_dict(request["spec"]))
    optimizer = keras.optimizers.Adam(train_cfg["learning_rate"])
    model.compile(optimizer=optimizer, loss=train_cfg["loss"], metrics=train_cfg["metrics"])
    step_var = tf.Variable(0, dtype=tf.int64)
    ckpt = tf.train.Checkpoint(step=step_var, model=model, optimizer=optimizer)
    manager = tf.train.CheckpointManager(ckpt, str(writer.paths.ckpt_dir), max_to_keep=3,
                                         checkpoint_name="ckpt")
    writer.set_status(state=RUNNING, pid=os.getpid(), total_steps=steps, replicas=1)
    start = time.time()
    rng = np.random.default_rng(seed)
    bs = train_cfg["batch_size"]
    with writer.metrics_writer() as metrics:
        for step in range(1, steps + 1):
            idx = rng.choice(len(bundle.x_train), bs, replace=False)
            out = model.train_on_batch(bundle.x_train[idx], bundle.y_train[idx],
                                       return_dict=True)
            metrics.append({"step": step, "epoch": 0, "time": time.time(),
                            "elapsed": time.time() - start, "split": "train",
                            **{k: float(v) for k, v in out.items()},
                            "samples_per_sec": 100.0})
            step_var.assign(step)
            if step % ckpt_every == 0 or step == steps:
                manager.save(checkpoint_number=step)
                time.sleep(0.01)
        val = model.evaluate(bundle.x_val, bundle.y_val, batch_size=bs, verbose=0,
                             return_dict=True)
        metrics.append({"step": steps, "epoch": 1, "time": time.time(),
                        "elapsed": time.time() - start, "split": "val",
                        **{k: float(v) for k, v in val.items()}})
        test = dict(evaluate_split(model, bundle.x_test, bundle.y_test,
                                   TrainConfig.from_dict(train_cfg)).metrics)
        metrics.append({"step": steps, "epoch": 1, "time": time.time(),
                        "elapsed": time.time() - start, "split": "test", **test})
    model.save(writer.paths.model)
    writer.set_status(state=FINISHED, step=steps, epoch=1, test_metrics=test)
    return writer.paths.run_id


def make_tutorial_checkpoint(folder: Path) -> Path:
    """The tutorial's ``tf.train.Checkpoint(myModel=model).save('./save/model.ckpt')`` with a
    subclassed MLP (flatten, dense1 784x100, dense2 100x10); returns the ``save`` folder."""
    import keras
    import tensorflow as tf

    class MLP(keras.Model):
        def __init__(self):
            super().__init__()
            self.flatten = keras.layers.Flatten()
            self.dense1 = keras.layers.Dense(units=100, activation="relu")
            self.dense2 = keras.layers.Dense(units=10)

        def call(self, inputs):
            return tf.nn.softmax(self.dense2(self.dense1(self.flatten(inputs))))

    model = MLP()
    model(np.zeros((1, 28, 28, 1), "float32"))
    checkpoint = tf.train.Checkpoint(myModel=model)
    checkpoint.save(str(folder / "save" / "model.ckpt"))
    return folder / "save"


def worker_available() -> bool:
    """Whether the real training worker exists yet."""
    return (ROOT / "tfcore" / "training" / "worker.py").is_file() and (ROOT / "tfcore" / "training" / "jobs.py").is_file()


def make_worker_run(runs_root: Path, name: str = "worker_tiny", timeout: float = 400,
                    spec: dict | None = None, steps: int = 10, ckpt_every: int = 4) -> str:
    """A run trained by the real worker process (``tfcore.training.jobs.start_run`` spawns
    ``python -m tfcore.training.worker``); returns its run id once it finished."""
    from tfcore.training import jobs

    request = {"name": name, "spec": spec or tiny_spec(name), "dataset": dict(DATASET),
               "training": {**training(steps=steps, ckpt_every=ckpt_every, seed=0),
                            "loop": "fit",
                            "max_records_per_sec": 1000.0},
               "device": {"kind": "cpu"}}
    old = os.environ.get("CUDA_VISIBLE_DEVICES")
    os.environ["CUDA_VISIBLE_DEVICES"] = ""
    try:
        run_id = jobs.start_run(runs_root, request)
        state = jobs.wait_for(runs_root, run_id, timeout=timeout)
    finally:
        if old is None:
            os.environ.pop("CUDA_VISIBLE_DEVICES", None)
        else:
            os.environ["CUDA_VISIBLE_DEVICES"] = old
    log = (runs_root / run_id / "log.txt")
    assert state == FINISHED, (state, log.read_text()[-3000:] if log.exists() else "")
    return run_id


def cli_train_available() -> bool:
    """Whether ``python -m tfcore train`` exists yet."""
    return any((ROOT / "tfcore" / "cli").glob("cmd_train*.py"))


def make_cli_run(runs_root: Path, timeout: float = 400) -> str:
    """A run made by the real ``python -m tfcore train`` CLI (which spawns the worker);
    returns its run id from the CLI's final JSON line."""
    spec_file = runs_root.parent / "cli_tiny_spec.json"
    spec_file.write_text(json.dumps(tiny_spec("cli_tiny")), encoding="utf-8")
    env = dict(os.environ, TFLAB_WORKSPACE=str(runs_root.parent), TF_CPP_MIN_LOG_LEVEL="3",
               CUDA_VISIBLE_DEVICES="")
    proc = subprocess.run(
        [sys.executable, "-m", "tfcore", "train", "--spec", str(spec_file),
         "--dataset", "digits8", "--steps", "10", "--batch-size", "32", "--lr", "0.01",
         "--ckpt-every", "4", "--runs-dir", str(runs_root), "--quiet"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    summary = json.loads(proc.stdout.strip().splitlines()[-1])
    assert summary["state"] == "finished", summary
    return summary["run_id"]


# Metric names a suite's runs log (the keras-fit defaults and a few extra metrics).
MANY_METRICS = ("loss", "sparse_categorical_accuracy", "precision", "recall", "auc",
                "top_k_categorical_accuracy", "mean_absolute_error")


def write_listed_run(runs_root: Path, name: str, *, model: str = "tiny", steps: int = 40,
                     metrics: tuple[str, ...] = MANY_METRICS, tags: tuple[str, ...] = (),
                     state: str = FINISHED) -> str:
    """A run folder written to the contract by hand, without training (a row for the runs
    table): run.json, status.json, meta.json and metrics.jsonl with ``metrics`` on the
    train, val and test splits; returns its run id."""
    request = {"name": name, "spec": tiny_spec(model), "dataset": dict(DATASET),
               "training": training(steps, ckpt_every=steps, seed=0),
               "device": {"kind": "cpu"}}
    writer = RunWriter.create(runs_root, request)
    start = time.time()
    with writer.metrics_writer() as out:
        for split in ("train", "val", "test"):
            out.append({"step": steps, "epoch": 1, "time": start, "elapsed": 1.5,
                        "split": split, **{m: 0.5 + i / 100 for i, m in enumerate(metrics)}})
    if tags:
        atomic_write_json(writer.paths.meta, {"tags": list(tags)})
    writer.set_status(state=state, step=steps, epoch=1, total_steps=steps,
                      started=now_iso(), wall_seconds=12.3)
    return writer.paths.run_id
