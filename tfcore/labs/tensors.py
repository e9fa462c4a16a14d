"""Tensors by point-and-click: creators and an operation catalog, each result with its TF call.

A :class:`TensorResult` is plain data (numpy values, dtype, shape, device, code line) so a
page can keep a named set of them in its session. Shape and dtype mistakes are checked
before TensorFlow runs and raised as :class:`TensorLabError` naming the shapes. Reading
dtypes, shapes and typed values lives in :mod:`tfcore.labs.tensor_text`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tfcore.labs.tensor_text import (  # noqa: F401 - the lab's names, read here by its pages
    DTYPES,
    MAX_ELEMENTS,
    TensorLabError,
    check_dtype,
    fmt_list,
    parse_matrix,
    parse_shape,
)
from tfcore.labs.tensor_text import tensor_error as _err


@dataclass(frozen=True)
class TensorResult:
    """A tensor's values and description, plus the one TF call that produced it."""

    values: np.ndarray
    dtype: str
    shape: tuple[int, ...]
    device: str
    code: str

    def to_tensor(self):
        """The value as a ``tf.Tensor`` again."""
        import tensorflow as tf

        return tf.constant(self.values, dtype=self.dtype)

    def to_dict(self) -> dict:
        return {"values": self.values.tolist(), "dtype": self.dtype,
                "shape": list(self.shape), "device": self.device, "code": self.code}


def _result(tensor, code: str) -> TensorResult:
    values = tensor.numpy()
    return TensorResult(values=values, dtype=tensor.dtype.name, shape=tuple(values.shape),
                        device=tensor.device or "", code=code)


# ---- creators -------------------------------------------------------------------------

def _create_constant(p: Mapping[str, Any]):
    import tensorflow as tf

    values = parse_matrix(p.get("text", ""), p["dtype"])
    return (tf.constant(values, dtype=p["dtype"]),
            f"tf.constant({fmt_list(values, p['dtype'])}, dtype=tf.{p['dtype']})")


def _create_fill(kind: str):
    def create(p: Mapping[str, Any]):
        import tensorflow as tf

        shape = parse_shape(p.get("shape", "2, 3"))
        fn = tf.zeros if kind == "zeros" else tf.ones
        return fn(shape, dtype=p["dtype"]), f"tf.{kind}({list(shape)}, dtype=tf.{p['dtype']})"
    return create


def _create_random(kind: str):
    def create(p: Mapping[str, Any]):
        import tensorflow as tf

        if not p["dtype"].startswith("float"):
            raise _err("random_dtype", dtype=p["dtype"])
        shape = parse_shape(p.get("shape", "2, 3"))
        seed = int(p.get("seed", 0))
        gen = tf.random.Generator.from_seed(seed)
        a, b = float(p.get("a", 0.0)), float(p.get("b", 1.0))
        if kind == "uniform":
            if not a < b:
                raise _err("uniform_bounds", low=a, high=b)
            value = gen.uniform(shape, minval=a, maxval=b, dtype=p["dtype"])
            args = f"minval={a}, maxval={b}"
        else:
            if b <= 0:
                raise _err("normal_std",
                           std=b)
            value = gen.normal(shape, mean=a, stddev=b, dtype=p["dtype"])
            args = f"mean={a}, stddev={b}"
        return value, (f"tf.random.Generator.from_seed({seed}).{kind}({list(shape)}, {args}, "
                       f"dtype=tf.{p['dtype']})")
    return create


def _create_range(p: Mapping[str, Any]):
    import tensorflow as tf

    start, limit, delta = (float(p.get(k, d)) for k, d in
                           (("start", 0), ("limit", 6), ("delta", 1)))
    if delta == 0 or (limit - start) / delta <= 0:
        raise _err("range", start=start, limit=limit, delta=delta)
    if (limit - start) / delta > MAX_ELEMENTS:
        raise _err("too_big",
                   shape=f"({(limit - start) / delta:.0f},)", limit=MAX_ELEMENTS)
    dtype = p["dtype"]
    if dtype.startswith("int"):
        start, limit, delta = int(start), int(limit), int(delta)
    value = tf.range(start, limit, delta, dtype=dtype)
    return value, f"tf.range({start}, {limit}, {delta}, dtype=tf.{dtype})"


CREATORS: dict[str, Callable[[Mapping[str, Any]], tuple[Any, str]]] = {
    "constant": _create_constant,
    "zeros": _create_fill("zeros"),
    "ones": _create_fill("ones"),
    "uniform": _create_random("uniform"),
    "normal": _create_random("normal"),
    "range": _create_range,
}


def create_tensor(kind: str, /, **params: Any) -> TensorResult:
    """Create a tensor with one of :data:`CREATORS`; ``dtype`` defaults to float32.

    ``kind`` is positional-only: every keyword is a creator parameter.

    Raises:
        TensorLabError: unknown kind, bad values, shape or dtype.
    """
    if kind not in CREATORS:
        raise _err("creator", kind=kind, allowed=", ".join(CREATORS))
    params = dict(params)
    params["dtype"] = check_dtype(params.get("dtype", "float32"))
    tensor, code = CREATORS[kind](params)
    return _result(tensor, code)


# ---- operations -----------------------------------------------------------------------

def _same_dtype(op: str, a: TensorResult, b: TensorResult) -> None:
    if a.dtype != b.dtype:
        raise _err("dtype_mismatch", op=op, a=a.dtype, b=b.dtype)


