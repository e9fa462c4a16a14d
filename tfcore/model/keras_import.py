"""Import a model: a ``.keras`` file (loaded with ``safe_mode=True``) becomes a spec.

A Lambda layer (arbitrary code) is refused by Keras's safe mode; a layer whose class is not
in the catalog stops the import with a message naming it. Shared layers (one layer used by
several nodes) become entries with ``shares``; nested Sequential models become Blocks.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from tfcore.errors import SpecError
from tfcore.model.catalog import default_config, get_type, layer_types
from tfcore.model.params import INIT, REG, SHAPE, SIZE
from tfcore.model.spec import FUNCTIONAL, SEQUENTIAL, InputSpec, LayerSpec, ModelSpec

_REG_NAMES = {"L1": ("l1", "l1"), "L2": ("l2", "l2"), "L1L2": ("l1_l2", "l1")}


def _class_to_type() -> dict[str, str]:
    table = {lt.class_name: name for name, lt in layer_types().items()
             if not lt.container and lt.category != "application"}
    table["Sequential"] = "Block"
    return table


def _init_value(value: Any) -> Any:
    from tfcore.model.initializers import INITIALIZERS

    if isinstance(value, str):
        return value
    if not isinstance(value, Mapping):
        return None
    by_class = {i.keras_class: i for i in INITIALIZERS.values()}
    kind = by_class.get(value.get("class_name"))
    if kind is None:
        return None
    config = value.get("config") or {}
    params = {p.name: float(config[p.name]) for p in kind.params
              if p.name in config and float(config[p.name]) != p.default}
    return {"name": kind.name, "params": params} if params else kind.name


def _reg_value(value: Any) -> Any:
    if not isinstance(value, Mapping) or value.get("class_name") not in _REG_NAMES:
        return None
    name, key = _REG_NAMES[value["class_name"]]
    return {"name": name, "factor": float((value.get("config") or {}).get(key, 0.01))}


def _config(type_name: str, keras_config: Mapping[str, Any]) -> dict[str, Any]:
    """Catalog values from a Keras layer config, keeping only non-default ones."""
    kind = get_type(type_name)
    defaults = default_config(type_name)
    out: dict[str, Any] = {}
    for param in kind.params:
        if param.name not in keras_config:
            continue
        value = keras_config[param.name]
        if param.kind == INIT:
            value = _init_value(value)
        elif param.kind == REG:
            value = _reg_value(value)
        elif param.kind in (SIZE, SHAPE) and isinstance(value, (list, tuple)):
            value = list(value)
            if param.kind == SIZE and len(set(value)) == 1 and isinstance(defaults[param.name], int):
                value = value[0]
        elif param.name == "activation" and value is None:
            value = "linear"
        if value is not None and value != defaults.get(param.name) and param.check(value):
            out[param.name] = value
    return out


def _unsupported(name: str, class_name: str) -> SpecError:
    return SpecError(f"Layer {name!r} is a {class_name}, which is not in the layer catalog, "
                     "so the model cannot be turned into a spec.", key="spec.import_unknown",
                     params={"layer": name, "type": class_name})


def _entry(class_name: str, config: Mapping[str, Any]) -> LayerSpec:
    name = config.get("name", class_name.lower())
    type_name = _class_to_type().get(class_name)
    if type_name is None:
        raise _unsupported(name, class_name)
    if type_name == "Block":
        children = [_entry(c["class_name"], c["config"]) for c in config.get("layers", [])
                    if c.get("class_name") != "InputLayer"]
        return LayerSpec(name, "Block", layers=tuple(children))
    return LayerSpec(name, type_name, _config(type_name, config))


def _input(config: Mapping[str, Any], name: str) -> InputSpec:
    shape = config.get("batch_shape") or config.get("batch_input_shape") or [None]
    return InputSpec(config.get("name", name), tuple(shape[1:]), config.get("dtype", "float32")
                     if isinstance(config.get("dtype"), str) else "float32")


def _from_sequential(model: Any) -> ModelSpec:
    import keras

    inputs: tuple[InputSpec, ...] = ()
    try:
        shape = tuple(model.inputs[0].shape[1:])
        inputs = (InputSpec(model.inputs[0].name or "x", shape, str(model.inputs[0].dtype)),)
    except (AttributeError, IndexError, ValueError):
        inputs = ()
    entries, seen = [], {}
    for layer in model.layers:
        if isinstance(layer, keras.layers.InputLayer):
            continue
        if id(layer) in seen:
            owner = seen[id(layer)]
            count = sum(1 for e in entries if e.shares == owner) + 2
            entries.append(LayerSpec(f"{owner}_{count}", _type_of(layer), shares=owner))
            continue
        seen[id(layer)] = layer.name
        if isinstance(layer, keras.Sequential):
            entries.append(_entry("Sequential", layer.get_config()))
        else:
            entries.append(_entry(type(layer).__name__, layer.get_config()))
    return ModelSpec(model.name, SEQUENTIAL, inputs, tuple(entries))


def _type_of(layer: Any) -> str:
    return _class_to_type().get(type(layer).__name__, type(layer).__name__)


def _from_functional(model: Any) -> ModelSpec:
    config = model.get_config()
    inputs, entries, node_names = [], [], {}
    for item in config["layers"]:
        class_name, name = item["class_name"], item["config"].get("name", item.get("name"))
        if class_name == "InputLayer":
            inputs.append(_input(item["config"], name))
            node_names[(name, 0)] = inputs[-1].name
            continue
        base = _entry(class_name, item["config"])
        for index, node in enumerate(item.get("inbound_nodes", [])):
            sources = [node_names.get(tuple(h[:2]), h[0]) for h in _histories(node.get("args"))]
            entry_name = name if index == 0 else f"{name}_{index + 1}"
            node_names[(name, index)] = entry_name
            if index == 0:
                entries.append(LayerSpec(name, base.type, base.config, tuple(sources),
                                         layers=base.layers))
            else:
                entries.append(LayerSpec(entry_name, base.type, inputs=tuple(sources),
                                         shares=name))
    outputs = [node_names.get((o[0], o[1]), o[0]) for o in _output_refs(config["output_layers"])]
    return ModelSpec(model.name, FUNCTIONAL, tuple(inputs), tuple(entries), tuple(outputs))


def _output_refs(refs: Any) -> list[list]:
    if refs and isinstance(refs[0], str):
        return [refs]
    return list(refs)


def _histories(args: Any) -> list[list]:
    """keras_history triples of the tensors in a node's serialized arguments."""
    found: list[list] = []
    if isinstance(args, Mapping):
        if args.get("class_name") == "__keras_tensor__":
            found.append(list(args["config"]["keras_history"]))
        else:
            for value in args.values():
                found += _histories(value)
    elif isinstance(args, (list, tuple)):
        for value in args:
            found += _histories(value)
    return found


