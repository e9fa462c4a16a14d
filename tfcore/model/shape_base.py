"""What every family of shape rules shares: the ``Shape`` notation, :class:`ShapeIssue`,
and the small helpers for per-axis sizes, products of known sizes, ranks and biases.

A shape leaves out the batch axis and writes ``None`` for a size that is not known.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

Shape = tuple  # of int | None


class ShapeIssue(Exception):
    """A layer cannot take the shapes it is given."""

    def __init__(self, field: str, value: Any, key: str, /, **params: Any) -> None:
        super().__init__(key)
        self.field, self.value, self.key, self.params = field, value, key, params


def per_axis(value: Any, rank: int) -> tuple[int, ...]:
    """A size written once for every axis (``3``) or per axis (``[3, 5]``), per axis."""
    return tuple(value) if isinstance(value, (list, tuple)) else (value,) * rank


def known_prod(dims: Sequence[int | None]) -> int | None:
    """The product of the sizes, ``None`` when any is unknown."""
    return None if any(d is None for d in dims) else math.prod(dims)


def need_rank(shape: Shape, rank: int, what: str) -> None:
    """Refuse a shape of another rank, naming the layer ``what``."""
    if len(shape) != rank:
        raise ShapeIssue("inputs", list(shape), "spec.problem.rank", type=what, rank=rank)


def bias(cfg: Mapping, n: int) -> int:
    """``n`` bias parameters, or none when the layer has ``use_bias`` off."""
    return n if cfg.get("use_bias", True) else 0
