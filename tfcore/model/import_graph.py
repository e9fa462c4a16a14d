"""A Keras model (Sequential or Functional) as a spec.

Each layer becomes an entry of its catalog type, its config kept exactly: values the typed
fields hold are stored in catalog form when they differ from the default, anything else
under ``keras_config`` (raw config). A class outside ``keras.layers`` that Keras itself
provides (an op such as ``add``, an application's own layer, a nested Functional model)
becomes a ``KerasRaw`` entry; a nested Sequential a ``Block``. Shared layers (several
inbound nodes) become entries with ``shares``; a node called with more than its input
(``add(x, 3.0)``, ``training=False``) keeps its call as a template.
"""

from __future__ import annotations

from typing import Any, Mapping

from tfcore.errors import SpecError
from tfcore.model.catalog import default_config, get_type, layer_types
from tfcore.model.catalog_keras import RAW_TYPE, skipped
from tfcore.model.convert import is_default_policy, plain, to_catalog
from tfcore.model.params import RAW_KEY, unsafe_part
from tfcore.model.spec import FUNCTIONAL, INPUT_REF, SEQUENTIAL, InputSpec, LayerSpec, ModelSpec

HOW_TO_IMPORT = ("To import it, write the class on the Custom code page and load it (a "
                 "server started with TFLAB_TRUSTED_CODE=1; the page registers it with "
                 "keras.saving.register_keras_serializable), or rebuild the model from "
                 "built-in Keras layers.")
USER_MODULE_ROOT = "tflab_custom."


def custom_class_error(name: str, cls: str, where: str = "") -> SpecError:
    return SpecError(key="spec.import_custom_class",
                     params={"name": where or name, "cls": cls})


def _tables() -> tuple[dict[str, str], dict[str, str]]:
    keras_classes, tflab = {}, {}
    for name, kind in layer_types().items():
        if kind.keras_class:
            keras_classes[kind.class_name] = keras_classes[name] = name
        elif kind.keras_path.startswith("tfcore.model.layers."):
            tflab[kind.class_name] = name
    return keras_classes, tflab


def _user_types() -> dict[str, str]:
    """Registered Keras name -> catalog type of every loaded user-written layer."""
    import keras

    from tfcore.model.catalog import resolve

    out = {}
    for name, kind in layer_types().items():
        if kind.keras_path.startswith(USER_MODULE_ROOT):
            try:
                out[keras.saving.get_registered_name(resolve(kind.keras_path))] = name
            except (ImportError, AttributeError):
                continue
    return out


def layer_config(type_name: str, keras_config: Mapping[str, Any]) -> dict[str, Any]:
    """Catalog values from a Keras layer config: the required and non-default ones, and what
    no field can hold under ``keras_config``, so that building it gives the same Keras
    config."""
    kind = get_type(type_name)
    defaults = default_config(type_name)
    out: dict[str, Any] = {}
    raw: dict[str, Any] = {}
    for key, value in keras_config.items():
        if key == "name" or (key == "dtype" and (is_default_policy(value)
                                                  or plain(value) == defaults.get(key))):
            continue
        param = kind.param(key)
        if param is None:
            if not (key == "trainable" and value is True):
                raw[key] = plain(value)
            continue
        converted = to_catalog(param, value, defaults.get(key))
        if converted == defaults.get(key) and not param.required:
            continue        # a value Keras requires is kept, even the catalog's default
        if param.check(converted):
            out[key] = converted
        else:
            raw[key] = plain(value)
    if raw:
        out[RAW_KEY] = raw
    return out


def _keras_module(module: Any) -> bool:
    return isinstance(module, str) and (module == "keras" or module.startswith("keras."))


def entry_from_keras(obj: Mapping[str, Any]) -> LayerSpec:
    """One serialized layer (``module``, ``class_name``, ``config``) as a spec entry.

    Raises:
        SpecError: a Lambda (code), a class TF Lab leaves out (named, with the reason), or a
            custom class (named, with how to make it importable).
    """
    cls, module = str(obj.get("class_name")), obj.get("module")
    registered = obj.get("registered_name")
    config = obj.get("config") or {}
    name = str(config.get("name") or obj.get("name") or cls.lower())
    keras_classes, tflab = _tables()
    if cls == "Sequential" and _keras_module(module):
        children = [entry_from_keras(c) for c in config.get("layers", [])
                    if c.get("class_name") != "InputLayer"]
        return LayerSpec(name, "Block", layers=tuple(children))
    if isinstance(registered, str) and registered.startswith("tflab>") and cls in tflab:
        return LayerSpec(name, tflab[cls], layer_config(tflab[cls], config))
    user = _user_types() if isinstance(registered, str) and ">" in registered else {}
    if registered in user:                      # a class written on the Custom code page
        return LayerSpec(name, user[registered], layer_config(user[registered], config))
    if _keras_module(module) and cls == "Lambda":
        raise SpecError(key="spec.import_unsafe")
    if module == "keras.layers" and cls in skipped():
        reason = skipped()[cls]
        raise SpecError(key="spec.import_skipped",
                        params={"layer": name, "type": cls, "reason": reason})
    if module == "keras.layers" and cls in keras_classes:
        return LayerSpec(name, keras_classes[cls], layer_config(keras_classes[cls], config))
    raw = {"module": module, "class_name": cls, "config": plain(config),
           "registered_name": registered}
    if _keras_module(module) and unsafe_part(raw) is None:
        return LayerSpec(name, RAW_TYPE, {"keras": raw})
    found = unsafe_part(raw) if _keras_module(module) else (
        registered if isinstance(registered, str) and registered else f"{module}.{cls}")
    raise custom_class_error(name, str(found))


