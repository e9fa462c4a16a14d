"""What the model canvas draws: nodes and edges of a spec, as JSON for the frontend.

Node ids are input and layer names (unique in a valid spec; a duplicate is drawn once) and
:data:`~tfcore.model.canvas_place.OUTPUTS` for the model outputs. A Functional model is drawn
where its ``layout`` says, the rest on layers by depth; a Sequential model is a vertical
stack (its order is the model). Shapes, counts and problems come from the caller (the
engine's validation or summary) already as text, so this module needs no Keras.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from tfcore.model.canvas_place import OUTPUTS, default_positions
from tfcore.model.catalog import get_type
from tfcore.model.spec import FUNCTIONAL, SEQUENTIAL, InputSpec, ModelSpec
from tfcore.model.spec_paths import block_children
from tfcore.model.validate import validate

BLOCK_INPUT = "__block_input__"
"""The node id of what flows into an open block (never a layer name)."""


SIZE_PARAMS = ("units", "filters")
"""The parameter drawn after a layer's type, when it has one (its width)."""


def _settings_text(spec: ModelSpec, entry: Any) -> str:
    """What a node says after its type: the size and the activation (a re-use shows its
    owner's), "Dense 100 · relu"; the catalog's default when the config leaves it out."""
    owner = next((e for e in spec.layers if e.name == entry.shares), entry)
    kind = get_type(owner.type)
    if kind is None:
        return ""
    defaults = {p.name: p.default for p in kind.params}
    value = {**defaults, **dict(owner.config)}
    out = next((f" {value[p]}" for p in SIZE_PARAMS if value.get(p) is not None), "")
    activation = value.get("activation") if "activation" in defaults else None
    if isinstance(activation, str) and activation:
        out += f" · {activation}"
    return out


def graph(spec: ModelSpec, shapes: Mapping[str, str], params: Mapping[str, int | None],
          problems: Mapping[str, str], title: Callable[[str], str] = str,
          params_text: Callable[[int], str] = lambda n: f"{n:,} params",
          outputs_label: str = "outputs") -> dict[str, Any]:
    """The canvas drawing: ``{"kind", "nodes": [...], "edges": [...]}``.

    Args:
        shapes: output shape text per input or layer name.
        params: parameter count per layer name (None: unknown).
        problems: the message per node name (a red outline, shown on hover).
        title: a type's label in the reader's language.
        params_text: a count as text in the reader's language.
    """
    functional = spec.kind == FUNCTIONAL
    base = default_positions(spec)
    placed = dict(spec.layout) if functional else {}
    nodes: list[dict[str, Any]] = []
    seen: set[str] = set()

    def node(name: str, role: str, **extra: Any) -> None:
        if name in seen:
            return
        seen.add(name)
        x, y = placed.get(name, base.get(name, (0.0, 0.0)))
        nodes.append({"id": name, "name": name, "role": role, "x": x, "y": y,
                      "problem": problems.get(name, ""), "shape": shapes.get(name, ""),
                      "draggable": functional or role == "layer",
                      "deletable": role != "outputs" and (functional or role == "layer"),
                      **extra})

    for item in spec.inputs:
        node(item.name, "input", type="Input", title=title("Input"), params="")
    for entry in spec.layers:
        kind = get_type(entry.type)
        count = params.get(entry.name)
        label = title(entry.type) + _settings_text(spec, entry)
        if entry.layers:
            label += " [" + ", ".join(c.name for c in entry.layers) + "]"
        node(entry.name, "layer", type=entry.type, title=label,
             params="" if count is None else params_text(count), shares=entry.shares,
             multi=bool(kind and kind.max_inputs > 1),
             block=bool(entry.layers) and not entry.shares)
    model_problem = problems.get(OUTPUTS, "")
    nodes.append({"id": OUTPUTS, "name": outputs_label, "role": "outputs",
                  "x": placed.get(OUTPUTS, base[OUTPUTS])[0],
                  "y": placed.get(OUTPUTS, base[OUTPUTS])[1], "problem": model_problem,
                  "shape": "", "title": ", ".join(spec.outputs) if functional else "",
                  "params": "", "multi": True, "draggable": functional, "deletable": False})
    return {"kind": spec.kind, "nodes": nodes, "edges": _edges(spec, seen)}


def _edges(spec: ModelSpec, ids: set[str]) -> list[dict[str, Any]]:
    edges: list[dict[str, Any]] = []

    def edge(source: str, target: str, role: str, deletable: bool = True) -> None:
        if source in ids and (target in ids or target == OUTPUTS):
            edges.append({"id": f"{role}:{source}->{target}:{len(edges)}", "source": source,
                          "target": target, "role": role, "deletable": deletable})

    if spec.kind == FUNCTIONAL:
        for entry in spec.layers:
            for source in entry.inputs:
                edge(source, entry.name, "data")
        for name in spec.outputs:
            edge(name, OUTPUTS, "data")
    else:
        chain = [i.name for i in spec.inputs[:1]] + [e.name for e in spec.layers]
        for source, target in zip(chain, chain[1:] + [OUTPUTS]):
            edge(source, target, "data", deletable=False)
    for entry in spec.layers:
        if entry.shares:
            edge(entry.shares, entry.name, "shares")
    return edges


def _into(view: ModelSpec, name: str) -> tuple | None:
    """The shape (no batch axis) of what flows into the layer ``name`` of ``view``."""
    shapes = validate(view).shapes
    entry = next(e for e in view.layers if e.name == name)
    if view.kind == FUNCTIONAL:
        return shapes.get(entry.inputs[0]) if len(entry.inputs) == 1 else None
    index = view.layers.index(entry)
    if index:
        return shapes.get(view.layers[index - 1].name)
    return shapes.get(view.inputs[0].name) if view.inputs else None


def block_view(spec: ModelSpec, path: tuple[str, ...]) -> ModelSpec:
    """The block open at ``path`` as a Sequential model of its own, for drawing and its
    shapes: one input (:data:`BLOCK_INPUT`) shaped like the tensor that flows into the
    block (none when that shape is unknown), the block's layers as the stack.

    Raises:
        SpecError: a bad path (``spec.no_block``).
    """
    block_children(spec, path)
    view = spec
    for name in path:
        shape = _into(view, name)
        entry = next(e for e in view.layers if e.name == name)
        inputs = (InputSpec(BLOCK_INPUT, tuple(shape)),) if shape else ()
        view = ModelSpec(name, SEQUENTIAL, inputs, entry.layers)
    return view
