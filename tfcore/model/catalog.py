"""The layer catalog: every type a spec may name, with a typed parameter schema.

A :class:`ParamSpec` says a parameter's kind, default, range or choices and help text in
both languages; a :class:`LayerType` lists its parameters and how to create the Keras
layer. Forms, validation, code generation and import are all driven by this registry
(the records are in :mod:`tfcore.model.params`, the entries in
:mod:`tfcore.model.layer_entries`).
"""

from __future__ import annotations

import importlib
import inspect
from functools import lru_cache
from typing import Any, Sequence

from tfcore.errors import SpecError
from tfcore.messages import Names
from tfcore.model.params import (  # noqa: F401 - the kinds are part of the catalog's face
    BOOL,
    CHOICE,
    FLOAT,
    INIT,
    INT,
    JSON,
    KINDS,
    RAW_KEY,
    REG,
    REGULARIZERS,
    SHAPE,
    SIZE,
    TEXT,
    LayerType,
    ParamSpec,
    is_keras_object,
)
from tfcore.model.spec import LayerSpec

CATEGORIES = ("core", "conv", "pool", "norm", "recurrent", "merge", "activation", "attention",
              "reshape", "regularization", "preprocessing", "image", "application", "custom",
              "structure")


_CUSTOM: dict[str, dict[str, LayerType]] = {"types": {}, "merged": {}}


def layer_types() -> dict[str, LayerType]:
    """Every catalog type by name, in menu order (user-written layers last)."""
    from tfcore.model.layer_entries import LAYER_TYPES

    return _CUSTOM["merged"] or LAYER_TYPES


def set_custom_types(types: dict[str, LayerType]) -> None:
    """Add user-written layer types (``tfcore.custom`` loads them); replaces the last set."""
    from tfcore.model.layer_entries import LAYER_TYPES

    _CUSTOM["types"] = dict(types)
    _CUSTOM["merged"] = {**LAYER_TYPES, **types} if types else {}


def type_names(category: str | None = None) -> list[str]:
    return [n for n, lt in layer_types().items() if category in (None, lt.category)]


def similar_types(name: object, count: int = 8) -> list[str]:
    """Catalog types whose name starts like ``name`` (its first three letters), for a message
    that refuses an unknown type."""
    stem = str(name).lower()[:3]
    return [n for n in type_names() if stem and n.lower().startswith(stem)][:count]


def get_type(name: str) -> LayerType | None:
    return layer_types().get(name)


def default_config(type_name: str) -> dict[str, Any]:
    """The default value of every parameter of a type."""
    kind = get_type(type_name)
    return {p.name: p.default for p in kind.params} if kind else {}


def full_config(entry: LayerSpec) -> dict[str, Any]:
    """The entry's config with defaults filled in for the parameters it leaves out."""
    return {**default_config(entry.type), **dict(entry.config)}


def keras_value(param: ParamSpec, value: Any) -> Any:
    """Turn a spec value into what the Keras constructor takes."""
    if value is None:
        return None
    if param.kind in (INIT, REG) and is_keras_object(value):
        return dict(value)          # the Keras constructor deserializes its own config
    if param.kind == INIT:
        from tfcore.model.initializers import make_initializer
        if isinstance(value, str):
            return make_initializer(value)
        return make_initializer(value["name"], value.get("params") or {})
    if param.kind == REG:
        import keras
        factor = float(value.get("factor", 0.01))
        return {"l1": lambda: keras.regularizers.L1(factor),
                "l2": lambda: keras.regularizers.L2(factor),
                "l1_l2": lambda: keras.regularizers.L1L2(factor, factor)}[value["name"]]()
    if param.kind in (SIZE, SHAPE) and isinstance(value, list):
        return tuple(value)
    return value


def resolve(path: str) -> Any:
    """The object at a dotted path such as ``keras.layers.Dense``."""
    module, _, attr = path.rpartition(".")
    return getattr(importlib.import_module(module), attr)


def constructor_defaults(path: str) -> dict[str, Any]:
    """Each keyword argument of the Keras class or function at ``path`` with the default its
    signature gives, ``inspect.Parameter.empty`` when it has none (a required argument). A
    class's ``**kwargs`` is followed up its base classes (``trainable``, ``dtype`` ...)."""
    return dict(_signature_defaults(resolve(path)))


@lru_cache(maxsize=512)
def _signature_defaults(obj: Any) -> tuple[tuple[str, Any], ...]:
    found: dict[str, Any] = {}
    for target in (obj.__mro__ if inspect.isclass(obj) else (obj,)):
        function = target.__init__ if inspect.isclass(target) else target
        if inspect.isclass(target) and "__init__" not in vars(target):
            continue
        try:
            parameters = inspect.signature(function).parameters.values()
        except (TypeError, ValueError):
            break
        more = False
        for param in parameters:
            if param.kind == param.VAR_KEYWORD:
                more = True
            elif param.name != "self" and param.kind != param.VAR_POSITIONAL:
                found.setdefault(param.name, param.default)
        if not more:
            break
    return tuple(found.items())


def create_layer(entry: LayerSpec, children: Sequence[Any] = (),
                 input_shape: tuple | None = None) -> Any:
    """Create the Keras layer of one spec entry.

    Args:
        children: the created layers of a ``Block``'s children.
        input_shape: shape of the incoming tensor without the batch axis (needed by
            Keras Applications, which take ``input_shape`` at construction).

    Raises:
        SpecError: unknown type; Keras's own errors propagate for :mod:`tfcore.model.build`
            to attribute to the layer.
    """
    import keras

    kind = get_type(entry.type)
    if kind is None:
        raise SpecError(key="spec.unknown_type", params={
            "layer": entry.name, "type": entry.type, "close": Names(similar_types(entry.type))})
    if kind.container:
        return keras.Sequential(list(children), name=entry.name)
    if kind.name == "KerasRaw":
        return _raw_object(entry, keras)
    kwargs = keras_kwargs(entry, input_shape)
    if kind.keras_class:  # from_config also deserializes nested configs (wrapped layers)
        return resolve(kind.keras_path).from_config({"name": entry.name, **kwargs})
    return resolve(kind.keras_path)(name=entry.name, **kwargs)


def _raw_object(entry: LayerSpec, keras: Any) -> Any:
    """A Keras object from its serialized config (Keras's own classes only: checked by
    validation, and deserialized in safe mode)."""
    value = dict(full_config(entry)["keras"])
    if not is_keras_object(value):
        raise SpecError(key="spec.raw_unsafe", params={"layer": entry.name})
    value["config"] = {**dict(value.get("config") or {}), "name": entry.name}
    return keras.saving.deserialize_keras_object(value, safe_mode=True)


def keras_kwargs(entry: LayerSpec, input_shape: tuple | None = None) -> dict[str, Any]:
    """Constructor keyword arguments (Keras values) of an entry, ``name`` excluded."""
    kind = get_type(entry.type)
    config = full_config(entry)
    kwargs = {p.name: keras_value(p, config.get(p.name)) for p in kind.params}
    kwargs.update(kind.fixed)
    raw = config.get(RAW_KEY)
    if isinstance(raw, dict):
        kwargs.update({k: v for k, v in raw.items() if k != "name"})
    if kind.wants_input_shape and input_shape is not None:
        kwargs["input_shape"] = tuple(input_shape)
    return kwargs
