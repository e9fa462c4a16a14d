"""Evaluate a trained model on one split: loss, metrics and the predictions themselves."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from tfcore.training.config import TrainConfig, make_loss, make_metrics


@dataclass(frozen=True)
class Evaluation:
    """Loss and metric values of a split, and the model's predictions on it."""

    metrics: Mapping[str, float]
    predictions: np.ndarray


def evaluate_split(model: Any, x: np.ndarray, y: np.ndarray, config: TrainConfig) -> Evaluation:
    """The same loss and metrics as training, computed from one ``predict`` pass."""
    if not len(x):
        return Evaluation({}, np.zeros((0,), np.float32))
    pred = np.asarray(model.predict(x, batch_size=max(config.batch_size, 256), verbose=0),
                      dtype=np.float32)
    out = {"loss": float(make_loss(config.loss)(y, pred))}
    for metric in make_metrics(config.metrics):
        metric.update_state(y, pred)
        out[metric.name] = float(metric.result())
    return Evaluation(out, pred)
