"""Activation statistics per layer on one batch: mean, std, share of dead units.

A unit (one output position, batch axis excluded) is *dead* on a batch when it is zero
for every example, which is what a ReLU with a bad initialization produces.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from tfcore.errors import WeightsError


@dataclass(frozen=True)
class ActivationStats:
    """One layer application's output on a batch."""

    layer: str
    class_name: str
    shape: tuple[int, ...]
    mean: float
    std: float
    zero_share: float
    dead_share: float

    def to_dict(self) -> dict:
        return {"layer": self.layer, "class": self.class_name, "shape": list(self.shape),
                "mean": self.mean, "std": self.std, "zero_share": self.zero_share,
                "dead_share": self.dead_share}


def _stats(name: str, layer: Any, output: Any) -> ActivationStats:
    values = np.asarray(output, dtype=np.float64)
    units = values.reshape(values.shape[0], -1) if values.ndim > 1 else values[:, None]
    return ActivationStats(
        layer=name, class_name=type(layer).__name__, shape=tuple(values.shape),
        mean=float(values.mean()), std=float(values.std()),
        zero_share=float(np.mean(values == 0)),
        dead_share=float(np.mean(np.all(units == 0, axis=0))))


def _outputs(model: Any, batch: np.ndarray) -> list[tuple[str, Any, Any]]:
    import keras

    layers = [l for l in getattr(model, "layers", []) if type(l).__name__ != "InputLayer"]
    if isinstance(model, keras.Sequential):
        x, found = batch, []
        for layer in layers:
            x = layer(x)
            found.append((layer.name, layer, x))
        return found
    inputs = model.inputs if len(model.inputs) > 1 else model.inputs[0]
    probe = keras.Model(inputs, [layer.output for layer in layers])
    outputs = probe(batch)
    outputs = outputs if isinstance(outputs, (list, tuple)) else [outputs]
    return [(layer.name, layer, out) for layer, out in zip(layers, outputs)]


def activation_stats(model: Any, batch: np.ndarray) -> tuple[ActivationStats, ...]:
    """Run one batch through the model and summarize each layer's output.

    Raises:
        WeightsError: the batch does not fit the model's input.
    """
    try:
        found = _outputs(model, np.asarray(batch, dtype="float32"))
    except Exception as exc:
        message = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise WeightsError(key="errors.weights_batch",
                           params={"shape": str(tuple(np.shape(batch))),
                                   "message": message}) from exc
    return tuple(_stats(name, layer, out) for name, layer, out in found
                 if not isinstance(out, (list, tuple, dict)))


def random_batch(input_shape: tuple[int | None, ...], size: int = 64,
                 seed: int = 0) -> np.ndarray:
    """A batch of U(0, 1) inputs (like image pixels) for a model's input shape."""
    shape = tuple(d or 1 for d in input_shape)
    return np.random.default_rng(seed).random((int(size), *shape), dtype=np.float32)


def model_input_shape(model: Any) -> tuple[int | None, ...] | None:
    """The model's input shape without the batch axis, or None when it has no input yet."""
    try:
        shape = model.inputs[0].shape
    except (AttributeError, IndexError, TypeError, ValueError):
        return None
    return tuple(shape[1:])
