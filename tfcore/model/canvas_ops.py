"""Pure edits of a ModelSpec as the model canvas makes them (each returns a new spec).

The canvas draws a spec and sends each gesture as an *event* (a JSON object with an
``op``); :func:`apply_event` turns it into a spec edit through these operations and
:mod:`tfcore.model.spec_ops`, so the spec stays the single source of truth. Node ids are the
input and layer names; the model outputs are one node, :data:`OUTPUTS`.

* ``connect``: a layer's output into another's input. A merge (``max_inputs`` > 1) gains an
  input; a single-input layer that already has one is *applied again*: a re-use entry
  (``shares``) is created on the new input, drawn with a dashed "shares" edge. Into
  :data:`OUTPUTS`: the layer becomes a model output.
* ``disconnect``: an input edge, an output edge, or a "shares" edge (the re-use becomes a
  layer of its own with the owner's settings).
* ``delete``: layers (with their re-uses) and inputs, with every reference to them.
* Positions live in the spec's ``layout``; a Sequential model is a vertical stack whose
  order is changed by ``reorder``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Iterable, Mapping

from tfcore.errors import SpecError
from tfcore.model import spec_ops
from tfcore.model.canvas_place import COLUMN, OUTPUTS, free_spot, positions, stack_y
from tfcore.model.catalog import get_type
from tfcore.model.spec import FUNCTIONAL, SEQUENTIAL, InputSpec, LayerSpec, ModelSpec, parse_layout
from tfcore.model.spec_paths import block_children, with_children

NEW_INPUT = "__input__"
"""The palette's pseudo type that adds a model input."""
OPS = ("add", "connect", "delete", "move", "reorder", "select", "undo", "redo", "group",
       "ungroup", "open")


def _error(key: str, **params: Any) -> SpecError:
    return SpecError(key=key, params=params)


def _names(spec: ModelSpec) -> tuple[set[str], dict[str, int]]:
    return {i.name for i in spec.inputs}, {e.name: n for n, e in enumerate(spec.layers)}


def _need_node(spec: ModelSpec, name: Any, outputs_ok: bool = False) -> str:
    inputs, layers = _names(spec)
    if isinstance(name, str) and (name in inputs or name in layers
                                  or (outputs_ok and name == OUTPUTS)):
        return name
    raise _error("canvas.no_node", name=str(name)[:100])


def _need_type(type_name: Any) -> str:
    if not isinstance(type_name, str) or get_type(type_name) is None:
        raise _error("canvas.unknown_type", type=str(type_name)[:100])
    return type_name


def _stack_index(items: tuple[LayerSpec, ...], y: float, skip: str | None = None) -> int:
    """Where in a stack a layer dropped at height ``y`` goes: after every other layer drawn
    above that height (``skip``: the dragged layer itself)."""
    return sum(1 for n, e in enumerate(items) if e.name != skip and stack_y(n + 1) < y)


def _insert(spec: ModelSpec, path: tuple[str, ...], layer: LayerSpec, y: float) -> ModelSpec:
    """``layer`` into the stack of the container at ``path`` where it was dropped."""
    items = block_children(spec, path)
    index = _stack_index(items, y)
    return with_children(spec, path, items[:index] + (layer,) + items[index:])


def _others(spec: ModelSpec, name: str) -> dict[str, tuple[float, float]]:
    """Where every node but ``name`` is drawn once ``name`` is in the spec (a node without
    a stored place moves with the graph: the outputs node goes below a deeper layer)."""
    return {k: v for k, v in positions(spec).items() if k != name}


