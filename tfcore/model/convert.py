"""Keras ``get_config`` values <-> the catalog's parameter values.

A value becomes its catalog form only when nothing is lost (an initializer with a seed, an
``L1L2`` with two different factors stay Keras configs); :func:`to_catalog` returns the
form to store, and the importer keeps anything a field cannot hold as raw config.
"""

from __future__ import annotations

import json
from typing import Any, Mapping

from tfcore.model.params import INIT, REG, SHAPE, SIZE, ParamSpec

_REG_CLASSES = {"L1": ("l1", ("l1",)), "L2": ("l2", ("l2",)), "L1L2": ("l1_l2", ("l1", "l2"))}


def plain(value: Any) -> Any:
    """JSON-plain copy (tuples become lists, keys strings)."""
    return json.loads(json.dumps(value, default=str))


def init_value(value: Any) -> Any:
    """A Keras initializer config as a catalog value, or None when it has no exact one."""
    from tfcore.model.initializers import INITIALIZERS

    if isinstance(value, str):
        return value if value in INITIALIZERS else None
    if not isinstance(value, Mapping):
        return None
    by_class = {i.keras_class: i for i in INITIALIZERS.values()}
    kind = by_class.get(value.get("class_name"))
    registered = value.get("registered_name")
    if kind is None or (registered not in (None, value.get("class_name"))
                        and registered != kind.registered_name):
        return None
    known = {p.name: p for p in kind.params}
    config = {k: v for k, v in (value.get("config") or {}).items()
              if v is not None or k in known}   # seed, input_axes ... unset
    if "seed" in config:
        return None
    if set(config) - set(known) or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in config.values()):
        return None
    params = {k: float(v) for k, v in config.items() if float(v) != known[k].default}
    return {"name": kind.name, "params": params} if params else kind.name


def reg_value(value: Any) -> Any:
    """A Keras regularizer config as ``{"name", "factor"}``, or None when inexact."""
    if not isinstance(value, Mapping) or value.get("class_name") not in _REG_CLASSES:
        return None
    name, keys = _REG_CLASSES[value["class_name"]]
    config = value.get("config") or {}
    factors = {float(config.get(k, 0.01)) for k in keys}
    if len(factors) != 1 or set(config) - set(keys):
        return None
    return {"name": name, "factor": factors.pop()}


def to_catalog(param: ParamSpec, value: Any, default: Any) -> Any:
    """The catalog form of a Keras config value for ``param`` (the value itself when it has
    no shorter form)."""
    if param.kind == INIT:
        converted = init_value(value)
        return value if converted is None else converted
    if param.kind == REG:
        if value is None:
            return None
        converted = reg_value(value)
        return value if converted is None else converted
    if param.kind in (SIZE, SHAPE) and isinstance(value, (list, tuple)):
        value = list(value)
        if param.kind == SIZE and len(set(value)) == 1 and not isinstance(default, list):
            return value[0]
        return value
    if param.name in ("activation", "recurrent_activation") and value is None:
        return "linear"
    return plain(value)


def is_default_policy(value: Any) -> bool:
    """The float32 dtype policy every layer has unless told otherwise."""
    if value in (None, "float32"):
        return True
    return (isinstance(value, Mapping) and value.get("class_name") == "DTypePolicy"
            and (value.get("config") or {}).get("name") == "float32")
