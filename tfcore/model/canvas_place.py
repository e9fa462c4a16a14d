"""Where the model canvas puts nodes: the default placement (a Sequential stack, a
Functional model by depth) and a free spot for a new node, so that a dropped layer, a new
input or a re-used layer never lands on top of another node.

A node is drawn ``NODE_W`` canvas units wide from its top-left position (the frontend's
``nodes.jsx`` draws the same width) and three lines tall, two more while it shows a problem
(a layer just dropped on a Functional canvas has one until it is connected): ``NODE_H`` is
that taller box, so neither kind is placed over another.
"""

from __future__ import annotations

from typing import Mapping

from tfcore.model.spec import FUNCTIONAL, ModelSpec

OUTPUTS = "__outputs__"
"""The node id of the model outputs (never a layer name: names are identifiers)."""
NODE_W, NODE_H = 210.0, 98.0
GAP = 20.0
COLUMN = 230.0
STACK_STEP = 110.0
SEARCH_RINGS = 60
"""How far (in steps of ``GAP``) a free spot is looked for around the drop point."""


def stack_y(index: int) -> float:
    """The y of the index-th node of a Sequential stack (0 is the input)."""
    return index * STACK_STEP


def _depths(spec: ModelSpec) -> dict[str, int]:
    """Longest path from an input, for the default layered placement (loops cut)."""
    by_name = {e.name: e for e in spec.layers}
    depth: dict[str, int] = {i.name: 0 for i in spec.inputs}
    visiting: set[str] = set()

    def of(name: str) -> int:
        if name in depth:
            return depth[name]
        entry = by_name.get(name)
        if entry is None or name in visiting:
            return 0
        visiting.add(name)
        depth[name] = 1 + max((of(s) for s in entry.inputs), default=0)
        visiting.discard(name)
        return depth[name]

    for entry in spec.layers:
        of(entry.name)
    return depth


def default_positions(spec: ModelSpec) -> dict[str, tuple[float, float]]:
    """Where each node goes without a stored position."""
    ids = [i.name for i in spec.inputs] + [e.name for e in spec.layers]
    if spec.kind != FUNCTIONAL:
        out = {name: (0.0, stack_y(n)) for n, name in enumerate(ids)}
        out[OUTPUTS] = (0.0, stack_y(len(ids)))
        return out
    depth = _depths(spec)
    rows: dict[int, int] = {}
    out = {}
    for name in ids:
        d = depth.get(name, 0)
        out[name] = (rows.get(d, 0) * COLUMN, d * 120.0)
        rows[d] = rows.get(d, 0) + 1
    out[OUTPUTS] = (0.0, (max(depth.values(), default=0) + 1) * 120.0)
    return out


def positions(spec: ModelSpec) -> dict[str, tuple[float, float]]:
    """Where every node of ``spec`` is drawn: its stored place, else its default one."""
    out = default_positions(spec)
    if spec.kind == FUNCTIONAL:
        out.update({k: v for k, v in spec.layout.items() if k in out})
    return out


def _clear(x: float, y: float, taken: list[tuple[float, float]]) -> bool:
    return all(abs(x - ox) >= NODE_W + GAP or abs(y - oy) >= NODE_H + GAP
               for ox, oy in taken)


def free_spot(taken: Mapping[str, tuple[float, float]], x: float,
              y: float) -> tuple[float, float]:
    """The top-left place nearest (x, y) where a node overlaps none of the nodes at
    ``taken`` (with ``GAP`` between boxes); (x, y) itself when it is free."""
    boxes = list(taken.values())
    if _clear(x, y, boxes):
        return x, y
    spots = [(x + dx * GAP, y + dy * GAP)
             for dx in range(-SEARCH_RINGS, SEARCH_RINGS + 1)
             for dy in range(-SEARCH_RINGS, SEARCH_RINGS + 1)]
    spots.sort(key=lambda p: (p[0] - x) ** 2 + (p[1] - y) ** 2)
    for spot in spots:
        if _clear(*spot, boxes):
            return spot
    lowest = max((oy for _, oy in boxes), default=y)     # a very crowded canvas: below all
    return x, lowest + NODE_H + GAP
