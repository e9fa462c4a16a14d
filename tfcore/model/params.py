"""Typed layer parameters and layer-type records, checked before any TensorFlow call."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from tfcore.messages import Text, names

# Parameter kinds. ``text`` is a free string; ``json`` any JSON value, given to Keras as its
# serialized form (constraints, nested layers, value ranges, dtype policies ...).
INT, FLOAT, BOOL, CHOICE, SIZE, SHAPE, INIT, REG, TEXT, JSON = (
    "int", "float", "bool", "choice", "size", "shape", "initializer", "regularizer", "text",
    "json")
KINDS = (INT, FLOAT, BOOL, CHOICE, SIZE, SHAPE, INIT, REG, TEXT, JSON)
REGULARIZERS = ("l1", "l2", "l1_l2")
RAW_KEY = "keras_config"
"""Reserved config key: Keras ``get_config`` entries kept as they are (a value the typed
fields cannot hold), given to the layer's ``from_config`` over the typed parameters."""


@dataclass(frozen=True)
class ParamSpec:
    """One parameter of a layer type.

    Attributes:
        kind: one of ``KINDS``; ``size`` is an int or a list of ``length`` ints (kernel
            sizes, strides); ``shape`` a list of positive ints (one may be -1).
        nullable: ``None`` is allowed (for example ``strides`` = same as the pool).
        required: the Keras constructor has no default for it (always written in code).
        advanced: shown under "more Keras options" (generated from the Keras signature).
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
    advanced: bool = False

    def allowed(self) -> str:
        """What values are allowed, in words (English)."""
        return str(self.rule())

    def rule(self) -> Text:
        """What values are allowed: a catalog text with structured parameters (low, high,
        choices, length), ``param.allowed.<kind>``, or null added when it is nullable."""
        if self.kind == CHOICE:
            text = Text("param.allowed.choice", {"choices": names(self.choices)})
        elif self.kind in (INT, FLOAT):
            bounds = {"low": self.minimum, "high": self.maximum}
            which = "_".join(k for k, v in bounds.items() if v is not None) or "any"
            text = Text(f"param.allowed.{self.kind}_{which}",
                        {k: v for k, v in bounds.items() if v is not None})
        elif self.kind == SIZE:
            text = Text("param.allowed.size" + ("_high" if self.maximum else ""),
                        {"length": self.length, "high": self.maximum or 0})
        elif self.kind == INIT:
            from tfcore.model.initializers import initializer_names
            text = Text("param.allowed.initializer", {"choices": names(initializer_names())})
        elif self.kind == REG:
            return Text("param.allowed.regularizer", {"choices": names(REGULARIZERS)})
        else:
            text = Text(f"param.allowed.{self.kind}")
        return Text("param.allowed.or_null", {"rule": text}) if self.nullable else text

    def check(self, value: Any) -> bool:
        """Whether ``value`` is allowed."""
        if value is None:
            return self.nullable or (self.kind == REG)
        return _CHECKS[self.kind](self, value)


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


KERAS_MODULES = ("keras",)
SAFE_REGISTERED = "tflab>"
REFUSED_CLASSES = frozenset({"Lambda", "__lambda__", "function", "TFSMLayer", "JaxLayer",
                             "FlaxLayer", "TorchModuleWrapper"})
MAX_JSON_NODES = 500_000


def unsafe_part(value: Any) -> str | None:
    """The first class a JSON value names that is not Keras's own (or TF Lab's registered
    layers), or code (a lambda, a function); None when it is safe to give to Keras. Walks
    without recursion."""
    stack, seen = [value], 0
    while stack:
        item = stack.pop()
        seen += 1
        if seen > MAX_JSON_NODES:
            return "a value too large to check"
        if isinstance(item, Mapping):
            cls, module = item.get("class_name"), item.get("module")
            registered = item.get("registered_name")
            if isinstance(cls, str) and cls in REFUSED_CLASSES:
                return cls
            if module is not None and not (isinstance(module, str) and (
                    module in KERAS_MODULES or module.startswith(("keras.", "tfcore.model.")))):
                return f"{module}.{cls}"
            if isinstance(registered, str) and ">" in registered and not \
                    registered.startswith(SAFE_REGISTERED):
                return registered
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
        elif not (item is None or isinstance(item, (str, int, float, bool))):
            return type(item).__name__
    return None


def is_keras_object(v: Any) -> bool:
    """A Keras-serialized object: ``{"class_name": ..., "config": {...}}`` (module and
    registered name optional), safe to deserialize."""
    return (isinstance(v, Mapping) and isinstance(v.get("class_name"), str)
            and isinstance(v.get("config", {}), (Mapping, type(None)))
            and set(v) <= {"class_name", "config", "module", "registered_name"}
            and unsafe_part(v) is None)


def _check_init(p: ParamSpec, v: Any) -> bool:
    from tfcore.model.initializers import INITIALIZERS

    if is_keras_object(v):
        return True
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
    return is_keras_object(v) or (isinstance(v, Mapping) and v.get("name") in REGULARIZERS and set(v) <= {"name", "factor"}
            and isinstance(v.get("factor", 0.01), (int, float))
            and not isinstance(v.get("factor", 0.01), bool) and v.get("factor", 0.01) >= 0)


_CHECKS: dict[str, Callable[[ParamSpec, Any], bool]] = {
    INT: lambda p, v: _is_int(v) and _in_range(p, v),
    FLOAT: lambda p, v: isinstance(v, (int, float)) and not isinstance(v, bool) and _in_range(p, v),
    BOOL: lambda p, v: isinstance(v, bool),
    CHOICE: lambda p, v: v in p.choices,
    SIZE: _check_size, SHAPE: _check_shape, INIT: _check_init, REG: _check_reg,
    TEXT: lambda p, v: isinstance(v, str) and len(v) <= 10_000,
    JSON: lambda p, v: unsafe_part(v) is None,
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
        positional: several inputs are passed as separate arguments (``layer(q, v)``,
            attention) rather than as one list (``layer([a, b])``, merges).
        generated: the entry was generated from the Keras class (automatic label and help).
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
    positional: bool = False
    generated: bool = False

    @property
    def keras_class(self) -> bool:
        """Created from a ``keras.layers`` class with ``from_config``."""
        return self.keras_path.startswith("keras.layers.")

    def param(self, name: str) -> ParamSpec | None:
        return next((p for p in self.params if p.name == name), None)

    @property
    def class_name(self) -> str:
        return self.keras_path.rsplit(".", 1)[-1]
