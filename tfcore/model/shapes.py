"""Shape and parameter inference in plain Python, before any TensorFlow call.

Each rule takes a layer's full config and its input shapes (batch axis excluded, ``None``
for unknown sizes) and returns the output shape, or raises :class:`ShapeIssue` naming the
field at fault. Parameter counts are exact for the layers whose formula is known and
``None`` otherwise (Keras Applications): validation uses them to refuse a model above the
parameter limit before anything is allocated.

The rules live with their layer family: the spatial layers in
:mod:`tfcore.model.shape_spatial`, the layers with weights along the last axis in
:mod:`tfcore.model.shape_dense`, and here the layers without weights that only reshape,
reorder or merge; the helpers they share in :mod:`tfcore.model.shape_base`.
"""

from __future__ import annotations

import math
from typing import Callable, Mapping, Sequence

from tfcore.model.shape_base import Shape, ShapeIssue, known_prod, need_rank
from tfcore.model.shape_dense import DENSE_PARAMS, DENSE_SHAPES
from tfcore.model.shape_spatial import SPATIAL_PARAMS, SPATIAL_SHAPES


def _reshape(cfg: Mapping, shapes: Sequence[Shape]) -> Shape:
    target = list(cfg["target_shape"])
    total = known_prod(shapes[0])
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
    """An element-wise merge's output, broadcast as Keras broadcasts it (its
    ``_compute_elemwise_op_output_shape``): axes aligned from the last, a 1 takes the other
    size, a shorter shape is padded in front. A squeeze-and-excite block multiplies
    ``(h, w, c)`` by ``(1, 1, c)``: EfficientNetV2 was refused when sizes had to be equal."""
    out = tuple(shapes[0])
    for other in shapes[1:]:
        longer, shorter = (out, tuple(other)) if len(out) >= len(other) else (tuple(other), out)
        merged = list(longer[:len(longer) - len(shorter)])
        for a, b in zip(longer[len(longer) - len(shorter):], shorter):
            if a is None or b is None:
                merged.append(None)
            elif a == 1 or b == 1:
                merged.append(b if a == 1 else a)
            elif a != b:
                raise ShapeIssue("inputs", [list(s) for s in shapes],
                                 "spec.problem.merge_shapes")
            else:
                merged.append(a)
        out = tuple(merged)
    return out


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


def _identity(cfg: Mapping, shapes: Sequence[Shape]) -> Shape:
    return tuple(shapes[0])


def _permute(cfg: Mapping, shapes: Sequence[Shape]) -> Shape:
    dims = list(cfg["dims"])
    if sorted(dims) != list(range(1, len(shapes[0]) + 1)):
        raise ShapeIssue("dims", dims, "spec.problem.rank", type="Permute", rank=len(dims) + 1)
    return tuple(shapes[0][d - 1] for d in dims)


def _repeat(cfg: Mapping, shapes: Sequence[Shape]) -> Shape:
    need_rank(shapes[0], 1, "RepeatVector")
    return (cfg["n"], shapes[0][0])


_SAME_SHAPE = ("Identity", "Masking", "ELU", "LeakyReLU", "ReLU", "PReLU",
               "ActivityRegularization", "AlphaDropout", "GaussianDropout", "GaussianNoise",
               "SpatialDropout1D", "SpatialDropout2D", "SpatialDropout3D", "UnitNormalization",
               "RMSNormalization", "GroupNormalization", "Rescaling")

SHAPE_RULES: dict[str, Callable[[Mapping, Sequence[Shape]], Shape]] = {
    **{name: _identity for name in _SAME_SHAPE},
    **SPATIAL_SHAPES,
    **DENSE_SHAPES,
    "Permute": _permute, "RepeatVector": _repeat,
    "Maximum": lambda c, s: _same(s), "Minimum": lambda c, s: _same(s),
    "Subtract": lambda c, s: _same(s),
    "Flatten": lambda c, s: (known_prod(s[0]),), "Reshape": _reshape,
    "Dropout": _identity, "Activation": _identity, "Softmax": _identity,
    "BatchNormalization": _identity, "LayerNormalization": _identity, "MeanCenter": _identity,
    "Add": lambda c, s: _same(s), "Multiply": lambda c, s: _same(s),
    "Average": lambda c, s: _same(s), "Concatenate": _concat,
}

PARAM_RULES: dict[str, Callable[[Mapping, Shape], int | None]] = {
    **SPATIAL_PARAMS, **DENSE_PARAMS,
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
