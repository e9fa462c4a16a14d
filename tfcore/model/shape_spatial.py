"""Shape and parameter rules of the spatial layers: convolutions (plain, transposed,
depthwise, separable), pooling and global pooling, upsampling, zero padding and cropping,
resizing and crops.

The rules follow the default ``channels_last`` layout; for ``channels_first`` a rule
answers ``None`` (unknown: Keras decides when the model is built).
"""

from __future__ import annotations

import math
from typing import Any, Callable, Mapping, Sequence

from tfcore.model.shape_base import Shape, ShapeIssue, bias, need_rank, per_axis


def _window(shape: Shape, cfg: Mapping, rank: int, size_key: str, channels: int | None) -> Shape:
    need_rank(shape, rank + 1, f"A {rank}-D window layer")
    size = per_axis(cfg[size_key], rank)
    strides = per_axis(cfg.get("strides") or size, rank)
    dilation = per_axis(cfg.get("dilation_rate") or 1, rank)
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
        need_rank(shapes[0], rank + 1, f"A {rank}-D upsampling layer")
        factors = per_axis(cfg.get("size", 2), rank)
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
        need_rank(shapes[0], rank + 1, f"A {rank}-D padding or cropping layer")
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
        need_rank(shapes[0], rank + 1, f"A {rank}-D transposed convolution")
        size = per_axis(cfg["kernel_size"], rank)
        strides = per_axis(cfg.get("strides") or 1, rank)
        dilation = per_axis(cfg.get("dilation_rate") or 1, rank)
        extra = cfg.get("output_padding")
        extra = None if extra is None else per_axis(extra, rank)
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
        need_rank(shapes[0], rank + 1, "Global pooling")
        return (*(1,) * rank, shapes[0][-1]) if cfg.get("keepdims") else (shapes[0][-1],)
    return rule


def _resize(cfg: Mapping, shapes: Sequence[Shape]) -> Shape | None:
    """Resizing, CenterCrop, RandomCrop: ``height`` x ``width``, channels kept (an image,
    or a stack of them); ``None`` (unknown: Keras decides) for anything else."""
    height, width, shape = cfg.get("height"), cfg.get("width"), shapes[0]
    if not (isinstance(height, int) and isinstance(width, int)) or len(shape) not in (3, 4):
        return None
    return (*shape[:-3], height, width, shape[-1])


SPATIAL_SHAPES: dict[str, Callable[[Mapping, Sequence[Shape]], Shape]] = {
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
    "Resizing": _channels_last(_resize), "CenterCrop": _channels_last(_resize),
    "RandomCrop": _channels_last(_resize),
    "Conv1D": lambda c, s: _window(s[0], c, 1, "kernel_size", c["filters"]),
    "Conv2D": lambda c, s: _window(s[0], c, 2, "kernel_size", c["filters"]),
    "MaxPooling1D": lambda c, s: _window(s[0], c, 1, "pool_size", None),
    "MaxPooling2D": lambda c, s: _window(s[0], c, 2, "pool_size", None),
    "AveragePooling2D": lambda c, s: _window(s[0], c, 2, "pool_size", None),
    # every global pooling alike: keepdims (MobileNet's and MobileNetV3's classifier heads)
    # and data_format were once honoured by all but these two
    "GlobalAveragePooling1D": _channels_last(_global_keep(1)),
    "GlobalAveragePooling2D": _channels_last(_global_keep(2)),
}


def _conv_params(rank: int) -> Callable[[Mapping, Shape], int | None]:
    def count(cfg: Mapping, shape: Shape) -> int | None:
        if shape[-1] is None:
            return None
        groups = cfg.get("groups") or 1
        return (math.prod(per_axis(cfg["kernel_size"], rank)) * (shape[-1] // groups)
                * cfg["filters"] + bias(cfg, cfg["filters"]))
    return count


def _depthwise_params(rank: int, pointwise: bool) -> Callable[[Mapping, Shape], int | None]:
    def count(cfg: Mapping, shape: Shape) -> int | None:
        if shape[-1] is None:
            return None
        inner = shape[-1] * cfg.get("depth_multiplier", 1)
        kernel = math.prod(per_axis(cfg["kernel_size"], rank)) * inner
        if pointwise:
            return kernel + inner * cfg["filters"] + bias(cfg, cfg["filters"])
        return kernel + bias(cfg, inner)
    return count


SPATIAL_PARAMS: dict[str, Callable[[Mapping, Shape], int | None]] = {
    "Conv3D": _conv_params(3), "Conv1DTranspose": _conv_params(1),
    "Conv2DTranspose": _conv_params(2), "Conv3DTranspose": _conv_params(3),
    "DepthwiseConv1D": _depthwise_params(1, False), "DepthwiseConv2D": _depthwise_params(2, False),
    "SeparableConv1D": _depthwise_params(1, True), "SeparableConv2D": _depthwise_params(2, True),
    "Conv1D": _conv_params(1), "Conv2D": _conv_params(2),
}
