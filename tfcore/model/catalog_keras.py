"""The generated part of the catalog: every built-in Keras layer, read from
``keras_layers.json`` (written by :mod:`tfcore.model.catalog_gen`; no Keras import here).

Generated entries get the class name as label and a generic help line in both languages;
their parameters get help from a table of common argument names, else a generic line.
A hand-written entry keeps its own fields first and gains the generated ones it lacks as
``advanced`` parameters ("more Keras options").
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

from tfcore.messages import Text
from tfcore.model.params import JSON, LayerType, ParamSpec

DATA = Path(__file__).with_name("keras_layers.json")
RAW_TYPE = "KerasRaw"
TUTORIAL_ACTIVATIONS = ("linear", "relu", "sigmoid", "tanh", "softmax", "gelu", "elu", "selu",
                        "softplus", "swish", "leaky_relu", "relu6")

_HELP = frozenset({
    "trainable", "dtype", "units", "filters", "kernel_size", "pool_size", "strides",
    "padding", "data_format", "dilation_rate", "activation", "recurrent_activation",
    "use_bias", "rate", "dropout", "seed", "axis", "epsilon", "momentum",
    "return_sequences", "return_state", "factor", "value_range", "interpolation",
    "fill_mode", "layer",
})
"""Argument names with their own help text, ``layer.arg.<name>`` in the catalogs."""
_SUFFIX_HELP = ("_initializer", "_regularizer", "_constraint")
"""Argument-name endings with their own help text, ``layer.arg.any<ending>``."""


def param_help(name: str, cls: str) -> Text:
    """Help for a generated parameter: the table, a suffix rule, or a generic line."""
    if name in _HELP:
        return Text(f"layer.arg.{name}")
    ending = next((k for k in _SUFFIX_HELP if name.endswith(k)), None)
    if ending:
        return Text(f"layer.arg.any{ending}")
    return Text("layer.arg.generic", {"name": name, "cls": cls})


def layer_help(cls: str) -> Text:
    return Text("layer.generated.help", {"cls": cls})


@lru_cache(maxsize=1)
def data() -> Mapping[str, Any]:
    return json.loads(DATA.read_text(encoding="utf-8"))


def activations() -> tuple[str, ...]:
    """The tutorials' activations first, then every other Keras activation."""
    rest = [a for a in data()["activations"] if a not in TUTORIAL_ACTIVATIONS]
    return TUTORIAL_ACTIVATIONS + tuple(rest)


def skipped() -> dict[str, str]:
    """Classes of ``keras.layers`` left out of the catalog, with the reason."""
    return dict(data()["skipped"])


def _param(raw: Mapping[str, Any], cls: str, advanced: bool) -> ParamSpec:
    choices = raw.get("choices", ())
    if choices == "activations":
        choices = activations()
    return ParamSpec(raw["name"], raw["kind"], raw["default"], choices=tuple(choices),
                     help=param_help(raw["name"], cls), nullable=bool(raw.get("nullable")),
                     length=int(raw.get("length", 2)), required=bool(raw.get("required")),
                     advanced=advanced or bool(raw.get("advanced")))


def generated_types() -> dict[str, LayerType]:
    """Every generated entry by class name."""
    out = {}
    for raw in data()["layers"]:
        cls = raw["name"]
        low, high = raw["inputs"]
        out[cls] = LayerType(cls, raw["category"], Text("layer.generated.title", {"cls": cls}),
                             layer_help(cls),
                             tuple(_param(p, cls, False) for p in raw["params"]),
                             f"keras.layers.{raw.get('attr', cls)}", min_inputs=low,
                             max_inputs=high,
                             positional=bool(raw.get("positional")), generated=True)
    return out


def merged(hand: LayerType, generated: LayerType) -> LayerType:
    """A hand-written entry plus the generated parameters it does not have (advanced); a
    hand-written parameter the Keras signature requires is required (``Activation``'s
    ``activation`` has no Keras default, whatever default the form starts from)."""
    from dataclasses import replace

    keras_required = {p.name for p in generated.params if p.required}
    own = tuple(replace(p, required=p.required or p.name in keras_required)
                for p in hand.params)
    names = {p.name for p in hand.params}
    extra = tuple(replace(p, advanced=True, required=False) for p in generated.params
                  if p.name not in names)
    return replace(hand, params=own + extra, positional=generated.positional)


def raw_type() -> LayerType:
    """Any Keras object kept as its serialized config (a class outside ``keras.layers``
    such as an op or an application's own layer, a nested Functional model)."""
    default = {"module": "keras.layers", "class_name": "Identity", "config": {},
               "registered_name": None}
    return LayerType(
        RAW_TYPE, "structure", Text(f"layer.{RAW_TYPE}.title"), Text(f"layer.{RAW_TYPE}.help"),
        (ParamSpec("keras", JSON, default, required=True, help=Text(f"layer.{RAW_TYPE}.keras")),),
        "keras.saving.deserialize_keras_object", min_inputs=1, max_inputs=64,
        positional=True)