def _from_sequential(model: Any) -> ModelSpec:
    import keras

    inputs: tuple[InputSpec, ...] = ()
    try:
        shape = tuple(model.inputs[0].shape[1:])
        inputs = (InputSpec(model.inputs[0].name or "x", shape, str(model.inputs[0].dtype)),)
    except (AttributeError, IndexError, ValueError):
        inputs = ()
    entries: list[LayerSpec] = []
    seen: dict[int, LayerSpec] = {}
    for layer in model.layers:
        if isinstance(layer, keras.layers.InputLayer):
            continue
        if id(layer) in seen:
            owner = seen[id(layer)]
            count = sum(1 for e in entries if e.shares == owner.name) + 2
            entries.append(LayerSpec(f"{owner.name}_{count}", owner.type, shares=owner.name))
            continue
        entry = entry_from_keras(keras.saving.serialize_keras_object(layer))
        seen[id(layer)] = entry
        entries.append(entry)
    return ModelSpec(model.name, SEQUENTIAL, inputs, tuple(entries))


def _input(config: Mapping[str, Any], name: str) -> InputSpec:
    from tfcore.model.spec import DTYPES

    shape = config.get("batch_shape") or config.get("batch_input_shape") or [None]
    dtype = config.get("dtype")
    dtype = dtype if isinstance(dtype, str) else (dtype or {}).get("config", {}).get("name")
    return InputSpec(config.get("name", name), tuple(shape[1:]),
                     dtype if dtype in DTYPES else "float32")


def _multi_output(model: Any) -> set[str]:
    """Names of layers whose call returns several tensors."""
    found = set()
    for layer in getattr(model, "layers", []):
        nodes = getattr(layer, "_inbound_nodes", None) or []
        if nodes and len(getattr(nodes[0], "outputs", ()) or ()) > 1:
            found.add(layer.name)
    return found


class _Node:
    """The inputs and the call template of one inbound node."""

    def __init__(self, node: Mapping[str, Any], names: dict, multi: set[str]) -> None:
        self.sources: list[str] = []
        self.names, self.multi, self.indexed = names, multi, False
        self.args = self._sub(node.get("args", []))
        kwargs = dict(node.get("kwargs", {}) or {})
        if kwargs.get("mask", 0) is None:   # Keras passes mask=None again by itself
            del kwargs["mask"]
        self.kwargs = self._sub(kwargs)

    def _sub(self, value: Any) -> Any:
        if isinstance(value, Mapping):
            if value.get("class_name") == "__keras_tensor__":
                layer, index, tensor = value["config"]["keras_history"]
                self.sources.append(self.names.get((layer, index), layer))
                ref: dict[str, Any] = {INPUT_REF: len(self.sources) - 1}
                if tensor or layer in self.multi:
                    ref["output"] = tensor
                    self.indexed = True
                return ref
            return {k: self._sub(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self._sub(v) for v in value]
        return plain(value)

    def call(self, positional: bool) -> dict[str, Any] | None:
        """None when the default call (one tensor, the list of them, or positional for
        attention) reproduces the node."""
        refs = [{INPUT_REF: n} for n in range(len(self.sources))]
        if not self.kwargs and not self.indexed and (
                self.args == refs[:1] and len(refs) == 1
                or (not positional and self.args == [refs] and len(refs) > 1)
                or (positional and self.args == refs and len(refs) > 1)):
            return None
        out: dict[str, Any] = {"args": self.args}
        if self.kwargs:
            out["kwargs"] = self.kwargs
        return out


def _from_functional(model: Any) -> ModelSpec:
    config = model.get_config()
    multi = _multi_output(model)
    inputs, entries, names = [], [], {}
    for item in config["layers"]:
        class_name, name = item["class_name"], item["config"].get("name", item.get("name"))
        if class_name == "InputLayer":
            inputs.append(_input(item["config"], name))
            names[(name, 0)] = inputs[-1].name
            continue
        base = entry_from_keras(item)
        kind = get_type(base.type)
        for index, raw_node in enumerate(item.get("inbound_nodes", [])):
            node = _Node(raw_node, names, multi)
            call = node.call(bool(kind and kind.positional))
            entry_name = name if index == 0 else f"{name}_{index + 1}"
            names[(name, index)] = entry_name
            if index == 0:
                entries.append(LayerSpec(name, base.type, base.config, tuple(node.sources),
                                         layers=base.layers, call=call))
            else:
                entries.append(LayerSpec(entry_name, base.type, inputs=tuple(node.sources),
                                         shares=name, call=call))
    outputs = []
    for ref in _output_refs(config["output_layers"]):
        if ref[2] or ref[0] in multi:
            raise SpecError(key="spec.import_multi_output", params={"layer": ref[0]})
        outputs.append(names.get((ref[0], ref[1]), ref[0]))
    return ModelSpec(model.name, FUNCTIONAL, tuple(inputs), tuple(entries), tuple(outputs))


def _output_refs(refs: Any) -> list[list]:
    if refs and isinstance(refs[0], str):
        return [refs]
    return list(refs)


def model_to_spec(model: Any) -> ModelSpec:
    """A spec describing a Sequential or Functional Keras model built from built-in layers
    (and TF Lab's own).

    Raises:
        SpecError: a model subclass, a custom or left-out class (named), a Lambda.
    """
    import keras

    if isinstance(model, keras.Sequential):
        return _from_sequential(model)
    if hasattr(model, "get_config") and "output_layers" in (model.get_config() or {}):
        return _from_functional(model)
    raise SpecError(key="spec.import_subclass", params={"type": type(model).__name__})
