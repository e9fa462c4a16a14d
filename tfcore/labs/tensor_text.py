"""Typed tensor input for the tensor lab: dtypes, shapes and matrices read from text, and the
lab's error.

Helpers that take parameters as keywords (``tensor_error``, and the lab's creators and
operations) take their own arguments positional-only, so a parameter may have any name
(``message``, ``key``, ``name``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from tfcore.errors import TFLabError

DTYPES = ("float32", "float64", "int32", "int64")
MAX_ELEMENTS = 100_000


class TensorLabError(TFLabError):
    """A tensor cannot be created or an operation does not fit its inputs."""

    default_key = "foundations.err.tensor"


def tensor_error(key: str, /, **params: Any) -> TensorLabError:
    """A ``TensorLabError`` keyed ``foundations.err.<key>`` with ``params`` for its text."""
    return TensorLabError(key=f"foundations.err.{key}", params=params)


def fmt_list(values: np.ndarray, dtype: str) -> str:
    """Values as a Python literal, each number in its shortest form for ``dtype``."""
    array = np.asarray(values)
    if array.ndim == 0:
        return str(array.item()) if dtype.startswith("int") else str(array.astype(dtype))
    return "[" + ", ".join(fmt_list(row, dtype) for row in array) + "]"


def check_dtype(dtype: str) -> str:
    """Return ``dtype`` if it is one the lab offers, else raise."""
    if dtype not in DTYPES:
        raise tensor_error("dtype", dtype=dtype, allowed=", ".join(DTYPES))
    return dtype


def parse_shape(text: str | Sequence[int], allow_minus_one: bool = False) -> tuple[int, ...]:
    """Read ``"2, 3"`` (or a sequence) as a shape; ``-1`` only where reshape allows it."""
    if isinstance(text, str):
        parts = [p for p in re.split(r"[,\s()\[\]x×]+", text.strip()) if p]
        try:
            dims = tuple(int(p) for p in parts)
        except ValueError:
            raise tensor_error("shape_text", value=text) from None
    else:
        dims = tuple(int(d) for d in text)
    low = -1 if allow_minus_one else 0
    if any(d < low for d in dims) or sum(d == -1 for d in dims) > 1:
        raise tensor_error("shape_text", value=str(list(dims)))
    if int(np.prod([d for d in dims if d > 0] or [1])) > MAX_ELEMENTS:
        raise tensor_error("too_big", shape=str(list(dims)),
                           limit=MAX_ELEMENTS)
    return dims


def parse_matrix(text: str, dtype: str = "float32") -> np.ndarray:
    """Read typed values: ``"1 2; 3 4"`` (rows by ``;`` or new line) or JSON ``[[1,2],[3,4]]``.

    Raises:
        TensorLabError: a value that is not a number, ragged rows, or nothing typed.
    """
    check_dtype(dtype)
    text = (text or "").strip()
    if not text:
        raise tensor_error("parse_empty")
    if text.startswith("["):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise tensor_error("parse_value",
                               value=text) from None
    else:
        rows = [r for r in re.split(r"[;\n]", text) if r.strip()]
        data = []
        for row in rows:
            cells = [c for c in re.split(r"[,\s]+", row.strip()) if c]
            try:
                data.append([float(c) for c in cells])
            except ValueError:
                bad = next(c for c in cells if not _is_number(c))
                raise tensor_error("parse_value",
                                   value=bad) from None
        if len(data) == 1 and ";" not in text and "\n" not in text:
            data = data[0] if len(data[0]) > 1 else data[0][0]
    try:
        array = np.array(data, dtype=np.float64)
    except (ValueError, TypeError):
        lengths = [len(r) if isinstance(r, list) else 1 for r in data] \
            if isinstance(data, list) else []
        raise tensor_error("parse_ragged", lengths=str(lengths)) from None
    if array.size > MAX_ELEMENTS:
        raise tensor_error("too_big",
                           shape=str(list(array.shape)), limit=MAX_ELEMENTS)
    return array.astype(dtype)


def _is_number(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False