def add_node(spec: ModelSpec, type_name: str, x: float = 0.0,
                 y: float = 0.0) -> tuple[ModelSpec, str]:
    """Add a layer of a catalog type dropped at (x, y); return the spec and its name.

    Functional: the layer is not connected yet (connect it on the canvas). Sequential: it
    is inserted in the stack where it was dropped.

    Raises:
        SpecError: the type is not in the catalog (``canvas.unknown_type``).
    """
    if type_name == NEW_INPUT:
        return add_input(spec, x, y)
    layer = spec_ops.new_layer(spec, _need_type(type_name))
    if spec.kind == SEQUENTIAL:
        return _insert(spec, (), layer, y), layer.name
    spec = replace(spec, layers=spec.layers + (layer,))
    return move(spec, {layer.name: free_spot(_others(spec, layer.name), x, y)}), layer.name


def add_input(spec: ModelSpec, x: float = 0.0, y: float = 0.0) -> tuple[ModelSpec, str]:
    """A new model input (Functional; a Sequential model has at most one) shaped like the
    first input."""
    if spec.kind == SEQUENTIAL and spec.inputs:
        raise _error("canvas.one_input")
    name = spec_ops.unique_name(spec, "input")
    shape = spec.inputs[0].shape if spec.inputs else (None,)
    spec = replace(spec, inputs=spec.inputs + (InputSpec(name, shape),))
    return move(spec, {name: free_spot(_others(spec, name), x, y)}), name


def _ancestors(spec: ModelSpec, name: str) -> set[str]:
    by_name = {e.name: e for e in spec.layers}
    seen: set[str] = set()
    todo = [name]
    while todo:
        entry = by_name.get(todo.pop())
        for source in entry.inputs if entry else ():
            if source not in seen:
                seen.add(source)
                todo.append(source)
    return seen


def connect(spec: ModelSpec, source: str, target: str) -> ModelSpec:
    """Connect ``source``'s output to ``target``'s input (see the module doc).

    Raises:
        SpecError: an unknown node, an edge into an input, a loop (``canvas.cycle``), or a
            merge that has all the inputs it takes (``canvas.full``).
    """
    if spec.kind != FUNCTIONAL:
        return spec      # a Sequential model is wired by its order
    source = _need_node(spec, source)
    target = _need_node(spec, target, outputs_ok=True)
    if target == OUTPUTS:
        return spec if source in spec.outputs else replace(spec,
                                                           outputs=spec.outputs + (source,))
    inputs, layers = _names(spec)
    if target in inputs:
        raise _error("canvas.into_input", name=target)
    entry = spec.layers[layers[target]]
    if source in entry.inputs:
        return spec
    kind = get_type(entry.type)
    most = kind.max_inputs if kind else 1
    if len(entry.inputs) < most:
        if source == target or target in _ancestors(spec, source):
            raise _error("canvas.cycle", source=source, target=target)
        return spec_ops.set_layer(spec, layers[target], inputs=entry.inputs + (source,))
    if most > 1:
        raise _error("canvas.full", name=target,
                     count=most)
    owner = entry.shares or entry.name
    reuse = LayerSpec(spec_ops.unique_name(spec, f"{owner}_again"), entry.type, shares=owner,
                      inputs=(source,))
    spec = replace(spec, layers=spec.layers + (reuse,))
    taken = _others(spec, reuse.name)
    x, y = taken.get(target, (0.0, 0.0))
    return move(spec, {reuse.name: free_spot(taken, x + COLUMN, y)})


def disconnect(spec: ModelSpec, source: str, target: str, role: str = "data") -> ModelSpec:
    """Remove one edge: an input of a layer, an output, or a "shares" link."""
    inputs, layers = _names(spec)
    if role == "shares":
        if target not in layers:
            return spec
        entry = spec.layers[layers[target]]
        if not entry.shares:
            return spec
        owner = spec.layers[layers[entry.shares]] if entry.shares in layers else None
        return spec_ops.set_layer(spec, layers[target], shares=None,
                                  config=dict(owner.config) if owner else {})
    if spec.kind != FUNCTIONAL:
        return spec
    if target == OUTPUTS:
        return replace(spec, outputs=tuple(o for o in spec.outputs if o != source))
    if target not in layers:
        return spec
    entry = spec.layers[layers[target]]
    kept = list(entry.inputs)
    if source in kept:
        kept.remove(source)
    return spec_ops.set_layer(spec, layers[target], inputs=tuple(kept))


