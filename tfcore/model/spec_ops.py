"""Pure edits of a ModelSpec, as the builder page (and its canvas) make them: each returns
a new spec, or raises a located SpecError and changes nothing.

Top-level edits take an index in ``spec.layers``; the ``*_at`` edits take a *path* (the
names of nested blocks down to the one edited, ``()`` for the top level);
:func:`group_into_block` and :func:`ungroup` make and dissolve blocks (scenario B3)."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from tfcore.model.catalog import get_type
from tfcore.model.spec import FUNCTIONAL, SEQUENTIAL, InputSpec, LayerSpec, ModelSpec
from tfcore.model.spec_paths import (  # noqa: F401 - part of this module's edits
    BLOCK,
    _located,
    _map_entries,
    _where,
    block_children,
    path_of,
    with_children,
)


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
    """``Dense`` -> ``dense``, ``MaxPooling2D`` -> ``max_pooling2d``, ``FixedHiddenMLP`` ->
    ``fixed_hidden_mlp`` (an acronym stays one word)."""
    out = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", type_name).lower()
    return out.replace("2_d", "2d").replace("1_d", "1d").replace("3_d", "3d")


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
    """Rename an input or layer and every reference to it; its stored canvas position
    (``spec.layout``) moves to the new name, so the node stays where it was drawn."""
    def fix(entry: LayerSpec) -> LayerSpec:
        return replace(entry, name=new if entry.name == old else entry.name,
                       inputs=tuple(new if i == old else i for i in entry.inputs),
                       shares=new if entry.shares == old else entry.shares,
                       layers=tuple(fix(c) for c in entry.layers))
    inputs = tuple(replace(i, name=new) if i.name == old else i for i in spec.inputs)
    layout = dict(spec.layout)
    if old in layout:
        layout[new] = layout.pop(old)
    return replace(spec, inputs=inputs, layers=tuple(fix(e) for e in spec.layers),
                   outputs=tuple(new if o == old else o for o in spec.outputs),
                   layout=layout)


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


# --- nested blocks: a path (Block names, top down; () = the model) names the container --

def _check_index(spec: ModelSpec, path: tuple[str, ...], index: int) -> tuple[LayerSpec, ...]:
    children = block_children(spec, path)
    if not 0 <= index < len(children):
        raise _located("spec.no_index", _where(path),
                       index=index + 1, count=len(children))
    return children


def add_layer_at(spec: ModelSpec, path: tuple[str, ...], type_name: str) -> ModelSpec:
    """Append a new layer of a catalog type to the block at ``path`` (``()``: the model,
    as :func:`add_layer`). Inside a block layers run in order, so it takes no inputs."""
    if not path:
        return add_layer(spec, type_name)
    children = block_children(spec, path)
    return with_children(spec, tuple(path), children + (new_layer(spec, type_name),))


def remove_layer_at(spec: ModelSpec, path: tuple[str, ...], index: int) -> ModelSpec:
    """Remove the ``index``-th layer of the block at ``path``; references to it go."""
    children = list(_check_index(spec, tuple(path), index))
    if not path:
        return remove_layer(spec, index)
    gone = children.pop(index).name
    spec = with_children(spec, tuple(path), tuple(children))
    return _map_entries(spec, lambda e: _drop_refs(e, gone))


def move_layer_at(spec: ModelSpec, path: tuple[str, ...], index: int, step: int) -> ModelSpec:
    """Move a layer of the block at ``path`` up (-1) or down (+1); out of range: unchanged."""
    children = list(block_children(spec, path))
    target = index + step
    if not 0 <= index < len(children) or not 0 <= target < len(children):
        return spec
    children[index], children[target] = children[target], children[index]
    return with_children(spec, tuple(path), tuple(children))


def duplicate_layer_at(spec: ModelSpec, path: tuple[str, ...], index: int) -> ModelSpec:
    """Insert a copy (new names, separate weights) after the layer; a copied block's
    nested layers get new names too."""
    children = list(_check_index(spec, tuple(path), index))
    if not path:
        return duplicate_layer(spec, index)
    children.insert(index + 1, _fresh_copy(spec, children[index]))
    return with_children(spec, tuple(path), tuple(children))


def _fresh_copy(spec: ModelSpec, entry: LayerSpec) -> LayerSpec:
    taken: set[str] = set()

    def copy(item: LayerSpec) -> LayerSpec:
        name = unique_name(spec, item.name)
        while name in taken:
            name = unique_name(spec, f"{name}_copy")
        taken.add(name)
        return replace(item, name=name, layers=tuple(copy(c) for c in item.layers))

    return copy(entry)


def set_layer_at(spec: ModelSpec, path: tuple[str, ...], index: int,
                 **changes: Any) -> ModelSpec:
    """Replace fields (``config``, ``type``, ``shares`` ...) of one layer of the block at
    ``path``. A rename goes through :func:`rename`, which fixes every reference."""
    children = list(_check_index(spec, tuple(path), index))
    children[index] = replace(children[index], **changes)
    return with_children(spec, tuple(path), tuple(children))


def group_into_block(spec: ModelSpec, names: list[str] | tuple[str, ...],
                     block_name: str | None = None) -> ModelSpec:
    """Group consecutive layers of one container into a new ``Block`` in their place.

    The layers keep their order, settings and names (so weights and shared layers stay
    as they were). In a Functional model the block takes the first layer's input and
    every reference to the last layer (inputs of later layers, outputs) now names the
    block; the grouped layers must form a chain that nothing outside uses midway.

    Args:
        names: the layers to group, in any order; at least one.
        block_name: the new block's name; default ``block`` (``block_2`` ... if taken).

    Raises:
        SpecError: no names (``spec.group_empty``), a name not in the model, layers of
            different containers (``spec.group_levels``), not consecutive
            (``spec.group_gap``), a branch in or out of the middle of a Functional chain
            (``spec.group_branch``), or a block name already taken (``spec.name_taken``).
    """
    names = list(dict.fromkeys(names))
    if not names:
        raise _located("spec.group_empty", "model")
    paths = {path_of(spec, n) for n in names}
    if len(paths) > 1:
        raise _located("spec.group_levels",
                       ", ".join(names), names=", ".join(names))
    path = paths.pop()
    children = block_children(spec, path)
    order = [e.name for e in children]
    spots = sorted(order.index(n) for n in names)
    first, last = spots[0], spots[-1]
    if last - first + 1 != len(spots):
        missing = [order[i] for i in range(first, last + 1) if i not in spots]
        raise _located("spec.group_gap", ", ".join(missing),
                       between=", ".join(missing))
    if block_name is None:
        block_name = unique_name(spec, "block")
    block_name = block_name.strip()
    taken = {i.name for i in spec.inputs} | {e.name for e in spec.all_layers()}
    if not block_name or block_name in taken:
        raise _located("spec.name_taken", block_name or "?", name=block_name)
    members = children[first:last + 1]
    functional = spec.kind == FUNCTIONAL and not path
    if functional:
        _check_chain(spec, members)
    inner = tuple(replace(m, inputs=()) for m in members) if functional else members
    block = LayerSpec(block_name, BLOCK, {}, inputs=members[0].inputs if functional else (),
                      layers=inner)
    spec = with_children(spec, path, children[:first] + (block,) + children[last + 1:])
    if functional:
        spec = _retarget(spec, members[-1].name, block_name)
    return spec


def _check_chain(spec: ModelSpec, members: tuple[LayerSpec, ...]) -> None:
    """In a Functional model the group must be a chain fed by one tensor, with nothing
    outside taking a tensor from its middle."""
    head = members[0]
    if len(head.inputs) > 1 or head.call:
        raise _located("spec.group_branch", head.name, layer=head.name)
    for prev, entry in zip(members, members[1:]):
        if entry.inputs != (prev.name,) or entry.call:
            raise _located("spec.group_branch",
                           entry.name, layer=entry.name)
    inside = {m.name for m in members[:-1]}
    inner = {m.name for m in members}
    for entry in spec.all_layers():
        used = inside & set(entry.inputs)
        if entry.name not in inner and used:
            raise _located("spec.group_branch", entry.name, layer=entry.name)
    used = inside & set(spec.outputs)
    if used:
        name = sorted(used)[0]
        raise _located("spec.group_branch",
                       name, layer=name)


def _retarget(spec: ModelSpec, old: str, new: str) -> ModelSpec:
    """References (inputs, outputs) to ``old`` name ``new`` instead (``shares`` kept)."""
    spec = _map_entries(spec, lambda e: replace(
        e, inputs=tuple(new if i == old else i for i in e.inputs)) if old in e.inputs else e)
    return replace(spec, outputs=tuple(new if o == old else o for o in spec.outputs))


def ungroup(spec: ModelSpec, block_name: str) -> ModelSpec:
    """Put a block's layers back in its place (the reverse of :func:`group_into_block`).

    In a Functional model the first layer takes the block's input and references to the
    block name its last layer.

    Raises:
        SpecError: no such layer, not a Block (``spec.not_block``), or a block that is
            re-used elsewhere or is itself a re-use (``spec.ungroup_shared``).
    """
    path = path_of(spec, block_name)
    children = block_children(spec, path)
    index = next(n for n, e in enumerate(children) if e.name == block_name)
    block = children[index]
    if block.type != BLOCK:
        raise _located("spec.not_block",
                       block_name, layer=block_name)
    users = [e.name for e in spec.all_layers() if e.shares == block_name]
    if block.shares or users:
        raise _located("spec.ungroup_shared", block_name,
                       layer=block_name, users=", ".join(users or [block.shares or ""]))
    inner = block.layers
    functional = spec.kind == FUNCTIONAL and not path
    if functional and inner:
        chained, prev = [], block.inputs
        for entry in inner:
            chained.append(replace(entry, inputs=tuple(prev)))
            prev = (entry.name,)
        inner = tuple(chained)
    spec = with_children(spec, path, children[:index] + inner + children[index + 1:])
    if not functional:
        return spec
    if inner:
        return _retarget(spec, block_name, inner[-1].name)
    if len(block.inputs) == 1:
        return _retarget(spec, block_name, block.inputs[0])
    return _map_entries(spec, lambda e: _drop_refs(e, block_name))
