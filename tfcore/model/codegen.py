"""Spec -> runnable Keras 3 Python in four styles: Sequential, Functional, Model subclass
and a hand-written sequential container (scenario B1's ``MySequential``).

The generated file defines ``build_model()`` returning the model (built when the spec has
an input shape) and, when run as a script, prints its summary. The tutorials' custom
layers and the person's own layers are written out in full and registered as Keras
serializable, so the code runs without TF Lab installed and what it saves loads back.
"""

from __future__ import annotations

import json
import keyword
import re
from typing import Any, Callable

from tfcore.errors import SpecError
from tfcore.messages import Names
from tfcore.model.catalog import (
    default_config,
    get_type,
    similar_types,
)
from tfcore.model.codegen_custom import class_path_name, custom_classes
from tfcore.model.codegen_values import literal, written_params
from tfcore.model.codegen_values import shape_source as _shape
from tfcore.model.codegen_values import value_source as _value
from tfcore.model.params import (
    JSON,
    RAW_KEY,
)
from tfcore.model.spec import FUNCTIONAL, INPUT_REF, SEQUENTIAL, LayerSpec, ModelSpec

STYLES = ("sequential", "functional", "subclass", "container")
_INDENT = "    "
# Generated Model classes are registered, so plain Keras loads the .keras files they save.
_REGISTER = "@keras.saving.register_keras_serializable(package=\"tflab_export\")"


def layer_source(entry: LayerSpec, shapes: dict, spec: ModelSpec) -> str:
    """The constructor call of one (non-shared) entry."""
    kind = get_type(entry.type)
    if kind is None:
        raise SpecError(key="spec.unknown_type", params={
            "layer": entry.name, "type": entry.type, "close": Names(similar_types(entry.type))})
    if kind.container:
        children = ", ".join(layer_source(c, shapes, spec) for c in entry.layers)
        return f"keras.Sequential([{children}], name={entry.name!r})"
    defaults = default_config(entry.type)
    config = {**defaults, **dict(entry.config)}
    if kind.name == "KerasRaw":
        value = dict(config["keras"])
        value["config"] = {**dict(value.get("config") or {}), "name": entry.name}
        return f"keras.saving.deserialize_keras_object({literal(value)})"
    shown = written_params(kind, config)
    raw = dict(config.get(RAW_KEY) or {})
    if kind.keras_class and (raw or any(p.kind == JSON and "class_name" in json.dumps(
            config[p.name]) for p in shown)):   # a nested layer or cell: from_config
        items = [f"{'name'!r}: {entry.name!r}"]
        items += [f"{p.name!r}: {_value(p.kind, config[p.name])}" for p in shown]
        items += [f"{str(k)!r}: {literal(v)}" for k, v in raw.items()]
        return f"{kind.keras_path}.from_config({{{', '.join(items)}}})"
    args = [f"{p.name}={_value(p.kind, config[p.name])}" for p in shown]
    args += [f"{k}={v!r}" for k, v in kind.fixed.items()]
    if kind.wants_input_shape and shapes.get(entry.name) is not None:
        args.append(f"input_shape={_shape(shapes[entry.name])}")
    args.append(f"name={entry.name!r}")
    return f"{class_path_name(kind.keras_path)}({', '.join(args)})"


class _Names:
    """Python identifiers for layer and tensor names, unique and not keywords."""

    def __init__(self, reserved: set[str] = frozenset()) -> None:
        self.used: set[str] = set(reserved)
        self.map: dict[str, str] = {}

    def __call__(self, name: str, suffix: str = "") -> str:
        key = name + "\0" + suffix
        if key not in self.map:
            base = re.sub(r"[^A-Za-z0-9_]", "_", name) + suffix
            base = base if base and not base[0].isdigit() else f"layer_{base}"
            if keyword.iskeyword(base):
                base += "_"
            candidate, n = base, 2
            while candidate in self.used:
                candidate, n = f"{base}_{n}", n + 1
            self.used.add(candidate)
            self.map[key] = candidate
        return self.map[key]


def _order(spec: ModelSpec) -> list[LayerSpec]:
    if spec.kind == SEQUENTIAL:
        return list(spec.layers)
    from tfcore.model.validate import topological

    by_name = {e.name: e for e in spec.layers}
    order = topological([i.name for i in spec.inputs], list(spec.layers))
    if len(order) != len(spec.layers):
        raise SpecError(key="spec.codegen_graph")
    return [by_name[name] for name in order]