def delete(spec: ModelSpec, nodes: Iterable[str] = (),
           edges: Iterable[Mapping[str, Any]] = ()) -> ModelSpec:
    """Delete edges, then nodes: a layer goes with its re-uses and every reference to it
    (inputs, outputs, layout); an input with the references to it. The outputs node and
    unknown names are left alone."""
    for edge in edges:
        if isinstance(edge, Mapping):
            spec = disconnect(spec, str(edge.get("source")), str(edge.get("target")),
                              str(edge.get("role", "data")))
    gone = {n for n in nodes if isinstance(n, str) and n != OUTPUTS}
    gone |= {e.name for e in spec.layers if e.shares in gone}
    for name in gone:
        inputs, layers = _names(spec)
        if name in layers:
            spec = spec_ops.remove_layer(spec, layers[name])
        elif name in inputs:
            spec = replace(spec, inputs=tuple(i for i in spec.inputs if i.name != name),
                           layers=tuple(replace(e, inputs=tuple(s for s in e.inputs
                                                                if s != name))
                                        for e in spec.layers),
                           outputs=tuple(o for o in spec.outputs if o != name))
    return replace(spec, layout={k: v for k, v in spec.layout.items() if k not in gone})


def move(spec: ModelSpec, positions: Mapping[str, Any]) -> ModelSpec:
    """Store canvas positions of known nodes (bad values and unknown names are ignored)."""
    inputs, layers = _names(spec)
    known = inputs | set(layers) | {OUTPUTS}
    new = parse_layout({k: list(v) if isinstance(v, tuple) else v
                        for k, v in dict(positions).items() if k in known})
    if not new:
        return spec
    layout = {k: v for k, v in spec.layout.items() if k in known}
    layout.update(new)
    return replace(spec, layout=layout)


def reorder(spec: ModelSpec, name: str, index: int, path: tuple[str, ...] = ()) -> ModelSpec:
    """Move a layer of the container at ``path`` (``()``: the top level) to position
    ``index`` (clamped) of its stack."""
    items = list(block_children(spec, path))
    names = [e.name for e in items]
    if name not in names or not isinstance(index, int) or isinstance(index, bool):
        return spec
    entry = items.pop(names.index(name))
    items.insert(max(0, min(index, len(items))), entry)
    return with_children(spec, path, tuple(items))


def drop_in_stack(spec: ModelSpec, name: str, y: float, path: tuple[str, ...] = ()) -> ModelSpec:
    """A layer of a stack dragged to height ``y``: it goes after every other layer drawn
    above that height."""
    return reorder(spec, name, _stack_index(block_children(spec, path), y, skip=name), path)


def rename(spec: ModelSpec, old: str, new: str) -> ModelSpec:
    """:func:`spec_ops.rename`, which also keeps the node's place on the canvas."""
    return spec_ops.rename(spec, old, new)


def set_config(spec: ModelSpec, name: str, config: Mapping[str, Any]) -> ModelSpec:
    """Replace the parameters of a top-level layer."""
    _, layers = _names(spec)
    if name not in layers:
        return spec
    return spec_ops.set_layer(spec, layers[name], config=dict(config))


def group(spec: ModelSpec, names: Iterable[str]) -> ModelSpec:
    """:func:`spec_ops.group_into_block` at the first layer's place on the canvas."""
    names = [n for n in names if isinstance(n, str) and n not in (OUTPUTS,)]
    firsts = [spec.layout[n] for n in names if n in spec.layout]
    spec_before = spec
    spec = spec_ops.group_into_block(spec, names)
    block = next(e.name for e in spec.layers if e.name not in
                 {x.name for x in spec_before.layers})
    return move(spec, {block: firsts[0]}) if firsts else spec


def ungroup(spec: ModelSpec, name: str) -> ModelSpec:
    return spec_ops.ungroup(spec, name)


