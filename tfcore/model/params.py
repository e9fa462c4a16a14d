"""Typed layer parameters and layer-type records, checked before any TensorFlow call."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

# Parameter kinds.
INT, FLOAT, BOOL, CHOICE, SIZE, SHAPE, INIT, REG = (
    "int", "float", "bool", "choice", "size", "shape", "initializer", "regularizer")
KINDS = (INT, FLOAT, BOOL, CHOICE, SIZE, SHAPE, INIT, REG)
REGULARIZERS = ("l1", "l2", "l1_l2")


@dataclass(frozen=True)
class ParamSpec:
    """One parameter of a layer type.

    Attributes:
        kind: one of ``KINDS``; ``size`` is an int or a list of ``length`` ints (kernel
            sizes, strides); ``shape`` a list of positive ints (one may be -1).
        nullable: ``None`` is allowed (for example ``strides`` = same as the pool).
        required: the Keras constructor has no default for it (always written in code).
    """

    name: str
    kind: str
    default: Any
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[Any, ...] = ()
    help: Mapping[str, str] = field(default_factory=dict)
    nullable: bool = False
    length: int = 2
    required: bool = False

    def allowed(self) -> str:
        """What values are allowed, in words (English)."""
        extra = " or null" if self.nullable else ""
        if self.kind == CHOICE:
            return f"one of {list(self.choices)}{extra}"
        if self.kind == BOOL:
            return "true or false"
        if self.kind in (INT, FLOAT):
            noun = "an integer" if self.kind == INT else "a number"
            lo = "" if self.minimum is None else f" >= {_fmt(self.minimum)}"
            hi = "" if self.maximum is None else f" <= {_fmt(self.maximum)}"
            both = " and" if lo and hi else ""
            return f"{noun}{lo}{both}{hi}{extra}"
        if self.kind == SIZE:
            return (f"a positive integer or a list of {self.length} positive integers"
                    f" (<= {_fmt(self.maximum)}){extra}" if self.maximum else
                    f"a positive integer or a list of {self.length} positive integers{extra}")
        if self.kind == SHAPE:
            return "a list of positive integers (one may be -1)"
        if self.kind == INIT:
            from tfcore.model.initializers import initializer_names
            return f"an initializer name, one of {initializer_names()}"
        if self.kind == REG:
            return f'null or {{"name": one of {list(REGULARIZERS)}, "factor": a number >= 0}}'
        return "a value"

    def check(self, value: Any) -> bool:
        """Whether ``value`` is allowed."""
        if value is None:
            return self.nullable or (self.kind == REG)
        return _CHECKS[self.kind](self, value)


def _fmt(number: float) -> str:
    return f"{number:,}" if float(number).is_integer() and abs(number) >= 1 else f"{number:g}"


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _in_range(p: ParamSpec, v: float) -> bool:
    return (p.minimum is None or v >= p.minimum) and (p.maximum is None or v <= p.maximum)


def _check_size(p: ParamSpec, v: Any) -> bool:
    items = v if isinstance(v, (list, tuple)) else [v]
    if isinstance(v, (list, tuple)) and len(v) != p.length:
        return False
    return all(_is_int(i) and i >= 1 and (p.maximum is None or i <= p.maximum) for i in items)


def _check_shape(p: ParamSpec, v: Any) -> bool:
    return (isinstance(v, (list, tuple)) and len(v) >= 1
            and all(_is_int(i) and (i >= 1 or i == -1) for i in v)
            and sum(1 for i in v if i == -1) <= 1)


def _check_init(p: ParamSpec, v: Any) -> bool:
    from tfcore.model.initializers import INITIALIZERS

    if isinstance(v, str):
        return v in INITIALIZERS
    if isinstance(v, Mapping):
        known = INITIALIZERS.get(v.get("name"))
        params = v.get("params", {}) or {}
        names = {q.name for q in known.params} if known else set()
        return (known is not None and isinstance(params, Mapping) and set(params) <= names
                and set(v) <= {"name", "params"}
                and all(isinstance(x, (int, float)) and not isinstance(x, bool)
                        for x in params.values()))
    return False


def _check_reg(p: ParamSpec, v: Any) -> bool:
    return (isinstance(v, Mapping) and v.get("name") in REGULARIZERS and set(v) <= {"name", "factor"}
            and isinstance(v.get("factor", 0.01), (int, float))
            and not isinstance(v.get("factor", 0.01), bool) and v.get("factor", 0.01) >= 0)


_CHECKS: dict[str, Callable[[ParamSpec, Any], bool]] = {
    INT: lambda p, v: _is_int(v) and _in_range(p, v),
    FLOAT: lambda p, v: isinstance(v, (int, float)) and not isinstance(v, bool) and _in_range(p, v),
    BOOL: lambda p, v: isinstance(v, bool),
    CHOICE: lambda p, v: v in p.choices,
    SIZE: _check_size, SHAPE: _check_shape, INIT: _check_init, REG: _check_reg,
}


@dataclass(frozen=True)
class LayerType:
    """A catalog entry.

    Attributes:
        keras_path: dotted path of the class (``keras.layers.Dense``), used to create the
            layer and in generated code; ``tfcore.model.layers.X`` for the tutorials' layers.
        min_inputs/max_inputs: how many tensors it takes (merges take 2 or more).
        fixed: keyword arguments always passed (``weights=None`` for applications).
        wants_input_shape: the Keras class needs ``input_shape`` at construction
            (Keras Applications); it is taken from the incoming tensor.
        container: a ``Block`` whose children (``layers``) run in order.
    """

    name: str
    category: str
    title: Mapping[str, str]
    help: Mapping[str, str]
    params: tuple[ParamSpec, ...] = ()
    keras_path: str = ""
    min_inputs: int = 1
    max_inputs: int = 1
    fixed: Mapping[str, Any] = field(default_factory=dict)
    wants_input_shape: bool = False
    container: bool = False

    def param(self, name: str) -> ParamSpec | None:
        return next((p for p in self.params if p.name == name), None)

    @property
    def class_name(self) -> str:
        return self.keras_path.rsplit(".", 1)[-1]
