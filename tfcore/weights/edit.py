"""Direct edits of a variable: set one element, add a constant, fill a numpy-style slice.

Index and slice texts are parsed (never evaluated) and checked against the variable's
shape before anything is written: a bad request raises WeightsError and changes nothing.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from tfcore.errors import WeightsError
from tfcore.messages import Text
from tfcore.weights.stats import TensorStats, tensor_stats
from tfcore.weights.table import find_variable

_INT = re.compile(r"^[+-]?\d+$")


@dataclass(frozen=True)
class EditReport:
    """What an edit changed: the variable, how many values changed, stats before/after."""

    path: str
    operation: str
    changed: int
    before: TensorStats
    after: TensorStats


def _bad_index(text: str, shape: tuple[int, ...], why: str, **params: Any) -> WeightsError:
    """The refusal of ``text`` for ``shape``; ``why`` is the catalog key of the reason, with
    ``params`` (a reason in the reader's language, not English inside a Chinese message)."""
    return WeightsError(key="errors.weights_bad_index",
                        params={"index": text, "shape": str(shape), "why": Text(why, params)})


def _check_axis(text: str, shape: tuple[int, ...], axis: int, i: int) -> None:
    """Refuse integer ``i`` when it is outside axis ``axis`` of ``shape``."""
    if not -shape[axis] <= i < shape[axis]:
        raise _bad_index(text, shape, "errors.weights_why_axis", axis=axis, size=shape[axis],
                         i=i)


def _int(part: str, text: str, shape: tuple[int, ...]) -> int:
    if not _INT.match(part):
        raise _bad_index(text, shape, "errors.weights_why_not_int", part=part)
    return int(part)


def parse_index(text: str, shape: tuple[int, ...]) -> tuple[int, ...]:
    """Parse ``"3, 1"`` into one element's index for ``shape`` (negatives count from the end).

    Raises:
        WeightsError: wrong number of axes, not integers, or out of range.
    """
    parts = [p.strip() for p in str(text).strip().strip("()[]").split(",")]
    parts = [p for p in parts if p]
    if len(parts) != len(shape):
        raise _bad_index(text, shape, "errors.weights_why_count", need=len(shape),
                         got=len(parts))
    index = tuple(_int(p, text, shape) for p in parts)
    for axis, i in enumerate(index):
        _check_axis(text, shape, axis, i)
    return index


def parse_slice(text: str, shape: tuple[int, ...]) -> tuple[Any, ...]:
    """Parse numpy-style slice text (``"0:2, 1"``, ``":, -1"``, ``"..."``) for ``shape``.

    Raises:
        WeightsError: unparsable part, too many axes, an integer out of range, or a slice
            that selects nothing.
    """
    raw = str(text).strip().strip("()[]")
    parts = [p.strip() for p in raw.split(",")] if raw else []
    if any(not p for p in parts):
        raise _bad_index(text, shape, "errors.weights_why_empty_part")
    key: list[Any] = []
    for part in parts:
        if part == "...":
            key.append(Ellipsis)
        elif ":" in part:
            pieces = [p.strip() for p in part.split(":")]
            if len(pieces) > 3:
                raise _bad_index(text, shape, "errors.weights_why_colons", part=part)
            numbers = [None if not p else _int(p, text, shape) for p in pieces]
            if len(numbers) == 3 and numbers[2] == 0:
                raise _bad_index(text, shape, "errors.weights_why_zero_step")
            key.append(slice(*numbers))
        else:
            key.append(_int(part, text, shape))
    if key.count(Ellipsis) > 1:
        raise _bad_index(text, shape, "errors.weights_why_ellipsis")
    axes = len(key) - key.count(Ellipsis)
    if axes > len(shape):
        raise _bad_index(text, shape, "errors.weights_why_axes", axes=axes, ndim=len(shape))
    ahead = key.index(Ellipsis) if Ellipsis in key else len(key)   # parts before '...'
    for n, part in enumerate(key):      # after '...', a part counts from the last axis
        if isinstance(part, int):
            _check_axis(text, shape, n if n < ahead else len(shape) - len(key) + n, part)
    if np.size(np.zeros(shape, dtype=np.int8)[tuple(key)]) == 0:
        raise _bad_index(text, shape, "errors.weights_why_selects_none")
    return tuple(key)


def _number(value: Any, label: str) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = math.nan
    if not math.isfinite(number):
        raise WeightsError(key="errors.weights_bad_value",
                           params={"what": label, "value": str(value)})
    return number


def _commit(variable: Any, old: np.ndarray, new: np.ndarray, operation: str) -> EditReport:
    variable.assign(new)
    return EditReport(path=variable.path, operation=operation,
                      changed=int(np.sum(old != new)),
                      before=tensor_stats(old), after=tensor_stats(new))


def _edit(model: Any, path: str, kind: str, change: Any) -> EditReport:
    """Apply ``change(old) -> new`` to a copy of a variable's values, then commit it."""
    variable = find_variable(model, path)
    old = np.array(variable.numpy())
    return _commit(variable, old, change(old), kind)


def _assign_at(old: np.ndarray, key: Any, value: float) -> np.ndarray:
    new = old.copy()
    new[key] = value
    return new


def set_element(model: Any, path: str, index_text: str, value: Any) -> EditReport:
    """Set one element, e.g. ``set_element(m, "net/dense/kernel", "0, 3", 42)``."""
    number = _number(value, "value")
    return _edit(model, path, "set",
                 lambda old: _assign_at(old, parse_index(index_text, old.shape), number))


def add_constant(model: Any, path: str, value: Any) -> EditReport:
    """Add a constant to every element of a variable."""
    number = _number(value, "constant")
    return _edit(model, path, "add", lambda old: (old + number).astype(old.dtype))


def fill_slice(model: Any, path: str, slice_text: str, value: Any) -> EditReport:
    """Set every element selected by a numpy-style slice to ``value``."""
    number = _number(value, "value")
    return _edit(model, path, "fill",
                 lambda old: _assign_at(old, parse_slice(slice_text, old.shape), number))
