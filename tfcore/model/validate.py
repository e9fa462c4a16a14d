"""Validate a spec before any TensorFlow call: every problem at once, each located.

Checks names, types, parameter values (from the catalog schema), shared layers, nested
blocks, the Functional graph (missing inputs, cycles, unreachable and unused layers,
missing outputs, merge arity), then infers shapes in plain Python (merge shapes, Reshape
sizes) and refuses a model above the parameter limit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Mapping

from tfcore import settings
from tfcore.errors import SpecError
from tfcore.messages import Names
from tfcore.model.catalog import full_config, get_type, similar_types
from tfcore.model.limits import MAX_EXAMPLE_ELEMENTS, MAX_MODEL_BYTES, MIB, elements
from tfcore.model.params import RAW_KEY, unsafe_part
from tfcore.model.shape_base import ShapeIssue
from tfcore.model.shapes import infer
from tfcore.model.spec import FUNCTIONAL, INPUT_REF, SEQUENTIAL, LayerSpec, ModelSpec, Problem

DEFAULT_PARAM_LIMIT = settings.param_limit()            # read once, at import
_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$")


@dataclass(frozen=True)
class Validation:
    """The result: problems, and per entry the inferred output shape (no batch axis) and
    parameter count (``None`` where unknown before building)."""

    problems: tuple[Problem, ...]
    shapes: Mapping[str, Any] = field(default_factory=dict)
    params: Mapping[str, int | None] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def known_params(self) -> int:
        return sum(v for v in self.params.values() if v)


def _p(out: list[Problem], location: str, fld: str, value: Any, key: str, /,
       **params: Any) -> None:
    """Record a problem: its text is the English catalog text of ``key`` (one source)."""
    out.append(Problem.of(location, fld, value, key, **params))


MAX_MODEL_NAME = 100


def _check_model_name(name: str, out: list[Problem]) -> None:
    bad = [c for c in name if c == "/" or not c.isprintable()]
    if len(name) > MAX_MODEL_NAME or bad:
        _p(out, "spec", "name", name if len(name) <= 200 else name[:200] + "...",
           "spec.problem.model_name", limit=MAX_MODEL_NAME)


def _check_names(spec: ModelSpec, out: list[Problem]) -> None:
    _check_model_name(spec.name, out)
    seen: set[str] = set()
    names = [i.name for i in spec.inputs] + [e.name for e in spec.all_layers()]
    for name in names:
        if not name or not _NAME.match(name):
            _p(out, name or "layer", "name", name, "spec.problem.name")
        elif name in seen:
            _p(out, name, "name", name, "spec.problem.duplicate")
        seen.add(name)


def _check_entry(entry: LayerSpec, spec: ModelSpec, order: dict[str, int], top: bool,
                 out: list[Problem]) -> None:
    loc = entry.name or "layer"
    kind = get_type(entry.type)
    if kind is None:
        close = similar_types(entry.type)
        if close:
            _p(out, loc, "type", entry.type, "spec.problem.unknown_type_close", close=Names(close))
        else:
            _p(out, loc, "type", entry.type, "spec.problem.unknown_type")
        return
    if entry.shares:
        owner = _by_name(spec).get(entry.shares)
        if owner is None or owner.shares:
            _p(out, loc, "shares", entry.shares, "spec.problem.shares")
        elif owner.type != entry.type:
            _p(out, loc, "shares", entry.shares, "spec.problem.shares_type", type=owner.type)
        elif order[owner.name] > order[entry.name]:
            _p(out, loc, "shares", entry.shares, "spec.problem.shares_order")
        if entry.config:
            _p(out, loc, "config", dict(entry.config), "spec.problem.shares_config")
        return
    if entry.call is not None:
        _check_call(entry, spec.kind == SEQUENTIAL or not top, out)
    for key, value in entry.config.items():
        param = kind.param(key)
        if key == RAW_KEY and param is None:
            _check_raw(loc, kind.name, value, out)
        elif param is None:
            _p(out, loc, key, value, "spec.problem.unknown_param", type=entry.type,
               names=Names(q.name for q in kind.params))
        elif not param.check(value):
            _p(out, loc, key, value, "spec.problem.value", allowed=param.rule())
    if kind.container and not entry.layers:
        _p(out, loc, "layers", [], "spec.problem.empty_block")
    if entry.layers and not kind.container:
        _p(out, loc, "layers", len(entry.layers), "spec.problem.not_block")
    if spec.kind == SEQUENTIAL or not top:
        if kind.min_inputs > 1:
            _p(out, loc, "type", entry.type, "spec.problem.merge_in_sequential")
        if entry.inputs:
            _p(out, loc, "inputs", list(entry.inputs), "spec.problem.sequential_inputs")
    for child in entry.layers:
        _check_entry(child, spec, order, False, out)


def _check_raw(loc: str, type_name: str, value: Any, out: list[Problem]) -> None:
    """Raw Keras config: an object of Keras values, naming no class outside Keras."""
    if not isinstance(value, Mapping) or "name" in value:
        _p(out, loc, RAW_KEY, value, "spec.problem.raw")
        return
    bad = unsafe_part(value)
    if bad:
        _p(out, loc, RAW_KEY, bad, "spec.problem.raw_unsafe")


def _refs(template: Any) -> list[Any]:
    """The ``__input__`` references of a call template (iteratively)."""
    found, stack = [], [template]
    while stack:
        item = stack.pop()
        if isinstance(item, Mapping):
            if INPUT_REF in item:
                found.append(item[INPUT_REF])
            else:
                stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def _check_call(entry: LayerSpec, sequential: bool, out: list[Problem]) -> None:
    if sequential:
        _p(out, entry.name, "call", dict(entry.call), "spec.problem.call_sequential")
        return
    refs = _refs(entry.call)
    if not all(isinstance(r, int) and not isinstance(r, bool) and 0 <= r < len(entry.inputs)
               for r in refs) or unsafe_part(entry.call):
        _p(out, entry.name, "call", dict(entry.call), "spec.problem.call_refs",
           count=len(entry.inputs))


def _check_graph(spec: ModelSpec, out: list[Problem]) -> list[str]:
    """Functional structure; returns the layer names in an order safe to infer."""
    known = {i.name for i in spec.inputs} | {e.name for e in spec.layers}
    by_name = {e.name: e for e in spec.layers}
    if not spec.inputs:
        _p(out, "spec", "inputs", [], "spec.problem.no_inputs")
    for entry in spec.layers:
        kind = get_type(entry.type if not entry.shares else
                        getattr(by_name.get(entry.shares), "type", entry.type))
        missing = [n for n in entry.inputs if n not in known]
        if not entry.inputs:
            _p(out, entry.name, "inputs", [], "spec.problem.no_layer_inputs")
        elif missing:
            _p(out, entry.name, "inputs", missing, "spec.problem.missing_input")
        elif kind and not kind.min_inputs <= len(entry.inputs) <= kind.max_inputs:
            _p(out, entry.name, "inputs", list(entry.inputs), "spec.problem.arity",
               low=kind.min_inputs, high=kind.max_inputs)
    if not spec.outputs:
        _p(out, "spec", "outputs", [], "spec.problem.no_outputs")
    for name in spec.outputs:
        if name not in by_name:
            _p(out, "spec", "outputs", name, "spec.problem.bad_output")
    # Topological order; what is left is in a cycle or depends on something missing.
    order = topological([i.name for i in spec.inputs], [e for e in spec.layers if e.inputs])
    placed = set(order)
    pending = [e for e in spec.layers if e.inputs and e.name not in placed]
    for entry in pending:
        stuck = all(n in known for n in entry.inputs)
        if stuck:
            _p(out, entry.name, "inputs", list(entry.inputs), "spec.problem.cycle")
        else:
            _p(out, entry.name, "", entry.name, "spec.problem.unreachable")
    used = set(spec.outputs)
    for name in reversed(order):
        if name in used:
            used.update(by_name[name].inputs)
    for name in order:
        if name not in used:
            _p(out, name, "", name, "spec.problem.unused")
    return order


def topological(sources: list[str], entries: list[LayerSpec]) -> list[str]:
    """Names of ``entries`` in an order where each comes after all its inputs (Kahn's
    algorithm, linear in the edges; among ready layers the spec's order is kept). Entries in
    a cycle or fed by an unknown name are left out."""
    import heapq

    position = {e.name: n for n, e in enumerate(entries)}
    waiting = {e.name: len(set(e.inputs)) for e in entries}
    users: dict[str, list[str]] = {}
    for entry in entries:
        for name in set(entry.inputs):
            users.setdefault(name, []).append(entry.name)
    ready: list[tuple[int, str]] = []

    def release(name: str) -> None:
        for user in users.get(name, ()):
            waiting[user] -= 1
            if waiting[user] == 0:
                heapq.heappush(ready, (position[user], user))

    for name in dict.fromkeys(sources):
        release(name)
    order: list[str] = []
    done: set[str] = set()
    while ready:
        _, name = heapq.heappop(ready)
        if name not in done:
            done.add(name)
            order.append(name)
            release(name)
    return order


def _by_name(spec: ModelSpec) -> dict[str, LayerSpec]:
    """Every entry by name (nested too); computed once per spec object."""
    cached = _INDEX.get(id(spec))
    if cached is None or cached[0] is not spec:
        cached = (spec, {e.name: e for e in spec.all_layers()})
        _INDEX.clear()
        _INDEX[id(spec)] = cached
    return cached[1]


_INDEX: dict[int, tuple[ModelSpec, dict[str, LayerSpec]]] = {}


def _check_elements(spec: ModelSpec, shapes: Mapping[str, Any], out: list[Problem]) -> None:
    """Refuse inputs and layer outputs with more than MAX_EXAMPLE_ELEMENTS per example."""
    for name, shape in shapes.items():
        count = elements(shape)
        if count is not None and count > MAX_EXAMPLE_ELEMENTS:
            where = "shape" if name in {i.name for i in spec.inputs} else "output"
            _p(out, name, where, list(shape), "spec.problem.too_many_elements", count=f"{count:,}",
               limit=f"{MAX_EXAMPLE_ELEMENTS:,}")
            return


def _infer_entry(entry: LayerSpec, spec: ModelSpec, shapes: list, out_params: dict) -> Any:
    """Infer one application; a Block infers its children in order."""
    source = entry if not entry.shares else _by_name(spec).get(entry.shares, entry)
    if source.layers:
        shape = shapes[0]
        for child in source.layers:
            shape = _infer_entry(child, spec, [shape], out_params) if shape is not None else None
        out_params[entry.name] = 0 if entry.shares else None
        return shape
    out_shape, count = infer(source.type, full_config(source), shapes)
    out_params[entry.name] = 0 if entry.shares else count
    return out_shape


def validate(spec: ModelSpec, param_limit: int | None = None) -> Validation:
    """Every problem of a spec, located, plus inferred shapes and parameter counts."""
    out: list[Problem] = []
    limit = DEFAULT_PARAM_LIMIT if param_limit is None else param_limit
    _check_names(spec, out)
    if spec.kind == SEQUENTIAL and len(spec.inputs) > 1:
        _p(out, "spec", "inputs", [i.name for i in spec.inputs],
           "spec.problem.sequential_many_inputs")
    for item in spec.inputs:
        if not item.shape or not all(d is None or (isinstance(d, int) and not isinstance(d, bool)
                                                   and d >= 1) for d in item.shape):
            _p(out, item.name, "shape", list(item.shape), "spec.problem.input_shape")
    order = {e.name: n for n, e in enumerate(spec.all_layers())}
    for entry in spec.layers:
        _check_entry(entry, spec, order, True, out)
    _check_elements(spec, {i.name: tuple(i.shape) for i in spec.inputs}, out)
    bad = {p.location for p in out}
    shapes: dict[str, Any] = {i.name: None if i.name in bad else tuple(i.shape)
                              for i in spec.inputs}
    params: dict[str, int | None] = {}
    if spec.kind == FUNCTIONAL:
        sequence = _check_graph(spec, out)
        by_name = {e.name: e for e in spec.layers}
        steps = [(by_name[n], list(by_name[n].inputs)) for n in sequence]
    else:
        prev = spec.inputs[0].name if spec.inputs else None
        steps = []
        for entry in spec.layers:
            steps.append((entry, [prev] if prev else []))
            prev = entry.name
    for entry, sources in steps:
        ins = [shapes.get(s) for s in sources]
        if entry.name in bad or not ins or any(s is None for s in ins) or (
                entry.shares and entry.shares in bad):
            shapes[entry.name] = None
            continue
        try:
            shapes[entry.name] = _infer_entry(entry, spec, ins, params)
        except ShapeIssue as issue:
            _p(out, entry.name, issue.field, issue.value, issue.key, **issue.params)
            shapes[entry.name] = None
        except (KeyError, TypeError, ValueError, ZeroDivisionError):
            shapes[entry.name] = None
    out.extend(size_problems(spec, shapes, params, limit, outputs=not out))
    return Validation(tuple(out), shapes, params)


def size_problems(spec: ModelSpec, shapes: Mapping[str, Any], params: Mapping[str, int | None],
                  param_limit: int | None = None, outputs: bool = True) -> list[Problem]:
    """The size limits of a model whose shapes (no batch axis) and parameter counts are
    known, each problem naming the layer, the field and the limit: one example's output of
    a layer above ``MAX_EXAMPLE_ELEMENTS`` (when ``outputs``), the parameters above the
    parameter limit, the bytes of weights plus every layer's output above ``MAX_MODEL_MB``.
    Used by :func:`validate` on the inferred shapes and by the dry build on Keras's."""
    out: list[Problem] = []
    limit = DEFAULT_PARAM_LIMIT if param_limit is None else param_limit
    if outputs:
        _check_elements(spec, shapes, out)
    total = sum(v for v in params.values() if v)
    if total > limit:
        biggest = max(params, key=lambda n: params[n] or 0)
        _p(out, biggest, "params", total, "spec.problem.too_many_params",
           total=total, limit=limit)
    inputs = {i.name for i in spec.inputs}
    weight = {name: (params.get(name) or 0) + (0 if name in inputs else elements(shape) or 0)
              for name, shape in shapes.items()}
    for name, count in params.items():
        weight.setdefault(name, count or 0)
    needed = 4 * sum(weight.values())
    if needed > MAX_MODEL_BYTES and not out:      # the bytes only when nothing else is over
        biggest = max(weight, key=lambda n: weight[n])
        _p(out, biggest, "bytes", f"{needed / MIB:,.0f} MB", "spec.problem.too_many_bytes",
           mb=f"{needed / MIB:,.0f}", limit=f"{MAX_MODEL_BYTES // MIB:,}",
           setting=settings.MAX_MODEL_MB.name)
    return out


def check(spec: ModelSpec, param_limit: int | None = None) -> Validation:
    """Validate and raise when anything is wrong.

    Raises:
        SpecError: ``details`` lists every located :class:`Problem`.
    """
    result = validate(spec, param_limit)
    if result.problems:
        raise SpecError(key="spec.invalid", params={"count": len(result.problems)},
                        details=list(result.problems))
    return result


def check_values(spec: ModelSpec) -> None:
    """Refuse a spec whose parameter values do not fit their fields (``"units": "four"``),
    before it reaches forms that could only show a default instead.

    Raises:
        SpecError: ``details`` lists each located value problem.
    """
    out: list[Problem] = []
    order = {e.name: n for n, e in enumerate(spec.all_layers())}
    for entry in spec.layers:
        _check_entry(entry, spec, order, True, out)
    values = [p for p in out if p.key == "spec.problem.value"]
    if values:
        first = values[0]
        raise SpecError(key="spec.bad_values",
                        params={"count": len(values), "where": first.where,
                                "value": repr(first.value), "allowed": first.params["allowed"]},
                        details=values)
