"""Python source of the values a generated constructor call names: JSON values,
initializers, regularizers, numbers, shapes; and which parameters a call must write
(every one Keras requires and every value that differs from Keras's own default)."""

from __future__ import annotations

import math
from typing import Any

from tfcore.model.catalog import constructor_defaults
from tfcore.model.params import INIT, JSON, REG, LayerType, ParamSpec, is_keras_object


def literal(value: Any) -> str:
    """Python source of a JSON value (``float('inf')`` where repr would be a bare name)."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{str(k)!r}: {literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    if isinstance(value, float):
        return number(value)
    return repr(value)


def value_source(kind: str, value: Any) -> str:
    """Python source of one constructor argument."""
    if kind in (INIT, REG, JSON) and (is_keras_object(value) or kind == JSON):
        return literal(value)       # Keras constructors deserialize their own configs
    if kind == INIT and isinstance(value, dict):
        from tfcore.model.initializers import INITIALIZERS
        init = INITIALIZERS[value["name"]]
        params = value.get("params") or {}
        args = ", ".join(f"{k}={number(v)}" for k, v in params.items() if k.isidentifier())
        return f"keras.initializers.{init.keras_class}({args})"
    if kind == REG and isinstance(value, dict):
        factor = float(value.get("factor", 0.01))
        cls = {"l1": "L1", "l2": "L2", "l1_l2": "L1L2"}[value["name"]]
        args = f"{number(factor)}, {number(factor)}" if cls == "L1L2" else number(factor)
        return f"keras.regularizers.{cls}({args})"
    if isinstance(value, list):
        return repr(tuple(value))
    if isinstance(value, float):
        return number(value)
    return repr(value)


def number(value: Any) -> str:
    """A float literal; ``float('inf')`` / ``float('nan')`` where repr would be a bare name."""
    number = float(value)
    return repr(number) if math.isfinite(number) else f"float({str(number)!r})"


def shape_source(shape: Any) -> str:
    return repr(tuple(shape))


def written_params(kind: LayerType, config: dict) -> list[ParamSpec]:
    """The parameters a constructor call must name: every one the Keras signature requires
    and every value that differs from the default Keras itself has (not the catalog's: an
    ``Activation`` needs its activation even when it is the catalog's ``relu``). An argument
    the signature does not name is written when it differs from the catalog's default."""
    import inspect

    from tfcore.model.convert import to_catalog

    keras_defaults = constructor_defaults(kind.keras_path) if kind.keras_path else {}
    out = []
    for param in kind.params:
        value = config[param.name]
        if param.name in keras_defaults:
            default = keras_defaults[param.name]
            write = default is inspect.Parameter.empty or to_catalog(
                param, default, param.default) != value
        else:
            write = value != param.default
        if write or param.required:
            out.append(param)
    return out
