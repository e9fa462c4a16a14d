"""The source of the custom classes a spec uses, for generated code.

The tutorials' layers (``tfcore.model.layers``) are written out with their registration
(``package="tflab"``); user-written layers (catalog types ``custom.<Class>``, loaded by
``tfcore.custom`` as modules ``tflab_custom.<file>``) are written out as their whole file,
followed by a registration line for each of its Keras classes under the name TF Lab saved
it with. So ``.keras`` files saved by the generated code load back with plain Keras.
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any

from tfcore.model.catalog import get_type
from tfcore.model.spec import ModelSpec

USER_MODULE_ROOT = "tflab_custom."


def user_module(type_name: str) -> str | None:
    """The module of a user-written layer type, None for every other type."""
    kind = get_type(type_name)
    if kind is None or not kind.keras_path.startswith(USER_MODULE_ROOT):
        return None
    return kind.keras_path.rsplit(".", 1)[0]


def class_path_name(keras_path: str) -> str:
    """How generated code names a layer class: tutorial and user classes by bare name."""
    if keras_path.startswith(("tfcore.model.layers.", USER_MODULE_ROOT)):
        return keras_path.rsplit(".", 1)[-1]
    return keras_path


def _registrations(module: Any) -> list[str]:
    import keras

    lines = []
    for name, value in vars(module).items():
        if not (isinstance(value, type) and value.__module__ == module.__name__
                and issubclass(value, (keras.layers.Layer, keras.losses.Loss,
                                       keras.metrics.Metric))):
            continue
        registered = keras.saving.get_registered_name(value)
        package, _, short = registered.rpartition(">")
        lines.append(f"keras.saving.register_keras_serializable(package={package or 'custom'!r}, "
                     f"name={short!r})({name})")
    return lines


def _user_source(module_name: str) -> str:
    module = importlib.import_module(module_name)
    source = inspect.getsource(module).rstrip()
    short = module_name[len(USER_MODULE_ROOT):]
    return (f"# --- your code: custom/{short}.py\n{source}\n\n"
            + "\n".join(_registrations(module)))


def custom_classes(spec: ModelSpec) -> str:
    """The classes block of generated code ("" when the spec uses only Keras layers)."""
    from tfcore.model import layers as tutorial

    types = [e.type for e in spec.all_layers()]
    used = [t for t in dict.fromkeys(types) if t in tutorial.CUSTOM_LAYERS]
    modules = list(dict.fromkeys(m for m in map(user_module, types) if m))
    parts = []
    if used:
        parts.append(f"PACKAGE = {tutorial.PACKAGE!r}")
        parts.append(inspect.getsource(tutorial._check_units))
        parts += [inspect.getsource(tutorial.CUSTOM_LAYERS[name]) for name in used]
    parts += [_user_source(m) for m in modules]
    if not parts:
        return ""
    return "from keras import ops\n\n\n" + "\n\n\n".join(p.rstrip() for p in parts) + "\n\n\n"