def _sources(spec: ModelSpec) -> dict[str, list[str]]:
    """Each application's input names (Sequential: the previous layer)."""
    if spec.kind == FUNCTIONAL:
        return {e.name: list(e.inputs) for e in spec.layers}
    prev = spec.inputs[0].name if spec.inputs else None
    out = {}
    for entry in spec.layers:
        out[entry.name] = [prev] if prev else []
        prev = entry.name
    return out


def _is_chain(spec: ModelSpec) -> bool:
    if spec.kind == SEQUENTIAL:
        return True
    if any(e.call for e in spec.layers):
        return False
    if len(spec.inputs) != 1 or len(spec.outputs) != 1:
        return False
    prev = spec.inputs[0].name
    for entry in _order(spec):
        if list(entry.inputs) != [prev]:
            return False
        prev = entry.name
    return prev == spec.outputs[0]


def _definitions(spec: ModelSpec, names: _Names, prefix: str, shapes: dict) -> list[str]:
    lines = []
    for entry in spec.layers:
        if not entry.shares:
            lines.append(f"{prefix}{names(entry.name)} = {layer_source(entry, shapes, spec)}")
    return lines


def _template(value: Any, args: list[str]) -> str:
    """Python source of a call template, each input reference as its tensor's name."""
    if isinstance(value, dict):
        if INPUT_REF in value:
            ref = args[value[INPUT_REF]]
            return f"{ref}[{int(value['output'])}]" if "output" in value else ref
        return "{" + ", ".join(f"{str(k)!r}: {_template(v, args)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_template(v, args) for v in value) + "]"
    return literal(value)


def _call_args(entry: LayerSpec, args: list[str]) -> str:
    if entry.call:
        parts = [_template(v, args) for v in entry.call.get("args", [])]
        parts += [f"{k}={_template(v, args)}" for k, v in entry.call.get("kwargs", {}).items()
                  if str(k).isidentifier() and not keyword.iskeyword(str(k))]
        return ", ".join(parts)
    kind = get_type(entry.type)
    if len(args) == 1:
        return args[0]
    return ", ".join(args) if kind is not None and kind.positional else "[" + ", ".join(args) + "]"


def _calls(spec: ModelSpec, names: _Names, prefix: str, tensors: dict[str, str]) -> list[str]:
    lines, sources = [], _sources(spec)
    for entry in _order(spec):
        args = [tensors[n] for n in sources[entry.name]]
        arg = _call_args(entry, args)
        tensors[entry.name] = names(entry.name, "_out")
        lines.append(f"{tensors[entry.name]} = {prefix}{names(entry.shares or entry.name)}({arg})")
    return lines


def _io(spec: ModelSpec, tensors: dict[str, str], which: tuple[str, ...]) -> str:
    items = [tensors[n] for n in which]
    return items[0] if len(items) == 1 else "[" + ", ".join(items) + "]"


def _sequential(spec: ModelSpec, shapes: dict) -> list[str]:
    if not _is_chain(spec):
        raise SpecError(key="spec.codegen_not_chain")
    names = _Names({"model"})
    lines = _definitions(spec, names, "", shapes)
    items = [f"keras.Input(shape={_shape(i.shape)}, dtype={i.dtype!r}, name={i.name!r})"
             for i in spec.inputs[:1]]
    items += [names(e.shares or e.name) for e in _order(spec)]
    lines.append("model = keras.Sequential([")
    lines += [f"{_INDENT}{item}," for item in items]
    lines.append(f"], name={spec.name!r})")
    return lines + ["return model"]


def _input_lines(spec: ModelSpec, names: _Names, tensors: dict[str, str]) -> list[str]:
    lines = []
    for item in spec.inputs:
        tensors[item.name] = names(item.name, "_in")
        lines.append(f"{tensors[item.name]} = keras.Input(shape={_shape(item.shape)}, "
                     f"dtype={item.dtype!r}, name={item.name!r})")
    return lines


def _functional(spec: ModelSpec, shapes: dict) -> list[str]:
    if not spec.inputs:
        raise SpecError(key="spec.codegen_no_input")
    names, tensors = _Names({"model"}), {}
    lines = _definitions(spec, names, "", shapes) + _input_lines(spec, names, tensors)
    lines += _calls(spec, names, "", tensors)
    outputs = spec.outputs if spec.kind == FUNCTIONAL else _last_or_input(spec)
    ins = _io(spec, tensors, tuple(i.name for i in spec.inputs))
    lines.append(f"model = keras.Model(inputs={ins}, "
                 f"outputs={_io(spec, tensors, outputs)}, name={spec.name!r})")
    return lines + ["return model"]


