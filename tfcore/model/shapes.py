"""Shape and parameter inference in plain Python, before any TensorFlow call.

Each rule takes a layer's full config and its input shapes (batch axis excluded, ``None``
for unknown sizes) and returns the output shape, or raises :class:`ShapeIssue` naming the
field at fault. Parameter counts are exact for the layers whose formula is known and
``None`` otherwise (Keras Applications): validation uses them to refuse a model above the
parameter limit before anything is allocated.
"""

from __future__ import annotations

import math
import re
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
    dilation = _size(cfg.get("dilation_rate") or 1, rank)
    size = tuple(k + (k - 1) * (d - 1) for k, d in zip(size, dilation))
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


def _channels_last(rule: Callable[[Mapping, Sequence[Shape]], Shape]
                   ) -> Callable[[Mapping, Sequence[Shape]], Shape | None]:
    """The rule for the default ``channels_last`` layout; ``None`` (unknown) otherwise."""
    def wrapped(cfg: Mapping, shapes: Sequence[Shape]) -> Shape | None:
        if cfg.get("data_format", "channels_last") not in (None, "channels_last"):
            return None
        return rule(cfg, shapes)
    return wrapped


def _scale(rank: int) -> Callable[[Mapping, Sequence[Shape]], Shape]:
    """UpSampling: each spatial size times its factor."""
    def rule(cfg: Mapping, shapes: Sequence[Shape]) -> Shape:
        _need_rank(shapes[0], rank + 1, f"A {rank}-D upsampling layer")
        factors = _size(cfg.get("size", 2), rank)
        return (*(None if n is None else n * f for n, f in zip(shapes[0][:rank], factors)),
                shapes[0][-1])
    return rule


def _pairs(value: Any, rank: int) -> list[tuple[int, int]]:
    """A padding or cropping value as (before, after) per spatial axis."""
    if isinstance(value, int):
        return [(value, value)] * rank
    items = list(value)
    if rank == 1 and len(items) == 2 and all(isinstance(v, int) for v in items):
        return [(items[0], items[1])]
    return [(v, v) if isinstance(v, int) else (v[0], v[1]) for v in items]


def _pad(rank: int, sign: int, key: str) -> Callable[[Mapping, Sequence[Shape]], Shape]:
    """ZeroPadding (sign +1) and Cropping (sign -1)."""
    def rule(cfg: Mapping, shapes: Sequence[Shape]) -> Shape:
        _need_rank(shapes[0], rank + 1, f"A {rank}-D padding or cropping layer")
        out = []
        for n, (a, b) in zip(shapes[0][:rank], _pairs(cfg[key], rank)):
            size = None if n is None else n + sign * (a + b)
            if size is not None and size < 1:
                raise ShapeIssue(key, cfg[key], "spec.problem.window", size=a + b, length=n)
            out.append(size)
        return (*out, shapes[0][-1])
    return rule