def model_to_spec(model: Any) -> ModelSpec:
    """A spec describing a Keras model whose layers are all in the catalog.

    Raises:
        SpecError: naming the first layer whose class is not in the catalog.
    """
    import keras

    if isinstance(model, keras.Sequential):
        return _from_sequential(model)
    if hasattr(model, "get_config") and "output_layers" in (model.get_config() or {}):
        return _from_functional(model)
    raise SpecError(f"Model {model.name!r} is a {type(model).__name__} subclass: only "
                    "Sequential and Functional models can become specs.",
                    key="spec.import_subclass", params={"type": type(model).__name__})


MAX_KERAS_CONFIG = 16 * 1024**2     # config.json inside a .keras archive
MAX_KERAS_BYTES = 4 * 1024**3       # declared size of all members together


def _foreign_class(config: Any) -> str | None:
    """The first class in a ``.keras`` config that neither Keras nor TF Lab provides
    (walked without recursion)."""
    import keras

    stack = [config]
    while stack:
        value = stack.pop()
        if isinstance(value, Mapping):
            cls, module, registered = (value.get("class_name"), value.get("module"),
                                       value.get("registered_name"))
            builtin = isinstance(module, str) and module.split(".")[0] == "keras"
            if isinstance(cls, str) and not builtin and ("module" in value
                                                         or "registered_name" in value):
                if isinstance(registered, str) and registered:
                    if keras.saving.get_registered_object(registered) is None:
                        return registered
                elif isinstance(module, str) and not module.startswith("keras"):
                    return f"{module}.{cls}"
            stack.extend(reversed(list(value.values())))
        elif isinstance(value, list):
            stack.extend(reversed(value))
    return None