def _last_or_input(spec: ModelSpec) -> tuple[str, ...]:
    """A Sequential spec's output: its last layer, or its input when it has no layer yet."""
    return (spec.layers[-1].name,) if spec.layers else tuple(i.name for i in spec.inputs[:1])


def _class_name(name: str) -> str:
    """A Python class name from the model name: ASCII letters and digits only."""
    words = re.split(r"[^A-Za-z0-9]+", name)
    title = "".join(w[:1].upper() + w[1:] for w in words if w)[:64] or "Model"
    title = title if not title[0].isdigit() else f"Model{title}"
    return title if title.isidentifier() and not keyword.iskeyword(title) else "Model"


def _subclass(spec: ModelSpec, shapes: dict) -> tuple[list[str], list[str]]:
    import keras

    names, tensors = _Names(set(dir(keras.Model)) | {"self", "inputs"}), {}
    from tfcore.model.layers import CUSTOM_LAYERS

    cls = _class_name(spec.name)
    cls = cls + "Model" if cls in CUSTOM_LAYERS or cls in {"Sequential", "Model"} else cls
    init = [_REGISTER, f"class {cls}(keras.Model):",
            f"{_INDENT}{_docstring(f'{spec.name}, written as a Model subclass.')}", "",
            f"{_INDENT}def __init__(self, **kwargs):",
            f"{_INDENT * 2}super().__init__(**kwargs)"]
    init += [_INDENT * 2 + line for line in _definitions(spec, names, "self.", shapes)]
    call = [f"{_INDENT}def call(self, inputs):"]
    input_names = [i.name for i in spec.inputs] or ["inputs"]
    for item in input_names:
        tensors[item] = names(item, "_in")
    if not spec.inputs:
        pass
    elif len(input_names) == 1:
        call.append(f"{_INDENT * 2}{tensors[input_names[0]]} = inputs")
    else:
        call.append(f"{_INDENT * 2}{', '.join(tensors[n] for n in input_names)} = inputs")
    if not spec.inputs:
        spec_for_calls = ModelSpec(spec.name, SEQUENTIAL, (), spec.layers)
        prev = "inputs"
        for entry in spec_for_calls.layers:
            out = names(entry.name, "_out")
            call.append(f"{_INDENT * 2}{out} = self.{names(entry.shares or entry.name)}({prev})")
            prev = out
        call.append(f"{_INDENT * 2}return {prev}")
    else:
        call += [_INDENT * 2 + line for line in _calls(spec, names, "self.", tensors)]
        outputs = spec.outputs if spec.kind == FUNCTIONAL else _last_or_input(spec)
        call.append(f"{_INDENT * 2}return {_io(spec, tensors, outputs)}")
    body = [f"model = {cls}(name={spec.name!r})"]
    eager = bool(spec.inputs) and all(isinstance(d, int) for i in spec.inputs for d in i.shape)
    if eager:
        init += ["", f"{_INDENT}def build(self, input_shape):",
                 f"{_INDENT * 2}{_docstring(_EAGER_BUILD)}",
                 f"{_INDENT * 2}self.call({_zeros(spec.inputs)})"]
    if spec.inputs:
        body.append(_first_call(spec.inputs, eager))
    return init + [""] + call, body + ["return model"]


_EAGER_BUILD = ("Every layer builds on a call on zeros, real values (a layer that keeps a "
                "constant, such as a Normalization given its mean, then keeps an eager "
                "one); loading a saved model builds the same way before its weights are read.")


def _zeros(inputs: tuple) -> str:
    """A batch of one example of zeros per input (one argument, or a list of them)."""
    items = [f"keras.ops.zeros({_shape((1, *i.shape))}, dtype={i.dtype!r})" for i in inputs]
    return items[0] if len(items) == 1 else "[" + ", ".join(items) + "]"


def _first_call(inputs: tuple, eager: bool) -> str:
    """The call that creates a subclass's weights: on a batch of zeros when every input
    size is known (``build`` then calls on zeros too, so every layer builds eagerly), else
    on symbolic inputs."""
    if eager:
        return f"model({_zeros(inputs)})  # the first call (on zeros) creates the weights"
    items = [f"keras.Input(shape={_shape(i.shape)}, dtype={i.dtype!r}, name={i.name!r})"
             for i in inputs]
    arg = items[0] if len(items) == 1 else "[" + ", ".join(items) + "]"
    return f"model({arg})  # the first call creates the weights"