def _axis(value: Any, t: TensorResult, allow_none: bool = True) -> int | None:
    if value is None or value == "" or value == "None":
        if allow_none:
            return None
        value = 0
    axis = int(value)
    rank = len(t.shape)
    if not -max(rank, 1) <= axis < max(rank, 1) or rank == 0:
        raise _err("axis", axis=axis,
                   shape=str(list(t.shape)), rank=rank)
    return axis


def _op_add(ts, p):
    import tensorflow as tf

    a, b = ts
    _same_dtype("add", a, b)
    try:
        np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        raise _err("broadcast",
                   a=str(list(a.shape)), b=str(list(b.shape))) from None
    return tf.add(a.to_tensor(), b.to_tensor()), "tf.add({0}, {1})"


def _op_matmul(ts, p):
    import tensorflow as tf

    a, b = ts
    _same_dtype("matmul", a, b)
    if len(a.shape) != 2 or len(b.shape) != 2:
        raise _err("matmul_rank", a=str(list(a.shape)),
                   b=str(list(b.shape)))
    if a.shape[1] != b.shape[0]:
        raise _err("matmul_inner", a=str(list(a.shape)), b=str(list(b.shape)))
    return tf.matmul(a.to_tensor(), b.to_tensor()), "tf.matmul({0}, {1})"


def _op_square(ts, p):
    import tensorflow as tf

    return tf.square(ts[0].to_tensor()), "tf.square({0})"


def _op_reduce(kind: str):
    def op(ts, p):
        import tensorflow as tf

        axis = _axis(p.get("axis"), ts[0])
        fn = tf.reduce_sum if kind == "sum" else tf.reduce_mean
        return fn(ts[0].to_tensor(), axis=axis), f"tf.reduce_{kind}({{0}}, axis={axis})"
    return op


def _op_reshape(ts, p):
    import tensorflow as tf

    a = ts[0]
    target = parse_shape(p.get("shape", "-1"), allow_minus_one=True)
    size = int(np.prod(a.shape))
    known = int(np.prod([d for d in target if d != -1] or [1]))
    fits = (size % known == 0) if -1 in target and known else known == size
    if not fits:
        raise _err("reshape",
                   shape=str(list(a.shape)), size=size, target=str(list(target)))
    return tf.reshape(a.to_tensor(), target), f"tf.reshape({{0}}, {list(target)})"


def _op_concat(ts, p):
    import tensorflow as tf

    a, b = ts
    _same_dtype("concat", a, b)
    if len(a.shape) != len(b.shape) or not a.shape:
        raise _err("concat_rank",
                   a=str(list(a.shape)), b=str(list(b.shape)))
    axis = _axis(p.get("axis", 0), a, allow_none=False)
    others = [i for i in range(len(a.shape)) if i != axis % len(a.shape)]
    if any(a.shape[i] != b.shape[i] for i in others):
        raise _err("concat", axis=axis,
                   a=str(list(a.shape)), b=str(list(b.shape)))
    return tf.concat([a.to_tensor(), b.to_tensor()], axis=axis), \
        f"tf.concat([{{0}}, {{1}}], axis={axis})"


def _op_transpose(ts, p):
    import tensorflow as tf

    return tf.transpose(ts[0].to_tensor()), "tf.transpose({0})"


def _op_cast(ts, p):
    import tensorflow as tf

    dtype = check_dtype(p.get("dtype", "float32"))
    return tf.cast(ts[0].to_tensor(), dtype), f"tf.cast({{0}}, tf.{dtype})"


@dataclass(frozen=True)
class OpDef:
    """One catalog operation: how many tensors it takes and which parameters."""

    name: str
    arity: int
    fn: Callable[[Sequence[TensorResult], Mapping[str, Any]], tuple[Any, str]]
    params: tuple[str, ...] = field(default=())


OPS: dict[str, OpDef] = {op.name: op for op in (
    OpDef("add", 2, _op_add),
    OpDef("matmul", 2, _op_matmul),
    OpDef("square", 1, _op_square),
    OpDef("reduce_sum", 1, _op_reduce("sum"), ("axis",)),
    OpDef("reduce_mean", 1, _op_reduce("mean"), ("axis",)),
    OpDef("reshape", 1, _op_reshape, ("shape",)),
    OpDef("concat", 2, _op_concat, ("axis",)),
    OpDef("transpose", 1, _op_transpose),
    OpDef("cast", 1, _op_cast, ("dtype",)),
)}


def apply_op(name: str, inputs: Sequence[TensorResult], names: Sequence[str] | None = None,
             /, **params: Any) -> TensorResult:
    """Apply catalog operation ``name``; ``names`` are the inputs' names in the code line.

    ``name``, ``inputs`` and ``names`` are positional-only: every keyword is an operation
    parameter (an op may take one called ``name``).

    Raises:
        TensorLabError: unknown op, wrong number of inputs, or shapes/dtypes that do not fit.
    """
    if name not in OPS:
        raise _err("op",
                   op=name, allowed=", ".join(OPS))
    op = OPS[name]
    if len(inputs) != op.arity:
        raise _err("arity",
                   op=name, arity=op.arity, count=len(inputs))
    names = list(names or [f"t{i}" for i in range(len(inputs))])
    from tensorflow.errors import InvalidArgumentError

    try:
        tensor, template = op.fn(inputs, params)
    except InvalidArgumentError as exc:  # a check we missed: still plain words and shapes
        shapes = ", ".join(str(list(t.shape)) for t in inputs)
        raise _err("tf", op=name,
                   shapes=shapes, message=exc.message) from None
    return _result(tensor, template.format(*names))
