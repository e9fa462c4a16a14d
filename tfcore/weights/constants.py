"""Constant weights: variables a layer keeps fixed forever (B2's never-trained U(0, 1)
matrix). A layer names them in ``constant_weights``; every Weights-lab action leaves them
alone: initializing and rewinding skip them, editing one is refused with a message."""

from __future__ import annotations

from typing import Any

from tfcore.errors import WeightsError


def constant_ids(model: Any) -> set[int]:
    """``id`` of every constant variable of ``model`` (nested layers included)."""
    out: set[int] = set()
    layers = model._flatten_layers(include_self=True, recursive=True)
    for layer in layers:
        for name in getattr(layer, "constant_weights", ()):
            variable = getattr(layer, name, None)
            if variable is not None:
                out.add(id(variable))
    return out


def refuse_constant(model: Any, variable: Any, path: str) -> None:
    """Raise WeightsError when ``variable`` is one of the model's constants."""
    if id(variable) in constant_ids(model):
        raise WeightsError(key="errors.weights_constant", params={"path": path})