_docstring_text = repr("Calls its blocks in order, like keras.Sequential (written by hand).")
_CONTAINER = [
    _REGISTER,
    "class MySequential(keras.Model):",
    f"{_INDENT}{_docstring_text}",
    "",
    f"{_INDENT}def __init__(self, *blocks, **kwargs):",
    f"{_INDENT * 2}super().__init__(**kwargs)",
    f"{_INDENT * 2}self.blocks = list(blocks)  # each block is a keras layer",
    "",
    f"{_INDENT}def call(self, inputs):",
    f"{_INDENT * 2}x = inputs",
    f"{_INDENT * 2}for block in self.blocks:",
    f"{_INDENT * 3}x = block(x)",
    f"{_INDENT * 2}return x",
    "",
    f"{_INDENT}def get_config(self):  # the blocks, so a saved .keras file loads back",
    f"{_INDENT * 2}blocks = [keras.saving.serialize_keras_object(b) for b in self.blocks]",
    f"{_INDENT * 2}return {{**super().get_config(), \"blocks\": blocks}}",
    "",
    f"{_INDENT}@classmethod",
    f"{_INDENT}def from_config(cls, config):",
    f"{_INDENT * 2}config = dict(config)",
    f"{_INDENT * 2}blocks = [keras.saving.deserialize_keras_object(b) "
    f"for b in config.pop(\"blocks\", [])]",
    f"{_INDENT * 2}return cls(*blocks, **config)",
]


def _container(spec: ModelSpec, shapes: dict) -> tuple[list[str], list[str]]:
    """A hand-written sequential container that calls its blocks in order (scenario B1)."""
    if not _is_chain(spec):
        raise SpecError(key="spec.codegen_not_chain")
    names = _Names({"model", "MySequential"})
    body = _definitions(spec, names, "", shapes)
    blocks = ", ".join(names(e.shares or e.name) for e in _order(spec))
    body.append(f"model = MySequential({blocks}{', ' if blocks else ''}name={spec.name!r})")
    if spec.inputs:
        item = spec.inputs[0]
        body.append(f"model(keras.Input(shape={_shape(item.shape)}, dtype={item.dtype!r}, "
                    f"name={item.name!r}))  # the first call creates the weights")
    return list(_CONTAINER), body + ["return model"]


def _docstring(text: str) -> str:
    """A docstring literal for any text: ``repr`` escapes quotes, backslashes and line
    breaks, so a model name can never end the string early and add statements."""
    return repr(text)


_STYLE_FUNCS: dict[str, Callable] = {"sequential": _sequential, "functional": _functional}


def generate(spec: ModelSpec, style: str = "functional") -> str:
    """Runnable Keras 3 source for a spec.

    Raises:
        SpecError: unknown style, or a style that cannot express the spec (a Sequential
            listing of a graph with branches; a Functional model without input shape).
    """
    if style not in STYLES:
        raise SpecError(key="spec.codegen_style", params={"style": style, "choices": Names(STYLES)})
    from tfcore.model.validate import check

    shapes = {k: v for k, v in check(spec).shapes.items()}
    inbound = _sources(spec)
    shapes = {name: shapes.get(src[0]) if src else None for name, src in inbound.items()}
    header = [_docstring(f"Model {spec.name!r}, generated by TF Lab ({style} style)."), "",
              "import keras", "", ""]
    custom = custom_classes(spec)
    classes: list[str] = []
    if style == "subclass":
        classes, body = _subclass(spec, shapes)
    elif style == "container":
        classes, body = _container(spec, shapes)
    else:
        body = _STYLE_FUNCS[style](spec, shapes)
    parts = header + ([custom] if custom else []) + (classes + ["", ""] if classes else [])
    what = " and its weights" if spec.inputs else ""
    if spec.weights:        # an imported file's weights: the model computes what it computed
        parts += [f"WEIGHTS = {spec.weights!r}",
                  '"""The initial weights (a path inside the TF Lab workspace folder)."""',
                  "", ""]
        body = body[:-1] + ["if weights:", f"{_INDENT}model.load_weights(weights)", body[-1]]
        parts += ["def build_model(weights=WEIGHTS):",
                  f'{_INDENT}"""Create the model{what}, given ``weights`` (None: fresh)."""']
    else:
        parts += ["def build_model():", f'{_INDENT}"""Create the model{what}."""']
    parts += [_INDENT + line for line in body]
    parts += ["", "", 'if __name__ == "__main__":', f"{_INDENT}build_model().summary()", ""]
    return "\n".join(parts)