def _bad_event(event: Any) -> SpecError:
    return _error("canvas.bad_event", event=str(event)[:200])


def _number(value: Any) -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return 0.0


def _checked_op(event: Any) -> str:
    """The event's op, once it is an object with a known op and a text ``name``."""
    if not isinstance(event, Mapping) or event.get("op") not in OPS:
        raise _bad_event(event)
    if event["op"] in ("reorder", "ungroup", "open") and not isinstance(event.get("name", ""),
                                                                       str):
        raise _bad_event(event)
    return event["op"]


def apply_event(spec: ModelSpec, event: Any) -> ModelSpec:
    """Apply one canvas event (``add``, ``connect``, ``delete``, ``move``, ``reorder``,
    ``group``, ``ungroup``); ``select``, ``open``, ``undo`` and ``redo`` are the page's and
    change nothing here.

    Raises:
        SpecError: a malformed event (``canvas.bad_event``) or an edit the model refuses;
            the spec is then unchanged.
    """
    op = _checked_op(event)
    if op == "add":
        return add_node(spec, event.get("type"), _number(event.get("x")),
                            _number(event.get("y")))[0]
    if op == "connect":
        return connect(spec, event.get("source"), event.get("target"))
    if op == "delete":
        nodes, edges = event.get("nodes", []), event.get("edges", [])
        if not isinstance(nodes, list) or not isinstance(edges, list):
            raise _bad_event(event)
        return delete(spec, nodes, edges)
    if op == "move":
        positions = event.get("positions")
        if not isinstance(positions, Mapping):
            raise _bad_event(event)
        return move(spec, positions)
    if op == "reorder":
        if "y" in event:       # dropped at a height of the stack
            return drop_in_stack(spec, event.get("name"), _number(event.get("y")))
        return reorder(spec, event.get("name"), event.get("index"))
    if op == "group":
        names = event.get("names")
        if not isinstance(names, list):
            raise _bad_event(event)
        return group(spec, names)
    if op == "ungroup":
        return ungroup(spec, _need_node(spec, event.get("name")))
    return spec


def apply_event_at(spec: ModelSpec, path: tuple[str, ...], event: Any) -> ModelSpec:
    """:func:`apply_event` on the canvas of the block open at ``path`` (``()``: the model).

    A block's layers run in order, so its canvas is a stack: ``add`` inserts where the type
    was dropped (a name unique in the whole model), ``reorder`` moves a layer, ``delete``
    removes layers, ``group`` and ``ungroup`` work on its layers; ``connect`` and ``move``
    change nothing.

    Raises:
        SpecError: a malformed event, a bad path (``spec.no_block``), a model input dropped
            into a block (``canvas.input_in_block``) or an edit the model refuses.
    """
    path = tuple(path)
    if not path:
        return apply_event(spec, event)
    op = _checked_op(event)
    children = block_children(spec, path)
    names = [e.name for e in children]
    if op == "add":
        if event.get("type") == NEW_INPUT:
            raise _error("canvas.input_in_block")
        layer = spec_ops.new_layer(spec, _need_type(event.get("type")))
        return _insert(spec, path, layer, _number(event.get("y")))
    if op == "delete":
        nodes = event.get("nodes", [])
        if not isinstance(nodes, list):
            raise _bad_event(event)
        for name in nodes:
            if name in names:
                spec = spec_ops.remove_layer_at(spec, path, names.index(name))
                names.remove(name)
        return spec
    if op == "reorder":
        if "y" in event:
            return drop_in_stack(spec, event.get("name"), _number(event.get("y")), path)
        return reorder(spec, event.get("name"), event.get("index"), path)
    if op == "group":
        chosen = event.get("names")
        if not isinstance(chosen, list):
            raise _bad_event(event)
        return spec_ops.group_into_block(spec, [n for n in chosen if n in names])
    if op == "ungroup":
        name = event.get("name")
        if name not in names:
            raise _error("canvas.no_node", name=str(name)[:100])
        return spec_ops.ungroup(spec, name)
    return spec