def check_keras_file(path: str | Path, shown: str | None = None) -> None:
    """Look inside a ``.keras`` archive before Keras does: that it is a zip with a
    ``config.json``, that its declared sizes are sane, and that every class it names is
    known. Messages name the file as ``shown`` (never the server's absolute path).

    Raises:
        SpecError: ``spec.import_not_keras``, ``spec.import_too_big`` or
            ``spec.import_custom_class`` (naming the class).
    """
    import json
    import zipfile

    from tfcore.model.initializers import zeroed_uniform_class
    from tfcore.model.limits import check_json_text

    import tfcore.model.layers  # noqa: F401 - registers the tutorials' layers

    zeroed_uniform_class()
    name = shown or Path(path).name
    try:
        with zipfile.ZipFile(path) as archive:
            infos = {i.filename: i for i in archive.infolist()}
            total = sum(i.file_size for i in infos.values())
            config_info = infos.get("config.json")
            if config_info is None:
                raise zipfile.BadZipFile("no config.json inside")
            if total > MAX_KERAS_BYTES or config_info.file_size > MAX_KERAS_CONFIG:
                raise SpecError(
                    f"{name} unpacks to {total:,} bytes (config {config_info.file_size:,}); "
                    f"the limit is {MAX_KERAS_BYTES:,}.", key="spec.import_too_big",
                    params={"name": name, "size": f"{total:,}",
                            "limit": f"{MAX_KERAS_BYTES:,}"})
            text = archive.read(config_info).decode("utf-8", errors="replace")
    except (zipfile.BadZipFile, OSError, EOFError, KeyError) as exc:
        raise SpecError(
            f"{name} is not a readable .keras model (a .keras file is a zip archive holding "
            f"config.json); it may be damaged or truncated.", key="spec.import_not_keras",
            params={"name": name}) from exc
    check_json_text(text)
    try:
        config = json.loads(text)
    except ValueError as exc:
        raise SpecError(f"{name}: its config.json is not valid JSON; the file is damaged.",
                        key="spec.import_not_keras", params={"name": name}) from exc
    foreign = _foreign_class(config)
    if foreign:
        raise SpecError(
            f"{name} uses the class {foreign}, which is neither part of Keras nor one of TF "
            "Lab's layers, so it cannot be loaded (no code from a file is run).",
            key="spec.import_custom_class", params={"name": name, "cls": foreign})


def load_keras_file(path: str | Path, shown: str | None = None) -> Any:
    """Load a ``.keras`` file with ``safe_mode=True`` (no code from the file runs).

    Args:
        shown: how messages name the file (default: its base name).

    Raises:
        SpecError: not a .keras archive, unsafe content (a Lambda layer), a class neither
            Keras nor TF Lab provides (named), or another failure (its first line, with
            the file's location replaced by ``shown``).
    """
    import keras

    check_keras_file(path, shown)
    name = shown or Path(path).name
    try:
        return keras.saving.load_model(str(path), safe_mode=True, compile=False)
    except Exception as exc:  # noqa: BLE001 - every failure becomes a message a person reads
        text = str(exc)
        if "safe_mode" in text or "Lambda" in text or "lambda" in text:
            raise SpecError("The file was refused: it contains code (a Lambda layer), which "
                            "safe mode does not run.", key="spec.import_unsafe") from exc
        first = text.strip().splitlines()[0] if text.strip() else type(exc).__name__
        first = first.replace(str(Path(path).resolve()), name).replace(str(path), name)[:300]
        raise SpecError(f"The file cannot be read as a Keras model: {first}",
                        key="spec.import_failed", params={"message": first}) from exc


def import_keras(path: str | Path, shown: str | None = None) -> ModelSpec:
    """Load a ``.keras`` file safely and turn it into a spec (``shown`` names the file in
    messages, e.g. the name it was uploaded as)."""
    return model_to_spec(load_keras_file(path, shown))
