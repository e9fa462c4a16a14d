"""GradientTape lab: curated expressions, their value and the gradient of every variable.

Each :class:`Expression` names its variables (with default values and shapes), computes a
scalar with TensorFlow ops, and carries its formula and the Python code a student would
write. One-variable expressions also give the function curve and the tangent at a point.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

import numpy as np

from tfcore.errors import TFLabError
from tfcore.messages import Names

T2_X = ((1.0, 2.0), (3.0, 4.0))
T2_Y = ((1.0,), (2.0,))


class AutodiffError(TFLabError):
    """An unknown expression or a variable value of the wrong shape."""

    default_key = "foundations.err.autodiff"


@dataclass(frozen=True)
class VariableDef:
    """One variable of an expression: its name, default value and shape."""

    name: str
    default: tuple[float, ...]
    shape: tuple[int, ...] = ()


@dataclass(frozen=True)
class Expression:
    """A curated scalar expression of variables, differentiable with GradientTape."""

    name: str
    formula: str
    variables: tuple[VariableDef, ...]
    fn: Callable[[Mapping[str, Any]], Any]
    code: str

    @property
    def one_variable(self) -> bool:
        return len(self.variables) == 1 and self.variables[0].shape == ()


@dataclass(frozen=True)
class GradientResult:
    """Value of an expression and the gradient of each variable (same shape as it)."""

    expression: str
    values: Mapping[str, np.ndarray]
    value: float
    gradients: Mapping[str, np.ndarray]
    code: str

    def to_dict(self) -> dict:
        return {"expression": self.expression, "value": self.value,
                "values": {k: np.asarray(v).tolist() for k, v in self.values.items()},
                "gradients": {k: np.asarray(v).tolist() for k, v in self.gradients.items()}}


@dataclass(frozen=True)
class TangentData:
    """A one-variable function sampled on a grid and its tangent line at ``x0``."""

    xs: np.ndarray
    ys: np.ndarray
    tangent: np.ndarray
    x0: float
    y0: float
    slope: float


def _square(v):
    return v["x"] ** 2


def _t2_loss(v):
    import tensorflow as tf

    x = tf.constant(T2_X)
    y = tf.constant(T2_Y)
    return 0.5 * tf.reduce_sum(tf.square(tf.matmul(x, v["w"]) + v["b"] - y))


def _sigmoid(v):
    import tensorflow as tf

    return tf.sigmoid(v["x"])


def _product(v):
    return v["x"] * v["y"] * v["z"]


def _cube_minus(v):
    return v["x"] ** 3 - 3.0 * v["x"]


EXPRESSIONS: dict[str, Expression] = {e.name: e for e in (
    Expression("square", "y = x²", (VariableDef("x", (3.0,)),), _square,
               "x = tf.Variable(3.0)\nwith tf.GradientTape() as tape:\n    y = tf.square(x)\n"
               "dy_dx = tape.gradient(y, x)  # 2x"),
    Expression("t2", "L(w, b) = ½‖Xw + b − y‖²,  X = [[1, 2], [3, 4]],  y = [[1], [2]]",
               (VariableDef("w", (1.0, 2.0), (2, 1)), VariableDef("b", (1.0,))), _t2_loss,
               "X = tf.constant([[1., 2.], [3., 4.]])\ny = tf.constant([[1.], [2.]])\n"
               "w = tf.Variable([[1.], [2.]])\nb = tf.Variable(1.)\n"
               "with tf.GradientTape() as tape:\n"
               "    L = 0.5 * tf.reduce_sum(tf.square(tf.matmul(X, w) + b - y))\n"
               "dL_dw, dL_db = tape.gradient(L, [w, b])"),
    Expression("sigmoid", "y = σ(x) = 1 / (1 + e^(−x))", (VariableDef("x", (0.0,)),),
               _sigmoid,
               "x = tf.Variable(0.0)\nwith tf.GradientTape() as tape:\n    y = tf.sigmoid(x)\n"
               "dy_dx = tape.gradient(y, x)  # σ(x)(1 − σ(x))"),
    Expression("cubic", "y = x³ − 3x", (VariableDef("x", (2.0,)),), _cube_minus,
               "x = tf.Variable(2.0)\nwith tf.GradientTape() as tape:\n    y = x**3 - 3*x\n"
               "dy_dx = tape.gradient(y, x)  # 3x² − 3"),
    Expression("product", "f = x · y · z",
               (VariableDef("x", (2.0,)), VariableDef("y", (3.0,)), VariableDef("z", (4.0,))),
               _product,
               "x, y, z = tf.Variable(2.0), tf.Variable(3.0), tf.Variable(4.0)\n"
               "with tf.GradientTape() as tape:\n    f = x * y * z\n"
               "df_dx, df_dy, df_dz = tape.gradient(f, [x, y, z])  # yz, xz, xy"),
)}


UNARY_OPS: dict[str, tuple[str, Callable[[Any], Any]]] = {
    "square": ("tf.square", lambda x: __import__("tensorflow").square(x)),
    "sin": ("tf.sin", lambda x: __import__("tensorflow").sin(x)),
    "exp": ("tf.exp", lambda x: __import__("tensorflow").exp(x)),
    "tanh": ("tf.tanh", lambda x: __import__("tensorflow").tanh(x)),
    "sigmoid": ("tf.sigmoid", lambda x: __import__("tensorflow").sigmoid(x)),
    "relu": ("tf.nn.relu", lambda x: __import__("tensorflow").nn.relu(x)),
    "negative": ("tf.negative", lambda x: __import__("tensorflow").negative(x)),
}


def compose(ops: tuple[str, ...] | list[str], x0: float = 1.0) -> Expression:
    """A one-variable expression built from the unary catalog, applied left to right.

    Raises:
        AutodiffError: an empty chain or an unknown operation.
    """
    ops = tuple(ops)
    unknown = [op for op in ops if op not in UNARY_OPS]
    if not ops or unknown:
        raise AutodiffError(key="foundations.err.compose",
                            params={"allowed": Names(UNARY_OPS), "ops": str(list(ops))})
    call = "x"
    for op in ops:
        call = f"{UNARY_OPS[op][0]}({call})"

    def fn(v):
        out = v["x"]
        for op in ops:
            out = UNARY_OPS[op][1](out)
        return out
    code = (f"x = tf.Variable({x0})\nwith tf.GradientTape() as tape:\n    y = {call}\n"
            "dy_dx = tape.gradient(y, x)")
    return Expression("custom:" + ",".join(ops), f"y = {call}", (VariableDef("x", (x0,)),),
                      fn, code)


def expression_names() -> list[str]:
    """Names of the curated expressions, in display order."""
    return list(EXPRESSIONS)


def get_expression(name: str) -> Expression:
    """The expression called ``name``.

    Raises:
        AutodiffError: no such expression.
    """
    if name.startswith("custom:"):
        return compose([op for op in name[7:].split(",") if op])
    if name not in EXPRESSIONS:
        raise AutodiffError(key="foundations.err.expression",
                            params={"name": name, "allowed": Names(EXPRESSIONS)})
    return EXPRESSIONS[name]


def _as_value(var: VariableDef, value: Any) -> np.ndarray:
    array = np.asarray(var.default if value is None else value, dtype=np.float32)
    size = int(np.prod(var.shape)) if var.shape else 1
    if array.size != size:
        raise AutodiffError(
            key="foundations.err.variable_shape",
            params={"name": var.name, "size": size, "shape": str(list(var.shape)),
                    "received": str(array.ravel().tolist())})
    return array.reshape(var.shape)


def evaluate(name: str, values: Mapping[str, Any] | None = None) -> GradientResult:
    """Value and gradients of expression ``name`` at ``values`` (defaults where missing).

    Raises:
        AutodiffError: unknown expression or a value of the wrong size.
    """
    import tensorflow as tf

    expr = get_expression(name)
    values = dict(values or {})
    arrays = {v.name: _as_value(v, values.get(v.name)) for v in expr.variables}
    variables = {k: tf.Variable(a) for k, a in arrays.items()}
    with tf.GradientTape() as tape:
        out = expr.fn(variables)
    grads = tape.gradient(out, list(variables.values()))
    return GradientResult(
        expression=name, values=arrays, value=float(out.numpy()),
        gradients={k: (g.numpy() if g is not None else np.zeros_like(arrays[k]))
                   for k, g in zip(variables, grads)},
        code=expr.code)


def tangent(name: str, x0: float, low: float = -4.0, high: float = 4.0,
            points: int = 121) -> TangentData:
    """The curve of a one-variable expression on ``[low, high]`` and its tangent at ``x0``.

    Raises:
        AutodiffError: the expression has more than one variable or the range is empty.
    """
    import tensorflow as tf

    expr = get_expression(name)
    if not expr.one_variable:
        raise AutodiffError(key="foundations.err.not_one_variable",
                            params={"name": name})
    if not low < high:
        raise AutodiffError(key="foundations.err.plot_range", params={"low": low, "high": high})
    var = expr.variables[0].name
    xs = np.linspace(low, high, points, dtype=np.float32)
    ys = expr.fn({var: tf.constant(xs)}).numpy()
    at = evaluate(name, {var: x0})
    slope = float(at.gradients[var])
    return TangentData(xs=xs, ys=ys, tangent=at.value + slope * (xs - np.float32(x0)),
                       x0=float(x0), y0=at.value, slope=slope)
