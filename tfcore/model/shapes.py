"""Shape and parameter inference in plain Python, before any TensorFlow call.

Each rule takes a layer's full config and its input shapes (batch axis excluded, ``None``
for unknown sizes) and returns the output shape, or raises :class:`ShapeIssue` naming the
field at fault. Parameter counts are exact for the layers whose formula is known and
``None`` otherwise (Keras Applications): validation uses them to refuse a model above the
parameter limit before anything is allocated.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Mapping, Sequence

Shape = tuple  # of int | None


class ShapeIssue(Exception):
    """A layer cannot take the shapes it is given."""

    def __init__(self, field: str, value: Any, key: str, /, **params: Any) -> None:
        super().__init__(key)
        self.field, self.value, self.key, self.params = field, value, key, params


def _size(value: Any, rank: int) -> tuple[int, ...]:
    return tuple(value) if isinstance(value, (list, tuple)) else (value,) * rank


def _prod(dims: Sequence[int | None]) -> int | None:
    return None if any(d is None for d in dims) else math.prod(dims)


def _need_rank(shape: Shape, rank: int, what: str) -> None:
    if len(shape) != rank:
        raise ShapeIssue("inputs", list(shape), "spec.problem.rank", type=what, rank=rank)


def _window(shape: Shape, cfg: Mapping, rank: int, size_key: str, channels: int | None) -> Shape:
    _need_rank(shape, rank + 1, f"A {rank}-D window layer")
    size = _size(cfg[size_key], rank)
    strides = _size(cfg.get("strides") or size, rank)
    out = []
    for n, k, s in zip(shape[:rank], size, strides):
        if n is None:
            out.append(None)
        elif cfg.get("padding", "valid") == "same":
            out.append(math.ceil(n / s))
        else:
            if n < k:
                raise ShapeIssue(size_key, cfg[size_key], "spec.problem.window", size=k, length=n)
            out.append((n - k) // s + 1)
    return (*out, shape[-1] if channels is None else channels)


def _reshape(cfg: Mapping, shapes: Sequence[Shape]) -> Shape:
    target = list(cfg["target_shape"])
    total = _prod(shapes[0])
    if total is None:
        return tuple(None if d == -1 else d for d in target)
    known = math.prod(d for d in target if d != -1)
    if -1 in target:
        if total % known:
            raise ShapeIssue("target_shape", target, "spec.problem.reshape_free", total=total,
                             known=known)
        return tuple(total // known if d == -1 else d for d in target)
    if known != total:
        raise ShapeIssue("target_shape", target, "spec.problem.reshape", total=total, known=known)
    return tuple(target)


def _same(shapes: Sequence[Shape]) -> Shape:
    first = shapes[0]
    for other in shapes[1:]:
        if len(other) != len(first) or any(a is not None and b is not None and a != b
                                           for a, b in zip(first, other)):
            raise ShapeIssue("inputs", [list(s) for s in shapes], "spec.problem.merge_shapes")
    return first


def _concat(cfg: Mapping, shapes: Sequence[Shape]) -> Shape:
    axis = cfg.get("axis", -1)
    rank = len(shapes[0])
    if any(len(s) != rank for s in shapes) or not -rank - 1 <= axis <= rank:
        raise ShapeIssue("inputs", [list(s) for s in shapes], "spec.problem.concat_rank")
    index = axis % rank if axis < 0 else axis - 1
    for i in range(rank):
        sizes = {s[i] for s in shapes if s[i] is not None}
        if i != index and len(sizes) > 1:
            raise ShapeIssue("inputs", [list(s) for s in shapes], "spec.problem.concat_axes")
    sizes = [s[index] for s in shapes]
    joined = None if any(d is None for d in sizes) else sum(sizes)
    return tuple(joined if i == index else shapes[0][i] for i in range(rank))


def _last(units_key: str) -> Callable[[Mapping, Sequence[Shape]], Shape]:
    def rule(cfg: Mapping, shapes: Sequence[Shape]) -> Shape:
        if not shapes[0]:
            raise ShapeIssue("inputs", [], "spec.problem.rank_any")
        return (*shapes[0][:-1], cfg[units_key])
    return rule


def _recurrent(cfg: Mapping, shapes: Sequence[Shape]) -> Shape:
    _need_rank(shapes[0], 2, "A recurrent layer")
    return (shapes[0][0], cfg["units"]) if cfg["return_sequences"] else (cfg["units"],)


def _global(rank: int) -> Callable[[Mapping, Sequence[Shape]], Shape]:
    def rule(cfg: Mapping, shapes: Sequence[Shape]) -> Shape:
        _need_rank(shapes[0], rank + 1, "Global pooling")
        return (shapes[0][-1],)
    return rule


def _fixed_hidden(cfg: Mapping, shapes: Sequence[Shape]) -> Shape:
    """B2 as in the seed: the constant weight is [units, units], so an example must flatten
    to ``units`` numbers; one sum comes out for the whole batch (shape ``()`` in Keras,
    which this batch-free notation cannot write: the built model's summary shows it)."""
    flat = _prod(shapes[0])
    if flat is not None and flat != cfg["units"]:
        raise ShapeIssue("inputs", list(shapes[0]), "spec.problem.fixed_hidden",
                         units=cfg["units"], total=flat)
    return ()


def _fixed_hidden_params(cfg: Mapping, shape: Shape) -> int | None:
    """Only the Dense(units, units) applied once: the constant matrix is not a parameter."""
    units = cfg["units"]
    return units * units + units


def _identity(cfg: Mapping, shapes: Sequence[Shape]) -> Shape:
    return tuple(shapes[0])


SHAPE_RULES: dict[str, Callable[[Mapping, Sequence[Shape]], Shape]] = {
    "Dense": _last("units"), "Linear": _last("units"), "MyDense": _last("units"),
    "Flatten": lambda c, s: (_prod(s[0]),), "Reshape": _reshape,
    "Dropout": _identity, "Activation": _identity, "Softmax": _identity,
    "BatchNormalization": _identity, "LayerNormalization": _identity, "MeanCenter": _identity,
    "Embedding": lambda c, s: (*s[0], c["output_dim"]),
    "Conv1D": lambda c, s: _window(s[0], c, 1, "kernel_size", c["filters"]),
    "Conv2D": lambda c, s: _window(s[0], c, 2, "kernel_size", c["filters"]),
    "MaxPooling1D": lambda c, s: _window(s[0], c, 1, "pool_size", None),
    "MaxPooling2D": lambda c, s: _window(s[0], c, 2, "pool_size", None),
    "AveragePooling2D": lambda c, s: _window(s[0], c, 2, "pool_size", None),
    "GlobalAveragePooling1D": _global(1), "GlobalAveragePooling2D": _global(2),
    "LSTM": _recurrent, "GRU": _recurrent,
    "Add": lambda c, s: _same(s), "Multiply": lambda c, s: _same(s),
    "Average": lambda c, s: _same(s), "Concatenate": _concat,
    "FixedHiddenMLP": _fixed_hidden,
}


def _bias(cfg: Mapping, n: int) -> int:
    return n if cfg.get("use_bias", True) else 0


def _conv_params(rank: int) -> Callable[[Mapping, Shape], int | None]:
    def count(cfg: Mapping, shape: Shape) -> int | None:
        if shape[-1] is None:
            return None
        return (math.prod(_size(cfg["kernel_size"], rank)) * shape[-1] * cfg["filters"]
                + _bias(cfg, cfg["filters"]))
    return count


def _dense_params(cfg: Mapping, shape: Shape) -> int | None:
    return None if shape[-1] is None else shape[-1] * cfg["units"] + _bias(cfg, cfg["units"])


def _rnn_params(gates: int) -> Callable[[Mapping, Shape], int | None]:
    def count(cfg: Mapping, shape: Shape) -> int | None:
        if shape[-1] is None:
            return None
        units = cfg["units"]
        bias = units * (2 if gates == 3 else 1) if cfg.get("use_bias", True) else 0
        return gates * (units * (shape[-1] + units) + bias)
    return count


def _norm_params(per_channel: int) -> Callable[[Mapping, Shape], int | None]:
    def count(cfg: Mapping, shape: Shape) -> int | None:
        if shape[-1] is None:
            return None
        learned = int(cfg.get("center", True)) + int(cfg.get("scale", True))
        return shape[-1] * (learned + per_channel)
    return count


PARAM_RULES: dict[str, Callable[[Mapping, Shape], int | None]] = {
    "Dense": _dense_params, "Linear": lambda c, s: _dense_params({**c, "use_bias": True}, s),
    "MyDense": lambda c, s: _dense_params({**c, "use_bias": True}, s),
    "Conv1D": _conv_params(1), "Conv2D": _conv_params(2),
    "Embedding": lambda c, s: c["input_dim"] * c["output_dim"],
    "LSTM": _rnn_params(4), "GRU": _rnn_params(3),
    "BatchNormalization": _norm_params(2), "LayerNormalization": _norm_params(0),
    "FixedHiddenMLP": _fixed_hidden_params,
}


def infer(type_name: str, cfg: Mapping, shapes: Sequence[Shape]) -> tuple[Shape | None, int | None]:
    """Output shape (``None`` if no rule) and parameter count (``None`` if unknown).

    Raises:
        ShapeIssue: the layer cannot take these input shapes.
    """
    rule = SHAPE_RULES.get(type_name)
    out = rule(cfg, shapes) if rule else None
    count_rule = PARAM_RULES.get(type_name)
    count = count_rule(cfg, shapes[0]) if count_rule and shapes and shapes[0] else (
        0 if type_name in SHAPE_RULES and type_name not in PARAM_RULES else None)
    return out, count