def _transposed(rank: int) -> Callable[[Mapping, Sequence[Shape]], Shape]:
    """Transposed convolutions, with Keras's output length rule."""
    def rule(cfg: Mapping, shapes: Sequence[Shape]) -> Shape:
        _need_rank(shapes[0], rank + 1, f"A {rank}-D transposed convolution")
        size = _size(cfg["kernel_size"], rank)
        strides = _size(cfg.get("strides") or 1, rank)
        dilation = _size(cfg.get("dilation_rate") or 1, rank)
        extra = cfg.get("output_padding")
        extra = None if extra is None else _size(extra, rank)
        out = []
        for axis, n in enumerate(shapes[0][:rank]):
            k = size[axis] + (size[axis] - 1) * (dilation[axis] - 1)
            s, same = strides[axis], cfg.get("padding", "valid") == "same"
            if n is None:
                out.append(None)
            elif extra is None:
                out.append(n * s if same else n * s + max(k - s, 0))
            else:
                out.append((n - 1) * s + k - 2 * (k // 2 if same else 0) + extra[axis])
        return (*out, cfg["filters"])
    return rule


def _depthwise(rank: int) -> Callable[[Mapping, Sequence[Shape]], Shape]:
    def rule(cfg: Mapping, shapes: Sequence[Shape]) -> Shape:
        channels = shapes[0][-1] if shapes[0] else None
        multiplier = cfg.get("depth_multiplier", 1)
        return _window(shapes[0], cfg, rank, "kernel_size",
                       None if channels is None else channels * multiplier)
    return rule


def _global_keep(rank: int) -> Callable[[Mapping, Sequence[Shape]], Shape]:
    def rule(cfg: Mapping, shapes: Sequence[Shape]) -> Shape:
        _need_rank(shapes[0], rank + 1, "Global pooling")
        return (*(1,) * rank, shapes[0][-1]) if cfg.get("keepdims") else (shapes[0][-1],)
    return rule


def _permute(cfg: Mapping, shapes: Sequence[Shape]) -> Shape:
    dims = list(cfg["dims"])
    if sorted(dims) != list(range(1, len(shapes[0]) + 1)):
        raise ShapeIssue("dims", dims, "spec.problem.rank", type="Permute", rank=len(dims) + 1)
    return tuple(shapes[0][d - 1] for d in dims)


def _repeat(cfg: Mapping, shapes: Sequence[Shape]) -> Shape:
    _need_rank(shapes[0], 1, "RepeatVector")
    return (cfg["n"], shapes[0][0])


def _resize(cfg: Mapping, shapes: Sequence[Shape]) -> Shape | None:
    """Resizing, CenterCrop, RandomCrop: ``height`` x ``width``, channels kept (an image,
    or a stack of them); ``None`` (unknown: Keras decides) for anything else."""
    height, width, shape = cfg.get("height"), cfg.get("width"), shapes[0]
    if not (isinstance(height, int) and isinstance(width, int)) or len(shape) not in (3, 4):
        return None
    return (*shape[:-3], height, width, shape[-1])


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
    weights = _prod([found[1][k] for k in kernel])
    bias = _prod([found[1][k] for k in str(cfg.get("bias_axes") or "")]) \
        if cfg.get("bias_axes") else 0
    return None if weights is None or bias is None else weights + bias


_SAME_SHAPE = ("Identity", "Masking", "ELU", "LeakyReLU", "ReLU", "PReLU",
               "ActivityRegularization", "AlphaDropout", "GaussianDropout", "GaussianNoise",
               "SpatialDropout1D", "SpatialDropout2D", "SpatialDropout3D", "UnitNormalization",
               "RMSNormalization", "GroupNormalization", "Rescaling")

SHAPE_RULES: dict[str, Callable[[Mapping, Sequence[Shape]], Shape]] = {
    **{name: _identity for name in _SAME_SHAPE},
    "UpSampling1D": _scale(1), "UpSampling2D": _channels_last(_scale(2)),
    "UpSampling3D": _channels_last(_scale(3)),
    "ZeroPadding1D": _pad(1, 1, "padding"), "ZeroPadding2D": _channels_last(_pad(2, 1, "padding")),
    "ZeroPadding3D": _channels_last(_pad(3, 1, "padding")),
    "Cropping1D": _pad(1, -1, "cropping"), "Cropping2D": _channels_last(_pad(2, -1, "cropping")),
    "Cropping3D": _channels_last(_pad(3, -1, "cropping")),
    "Conv3D": _channels_last(lambda c, s: _window(s[0], c, 3, "kernel_size", c["filters"])),
    "Conv1DTranspose": _channels_last(_transposed(1)),
    "Conv2DTranspose": _channels_last(_transposed(2)),
    "Conv3DTranspose": _channels_last(_transposed(3)),
    "DepthwiseConv1D": _channels_last(_depthwise(1)),
    "DepthwiseConv2D": _channels_last(_depthwise(2)),
    "SeparableConv1D": _channels_last(lambda c, s: _window(s[0], c, 1, "kernel_size",
                                                           c["filters"])),
    "SeparableConv2D": _channels_last(lambda c, s: _window(s[0], c, 2, "kernel_size",
                                                           c["filters"])),
    "MaxPooling3D": _channels_last(lambda c, s: _window(s[0], c, 3, "pool_size", None)),
    "AveragePooling1D": _channels_last(lambda c, s: _window(s[0], c, 1, "pool_size", None)),
    "AveragePooling3D": _channels_last(lambda c, s: _window(s[0], c, 3, "pool_size", None)),
    "GlobalAveragePooling3D": _channels_last(_global_keep(3)),
    "GlobalMaxPooling1D": _channels_last(_global_keep(1)),
    "GlobalMaxPooling2D": _channels_last(_global_keep(2)),
    "GlobalMaxPooling3D": _channels_last(_global_keep(3)),
    "Permute": _permute, "RepeatVector": _repeat, "EinsumDense": _einsum,
    "Resizing": _channels_last(_resize), "CenterCrop": _channels_last(_resize),
    "RandomCrop": _channels_last(_resize),
    "SimpleRNN": _recurrent,
    "Maximum": lambda c, s: _same(s), "Minimum": lambda c, s: _same(s),
    "Subtract": lambda c, s: _same(s),
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
        groups = cfg.get("groups") or 1
        return (math.prod(_size(cfg["kernel_size"], rank)) * (shape[-1] // groups)
                * cfg["filters"] + _bias(cfg, cfg["filters"]))
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


def _depthwise_params(rank: int, pointwise: bool) -> Callable[[Mapping, Shape], int | None]:
    def count(cfg: Mapping, shape: Shape) -> int | None:
        if shape[-1] is None:
            return None
        inner = shape[-1] * cfg.get("depth_multiplier", 1)
        kernel = math.prod(_size(cfg["kernel_size"], rank)) * inner
        if pointwise:
            return kernel + inner * cfg["filters"] + _bias(cfg, cfg["filters"])
        return kernel + _bias(cfg, inner)
    return count


def _prelu_params(cfg: Mapping, shape: Shape) -> int | None:
    shared = {a % (len(shape) + 1) for a in _size(cfg.get("shared_axes") or [], 1)}
    dims = [1 if axis + 1 in shared else d for axis, d in enumerate(shape)]
    return _prod(dims)


PARAM_RULES: dict[str, Callable[[Mapping, Shape], int | None]] = {
    "Conv3D": _conv_params(3), "Conv1DTranspose": _conv_params(1),
    "Conv2DTranspose": _conv_params(2), "Conv3DTranspose": _conv_params(3),
    "DepthwiseConv1D": _depthwise_params(1, False), "DepthwiseConv2D": _depthwise_params(2, False),
    "SeparableConv1D": _depthwise_params(1, True), "SeparableConv2D": _depthwise_params(2, True),
    "SimpleRNN": _rnn_params(1), "PReLU": _prelu_params, "EinsumDense": _einsum_params,
    "GroupNormalization": _norm_params(0),
    "RMSNormalization": lambda c, s: s[-1],
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
    if rule and out is None:              # a layout the rules do not cover (channels_first)
        return None, None
    count_rule = PARAM_RULES.get(type_name)
    count = count_rule(cfg, shapes[0]) if count_rule and shapes and shapes[0] else (
        0 if type_name in SHAPE_RULES and type_name not in PARAM_RULES else None)
    return out, count
