"""Fabricated ``insight/`` folders for the insight panels' AppTests: a small dense model on
a 2-D plane (a boundary that turns from step to step, every unit's picture, the kernels), or
a big one whose neurons are not drawn, written with the worker's own InsightWriter."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from tfcore.rundir import InsightWriter, RunWriter

SIZE, SMALL = 24, 16
LAYERS = (("dense", 4, "relu", 2), ("dense_1", 3, "tanh", 4), ("dense_2", 2, "softmax", 3))
TOO_MANY = {"key": "insight.reason.too_many", "params": {"units": 5000, "limit": 400}}


def _layers(layers=LAYERS) -> list[dict]:
    return [{"name": name, "kind": "Dense", "units": units, "activation": act,
             "params": (inputs + 1) * units,
             "variables": [f"{name}/kernel", f"{name}/bias"]}
            for name, units, act, inputs in layers]


def _plane(rng: np.random.Generator) -> dict:
    points = rng.uniform(-1.5, 1.5, (60, 2))
    labels = (np.hypot(points[:, 0], points[:, 1]) < 0.9).astype(int)
    return {"lo": [-1.5, -1.5], "hi": [1.5, 1.5], "size": SIZE, "neuron_size": SMALL,
            "points": points.round(4).tolist(), "labels": labels.tolist(),
            "output": "binary", "class_names": ["outer", "inner"]}


def record(step: int, layers=LAYERS, grid: bool = True) -> dict:
    """One snapshot line: histograms whose counts sum to each variable's size, gradient
    norms shrinking towards the input, dead shares of the ReLU layer."""
    hist, grads, dead = {}, {}, {}
    for depth, (name, units, act, inputs) in enumerate(layers):
        spread = 0.1 + step / 200
        hist[f"{name}/kernel"] = {"lo": -spread, "hi": spread,
                                  "counts": [inputs * units - 2, 1, 1]}
        hist[f"{name}/bias"] = {"lo": 0.0, "hi": 0.01 * step, "counts": [units]}
        grads[name] = 10.0 ** (depth - 3) / (1 + step / 50)
        if act == "relu":
            dead[name] = min(1.0, step / 400)
    return {"step": step, "epoch": 1 + step // 40, "time": step / 10, "hist": hist,
            "grad_norm": grads, "dead": dead, "grid": grid}


def boundary(step: int) -> tuple[np.ndarray, np.ndarray]:
    """(conf, cls) of a boundary that turns and moves with the step: class 1 on one side
    of a line; ``[iy, ix]``, rows are x2."""
    xs = np.linspace(-1.5, 1.5, SIZE)
    xx, yy = np.meshgrid(xs, xs)
    angle = step / 100
    score = np.cos(angle) * xx + np.sin(angle) * yy + 0.5 - step / 100
    return 0.5 + 0.5 * np.tanh(np.abs(score)), (score > 0).astype(np.int16)


def write_grid(writer: InsightWriter, step: int, layers=LAYERS) -> None:
    """The plane snapshot of ``step``: :func:`boundary`, unit pictures and kernels that
    change with the step."""
    conf, cls = boundary(step)
    angle = step / 100
    small = np.linspace(-1.5, 1.5, SMALL)
    sx, sy = np.meshgrid(small, small)
    neurons = [np.stack([np.tanh((i + 1) * sx * np.cos(angle) + sy * (i - 1))
                         for i in range(units)]) for _, units, _, _ in layers]
    kernels = [np.linspace(-1, 1, inputs * units).reshape(inputs, units) * (1 + angle)
               for _, units, _, inputs in layers]
    writer.write_grid(step, conf, cls, neurons, kernels)


def make_insight_run(root: Path, run_id: str, steps=(10, 20, 30, 40), state: str = "finished",
                     neurons: bool = True, bad_line: bool = False,
                     reason: dict = TOO_MANY, classes: dict | None = None) -> Path:
    """A run folder (run.json, status.json) with an insight folder of ``steps``; without
    ``neurons`` the meta says why (``reason``); ``classes`` replaces the plane's
    ``class_names`` (and gives its ``class_texts``)."""
    writer = RunWriter.create(root, {"name": run_id, "spec": {}, "training": {}}, run_id)
    writer.set_status(state=state, pid=os.getpid(), step=steps[-1] if steps else 0, epoch=1,
                      total_steps=400, epochs=10, phase="training")
    run_dir = root / run_id
    rng = np.random.default_rng(0)
    out = InsightWriter(run_dir)
    meta = {"every": 10, "layers": _layers(), "plane": _plane(rng) | (classes or {}),
            "probe": 64}
    if neurons:
        meta["neurons"] = [name for name, *_ in LAYERS]
    else:
        meta["neurons"] = []
        meta["neurons_reason"] = reason
    out.write_meta(meta)
    for index, step in enumerate(steps):
        write_grid(out, step)
        out.append(record(step))
        if bad_line and index == 1:
            out._stats.write('{"step": 25, "hist": {"dense/kernel": {"lo": 0, "hi": 1, '
                             '"counts": "many"}}}\n')
    out.close()
    return run_dir


def add_snapshot(run_dir: Path, step: int) -> None:
    """One more snapshot of a live run (its plane file and its stats line)."""
    out = InsightWriter(run_dir)
    write_grid(out, step)
    out.append(record(step))
    out.close()
