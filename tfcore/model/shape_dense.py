"""Shape and parameter rules of the layers with weights along the last axis: Dense (and
the tutorials' Linear, MyDense, FixedHiddenMLP), Embedding, the recurrent layers and
EinsumDense; and the parameter counts of the normalization layers and PReLU, whose
output shape is their input's.
"""

from __future__ import annotations

import re
from typing import Callable, Mapping, Sequence

from tfcore.model.shape_base import Shape, ShapeIssue, bias, known_prod, need_rank, per_axis


def _last(units_key: str) -> Callable[[Mapping, Sequence[Shape]], Shape]:
    def rule(cfg: Mapping, shapes: Sequence[Shape]) -> Shape:
        if not shapes[0]:
            raise ShapeIssue("inputs", [], "spec.problem.rank_any")
        return (*shapes[0][:-1], cfg[units_key])
    return rule


def _recurrent(cfg: Mapping, shapes: Sequence[Shape]) -> Shape:
    need_rank(shapes[0], 2, "A recurrent layer")
    return (shapes[0][0], cfg["units"]) if cfg["return_sequences"] else (cfg["units"],)


def _fixed_hidden(cfg: Mapping, shapes: Sequence[Shape]) -> Shape:
    """B2 as in the seed: the constant weight is [units, units], so an example must flatten
    to ``units`` numbers; one sum comes out for the whole batch (shape ``()`` in Keras,
    which this batch-free notation cannot write: the built model's summary shows it)."""
    flat = known_prod(shapes[0])
    if flat is not None and flat != cfg["units"]:
        raise ShapeIssue("inputs", list(shapes[0]), "spec.problem.fixed_hidden",
                         units=cfg["units"], total=flat)
    return ()


def _fixed_hidden_params(cfg: Mapping, shape: Shape) -> int | None:
    """Only the Dense(units, units) applied once: the constant matrix is not a parameter."""
    units = cfg["units"]
    return units * units + units


def _einsum_dims(cfg: Mapping, shape: Shape) -> tuple[str, dict[str, int | None]] | None:
    """EinsumDense's kernel letters and every letter's size, as Keras works them out
    (``ab,bc->ac``: batch first, ``output_shape`` the rest); ``None`` for an equation
    with ``...`` or one this does not follow."""
    equation, out = cfg.get("equation"), cfg.get("output_shape")
    match = re.fullmatch(r"([a-zA-Z]+),([a-zA-Z]+)->([a-zA-Z]+)", str(equation or ""))
    out = [out] if isinstance(out, int) else out
    if not match or not isinstance(out, (list, tuple)):
        return None
    inp, kernel, result = match.groups()
    if len(inp) != len(shape) + 1 or len(result) != len(out) + 1:
        return None
    sizes: dict[str, int | None] = dict(zip(inp, (None, *shape)))
    for letter, size in zip(result[1:], out):
        sizes.setdefault(letter, size)
    return (result, sizes) if all(k in sizes for k in kernel + result) else None


def _einsum(cfg: Mapping, shapes: Sequence[Shape]) -> Shape | None:
    found = _einsum_dims(cfg, shapes[0])
    return None if found is None else tuple(found[1][k] for k in found[0][1:])


def _einsum_params(cfg: Mapping, shape: Shape) -> int | None:
    found = _einsum_dims(cfg, shape)
    if found is None:
        return None
    kernel = re.fullmatch(r"[a-zA-Z]+,([a-zA-Z]+)->.*", str(cfg["equation"])).group(1)
    weights = known_prod([found[1][k] for k in kernel])
    bias_count = known_prod([found[1][k] for k in str(cfg.get("bias_axes") or "")]) \
        if cfg.get("bias_axes") else 0
    return None if weights is None or bias_count is None else weights + bias_count


DENSE_SHAPES: dict[str, Callable[[Mapping, Sequence[Shape]], Shape]] = {
    "EinsumDense": _einsum,
    "SimpleRNN": _recurrent,
    "Dense": _last("units"), "Linear": _last("units"), "MyDense": _last("units"),
    "Embedding": lambda c, s: (*s[0], c["output_dim"]),
    "LSTM": _recurrent, "GRU": _recurrent,
    "FixedHiddenMLP": _fixed_hidden,
}


def _dense_params(cfg: Mapping, shape: Shape) -> int | None:
    return None if shape[-1] is None else shape[-1] * cfg["units"] + bias(cfg, cfg["units"])


def _rnn_params(gates: int) -> Callable[[Mapping, Shape], int | None]:
    def count(cfg: Mapping, shape: Shape) -> int | None:
        if shape[-1] is None:
            return None
        units = cfg["units"]
        biases = units * (2 if gates == 3 else 1) if cfg.get("use_bias", True) else 0
        return gates * (units * (shape[-1] + units) + biases)
    return count


def _norm_params(per_channel: int) -> Callable[[Mapping, Shape], int | None]:
    def count(cfg: Mapping, shape: Shape) -> int | None:
        if shape[-1] is None:
            return None
        learned = int(cfg.get("center", True)) + int(cfg.get("scale", True))
        return shape[-1] * (learned + per_channel)
    return count


def _prelu_params(cfg: Mapping, shape: Shape) -> int | None:
    shared = {a % (len(shape) + 1) for a in per_axis(cfg.get("shared_axes") or [], 1)}
    dims = [1 if axis + 1 in shared else d for axis, d in enumerate(shape)]
    return known_prod(dims)


DENSE_PARAMS: dict[str, Callable[[Mapping, Shape], int | None]] = {
    "SimpleRNN": _rnn_params(1), "PReLU": _prelu_params, "EinsumDense": _einsum_params,
    "GroupNormalization": _norm_params(0),
    "RMSNormalization": lambda c, s: s[-1],
    "Dense": _dense_params, "Linear": lambda c, s: _dense_params({**c, "use_bias": True}, s),
    "MyDense": lambda c, s: _dense_params({**c, "use_bias": True}, s),
    "Embedding": lambda c, s: c["input_dim"] * c["output_dim"],
    "LSTM": _rnn_params(4), "GRU": _rnn_params(3),
    "BatchNormalization": _norm_params(2), "LayerNormalization": _norm_params(0),
    "FixedHiddenMLP": _fixed_hidden_params,
}
