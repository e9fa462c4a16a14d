"""End-of-run pictures' data: confusion matrix, misclassified examples, decision boundary.

The worker writes ``analysis.npz`` into the run directory (plain arrays, read back with
``allow_pickle=False``); the page only draws it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tfcore.rundir import RunPaths

ANALYSIS_FILE = "analysis.npz"
MAX_MISCLASSIFIED = 24
GRID = 60


@dataclass(frozen=True)
class Analysis:
    """What the page draws at the end of a run (every field may be empty)."""

    confusion: np.ndarray            # (C, C) counts, rows = true class
    class_names: tuple[str, ...]
    mis_images: np.ndarray           # (k, H, W, C) misclassified test images
    mis_true: np.ndarray
    mis_pred: np.ndarray
    grid_x: np.ndarray               # (G,) decision-boundary axes (2-D inputs)
    grid_y: np.ndarray
    grid_class: np.ndarray           # (G, G) predicted class
    points: np.ndarray               # (n, 2) test points
    point_labels: np.ndarray


def analysis_path(paths: RunPaths) -> Path:
    return paths.root / ANALYSIS_FILE


def write_analysis(paths: RunPaths, bundle: Any, pred: np.ndarray, model: Any = None) -> None:
    """Compute the end-of-run arrays from test predictions and save them."""
    info = bundle.info
    if info.task != "classification" or not len(pred) or pred.ndim != 2:
        return
    classes = max(int(info.num_classes or 0), pred.shape[-1])
    y_true = np.asarray(bundle.y_test).astype(np.int64).ravel()
    y_pred = pred.argmax(axis=-1) if pred.shape[-1] > 1 else (pred[:, 0] > 0.5).astype(int)
    confusion = np.zeros((classes, classes), np.int64)
    np.add.at(confusion, (y_true, y_pred), 1)
    wrong = np.flatnonzero(y_true != y_pred)[:MAX_MISCLASSIFIED]
    images = (bundle.x_test[wrong] if info.kind == "image"
              else np.zeros((0,), np.float32))
    arrays = dict(confusion=confusion, class_names=np.array(info.class_names or (), dtype=str),
                  mis_images=np.asarray(images, np.float32), mis_true=y_true[wrong],
                  mis_pred=y_pred[wrong])
    if model is not None and tuple(info.input_shape) == (2,):
        x = np.asarray(bundle.x_test, np.float32)
        lo, hi = x.min(axis=0) - 0.5, x.max(axis=0) + 0.5
        gx, gy = np.linspace(lo[0], hi[0], GRID), np.linspace(lo[1], hi[1], GRID)
        mesh = np.stack(np.meshgrid(gx, gy), axis=-1).reshape(-1, 2).astype(np.float32)
        probs = np.asarray(model.predict(mesh, batch_size=1024, verbose=0))
        grid = probs.argmax(-1) if probs.shape[-1] > 1 else (probs[:, 0] > 0.5).astype(int)
        arrays.update(grid_x=gx, grid_y=gy, grid_class=grid.reshape(GRID, GRID),
                      points=x, point_labels=y_true)
    np.savez_compressed(analysis_path(paths), **arrays)


def read_analysis(paths: RunPaths) -> Analysis | None:
    """The saved analysis of a run, or None when there is none."""
    path = analysis_path(paths)
    if not path.is_file():
        return None
    empty = np.zeros((0,))
    with np.load(path, allow_pickle=False) as data:
        get = lambda key: data[key] if key in data.files else empty  # noqa: E731
        return Analysis(confusion=get("confusion"),
                        class_names=tuple(str(c) for c in get("class_names")),
                        mis_images=get("mis_images"), mis_true=get("mis_true"),
                        mis_pred=get("mis_pred"), grid_x=get("grid_x"), grid_y=get("grid_y"),
                        grid_class=get("grid_class"), points=get("points"),
                        point_labels=get("point_labels"))
