"""Pure edits of a ModelSpec, as the builder page makes them: each returns a new spec."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from tfcore.model.catalog import get_type
from tfcore.model.spec import FUNCTIONAL, SEQUENTIAL, InputSpec, LayerSpec, ModelSpec


def scratch_spec(kind: str = SEQUENTIAL, shape: tuple = (28, 28, 1)) -> ModelSpec:
    """An empty model with one input."""
    return ModelSpec(name="my_model", kind=kind, inputs=(InputSpec("input", tuple(shape)),),
                     layers=())


def unique_name(spec: ModelSpec, base: str) -> str:
    """``base`` or ``base_2``, ``base_3`` ... not used by any input or layer."""
    taken = {i.name for i in spec.inputs} | {e.name for e in spec.all_layers()}
    base = base or "layer"
    if base not in taken:
        return base
    n = 2
    while f"{base}_{n}" in taken:
        n += 1
    return f"{base}_{n}"


def _snake(type_name: str) -> str:
    out = "".join("_" + c.lower() if c.isupper() else c for c in type_name).lstrip("_")
    return out.replace("2_d", "2d").replace("1_d", "1d")


def new_layer(spec: ModelSpec, type_name: str) -> LayerSpec:
    """A layer of a catalog type with a unique name and its required parameters set."""
    kind = get_type(type_name)
    config = {p.name: p.default for p in kind.params if p.required} if kind else {}
    return LayerSpec(unique_name(spec, _snake(type_name)), type_name, config)


def add_layer(spec: ModelSpec, type_name: str) -> ModelSpec:
    """Append a layer; in a Functional model it takes the last layer (or the first input)
    and becomes the output in its place."""
    layer = new_layer(spec, type_name)
    if spec.kind == FUNCTIONAL:
        last = spec.layers[-1].name if spec.layers else (
            spec.inputs[0].name if spec.inputs else None)
        layer = replace(layer, inputs=(last,) if last else ())
        outputs = tuple(o for o in spec.outputs if o != last) + (layer.name,)
        return replace(spec, layers=spec.layers + (layer,), outputs=outputs)
    return replace(spec, layers=spec.layers + (layer,))


def _drop_refs(entry: LayerSpec, name: str) -> LayerSpec:
    return replace(entry, inputs=tuple(i for i in entry.inputs if i != name),
                   shares=None if entry.shares == name else entry.shares)


def remove_layer(spec: ModelSpec, index: int) -> ModelSpec:
    """Remove a layer; references to it (inputs, outputs, shares) are dropped."""
    gone = spec.layers[index].name
    layers = tuple(_drop_refs(e, gone) for n, e in enumerate(spec.layers) if n != index)
    return replace(spec, layers=layers, outputs=tuple(o for o in spec.outputs if o != gone))


def move_layer(spec: ModelSpec, index: int, step: int) -> ModelSpec:
    """Move a layer up (step -1) or down (step +1); out-of-range moves change nothing."""
    target = index + step
    if not 0 <= index < len(spec.layers) or not 0 <= target < len(spec.layers):
        return spec
    layers = list(spec.layers)
    layers[index], layers[target] = layers[target], layers[index]
    return replace(spec, layers=tuple(layers))


def duplicate_layer(spec: ModelSpec, index: int) -> ModelSpec:
    """Insert a copy (new name, same settings, separate weights) after the layer."""
    original = spec.layers[index]
    copy = replace(original, name=unique_name(spec, original.name))
    if spec.kind == FUNCTIONAL:
        copy = replace(copy, inputs=original.inputs)
    layers = list(spec.layers)
    layers.insert(index + 1, copy)
    return replace(spec, layers=tuple(layers))


def reuse_layer(spec: ModelSpec, index: int) -> ModelSpec:
    """Append a re-use of a layer (tied parameters): same layer object, applied again."""
    original = spec.layers[index]
    owner = original.shares or original.name
    reuse = LayerSpec(unique_name(spec, f"{owner}_again"), original.type, shares=owner)
    if spec.kind == FUNCTIONAL:
        last = spec.layers[-1].name
        reuse = replace(reuse, inputs=(last,))
        outputs = tuple(o for o in spec.outputs if o != last) + (reuse.name,)
        return replace(spec, layers=spec.layers + (reuse,), outputs=outputs)
    return replace(spec, layers=spec.layers + (reuse,))


def rename(spec: ModelSpec, old: str, new: str) -> ModelSpec:
    """Rename an input or layer and every reference to it."""
    def fix(entry: LayerSpec) -> LayerSpec:
        return replace(entry, name=new if entry.name == old else entry.name,
                       inputs=tuple(new if i == old else i for i in entry.inputs),
                       shares=new if entry.shares == old else entry.shares,
                       layers=tuple(fix(c) for c in entry.layers))
    inputs = tuple(replace(i, name=new) if i.name == old else i for i in spec.inputs)
    return replace(spec, inputs=inputs, layers=tuple(fix(e) for e in spec.layers),
                   outputs=tuple(new if o == old else o for o in spec.outputs))


def convert_kind(spec: ModelSpec, kind: str) -> ModelSpec:
    """Sequential <-> Functional. To Functional, layers are chained and the last is the
    output; to Sequential, inputs of layers and outputs are dropped (extra inputs too)."""
    if kind == spec.kind:
        return spec
    if kind == FUNCTIONAL:
        inputs = spec.inputs or (InputSpec("input", (None,)),)
        prev, layers = inputs[0].name, []
        for entry in spec.layers:
            layers.append(replace(entry, inputs=(prev,)))
            prev = entry.name
        outputs = (prev,) if spec.layers else ()
        return replace(spec, kind=FUNCTIONAL, inputs=inputs, layers=tuple(layers),
                       outputs=outputs)
    layers = tuple(replace(e, inputs=()) for e in spec.layers)
    return replace(spec, kind=SEQUENTIAL, inputs=spec.inputs[:1], layers=layers, outputs=())


def set_layer(spec: ModelSpec, index: int, **changes: Any) -> ModelSpec:
    """Replace fields of one top-level layer."""
    layers = list(spec.layers)
    layers[index] = replace(layers[index], **changes)
    return replace(spec, layers=tuple(layers))
