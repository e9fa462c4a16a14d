"""Reach a variable through the nesting of a model: block -> inner block -> layer ->
variable (scenario B4: a bias four levels deep in nested blocks).

A variable's *parts* are the names of the layers that hold it, from the model's top level
down to the layer that owns it, then the variable's own name, e.g.
``("block2", "block_1", "dense_1", "bias")``; a model's variables form a tree of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from tfcore.errors import WeightsError
from tfcore.weights.table import VariableInfo, WeightTable

BLOCK, LAYER, VARIABLE = "block", "layer", "variable"


@dataclass(frozen=True)
class PathStep:
    """One name at one level of the tree: a block (holds layers), a layer (holds
    variables) or a variable (a leaf; ``path`` is its full Keras path)."""

    name: str
    kind: str
    path: str | None = None


def path_parts(info: VariableInfo) -> tuple[str, ...]:
    """The names from the top-level layer down to the variable, e.g.
    ``("block2", "block_1", "dense_1", "bias")``."""
    return tuple(p for p in info.layer.split("/") if p) + (info.name,)


def next_steps(table: WeightTable, prefix: Sequence[str] = ()) -> list[PathStep]:
    """What lies one level below ``prefix`` (``()``: the model's top level), in model
    order, each once.

    Raises:
        WeightsError: ``errors.weights_no_path`` when no variable lies under ``prefix``.
    """
    prefix = tuple(prefix)
    depth = len(prefix)
    found: dict[str, PathStep] = {}
    for info in table.variables:
        parts = path_parts(info)
        if parts[:depth] != prefix or len(parts) <= depth:
            continue
        name = parts[depth]
        if len(parts) == depth + 1:
            found[name] = PathStep(name, VARIABLE, info.path)
        elif len(parts) == depth + 2:
            found.setdefault(name, PathStep(name, LAYER))
        else:
            found[name] = PathStep(name, BLOCK)
    if not found:
        raise WeightsError(key="errors.weights_no_path", params={"path": "/".join(prefix)})
    return list(found.values())


def variable_at(table: WeightTable, parts: Sequence[str]) -> VariableInfo:
    """The variable these parts name.

    Raises:
        WeightsError: the parts stop at a block or layer, or name nothing in the model.
    """
    parts = tuple(parts)
    for info in table.variables:
        if path_parts(info) == parts:
            return info
    raise WeightsError(key="errors.weights_no_path", params={"path": "/".join(parts)})


def first_leaf(table: WeightTable, prefix: Sequence[str] = ()) -> tuple[str, ...]:
    """The parts of the first variable under ``prefix`` (how a browser fills the levels
    below a newly chosen block)."""
    prefix = tuple(prefix)
    for info in table.variables:
        parts = path_parts(info)
        if parts[:len(prefix)] == prefix:
            return parts
    raise WeightsError(key="errors.weights_no_path", params={"path": "/".join(prefix)})
