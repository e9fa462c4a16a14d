"""What ``model.summary()`` tells, as data: per layer output shape and parameters, totals.

:func:`summarize` validates first (no TensorFlow call for a bad spec), then builds the
model and attributes Keras's first rejection to its layer. Results are cached by the
spec's JSON, so an unchanged spec is never rebuilt.
"""

from __future__ import annotations

import dataclasses
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from tfcore.errors import SpecError
from tfcore.model.spec import SEQUENTIAL, ModelSpec, Problem
from tfcore.model.validate import DEFAULT_PARAM_LIMIT, validate

_CACHE: "OrderedDict[tuple[str, int | None], ModelSummary]" = OrderedDict()
_CACHE_SIZE = 128


@dataclass(frozen=True)
class LayerRow:
    """One application of a layer: ``shares`` names the entry whose weights it re-uses."""

    name: str
    type: str
    output_shape: str
    params: int | None
    shares: str | None = None
    inputs: tuple[str, ...] = ()


@dataclass(frozen=True)
class ModelSummary:
    """Rows plus totals; ``built`` is False when the spec is invalid, Keras rejected it, or
    the model has no input shape yet (``deferred``)."""

    name: str
    rows: tuple[LayerRow, ...]
    total: int
    trainable: int
    non_trainable: int
    variables: int
    built: bool
    deferred: bool
    problems: tuple[Problem, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.problems


def _shape_text(shape: Any, batch: bool) -> str:
    if shape is None:
        return "?"
    dims = ([None] if batch else []) + list(shape)
    return "(" + ", ".join("None" if d is None else str(d) for d in dims) + (
        ",)" if len(dims) == 1 else ")")


def _static(spec: ModelSpec, problems: tuple[Problem, ...], shapes: dict, params: dict,
            deferred: bool = False) -> ModelSummary:
    rows = tuple(LayerRow(e.name, e.type, _shape_text(shapes.get(e.name), True),
                          params.get(e.name), e.shares, e.inputs) for e in spec.layers)
    total = sum(r.params or 0 for r in rows)
    return ModelSummary(spec.name, rows, total, total, 0, 0, False, deferred, problems)


def _count(weights: list) -> int:
    import math
    return sum(math.prod(int(d) for d in w.shape) for w in weights)


def _built(spec: ModelSpec, limit: int | None) -> ModelSummary:
    from tfcore.model.build import build_traced, entry_weights

    check = validate(spec, limit)
    if check.problems:
        return _static(spec, check.problems, dict(check.shapes), dict(check.params))
    deferred = spec.kind == SEQUENTIAL and not spec.inputs
    try:
        built = build_traced(spec, make_model=False, param_limit=limit)
    except SpecError as exc:
        if exc.key == "spec.too_big":      # over a size limit: located, nothing allocated
            return _static(spec, tuple(exc.details), dict(check.shapes), dict(check.params))
        layer = exc.params.get("layer", "spec")
        problem = Problem(layer, "", exc.params.get("type", ""), exc.params.get("message",
                          exc.message), "spec.problem.keras", {"message": exc.params.get(
                              "message", exc.message)})
        return _static(spec, (problem,), dict(check.shapes), {})
    if deferred:
        return _static(spec, (), {}, {e.name: 0 for e in spec.layers}, deferred=True)
    seen: set[int] = set()
    rows = []
    for entry in spec.layers:
        layer = built.layers[entry.name]
        first = id(layer) not in seen
        seen.add(id(layer))
        own = entry_weights(layer) if first else ()
        rows.append(LayerRow(entry.name, entry.type, _shape_text(built.shapes[entry.name], False),
                             _count(list(own)), entry.shares, entry.inputs))
    unique = list({id(layer): layer for layer in built.layers.values()}.values())
    weights = list({id(w): w for layer in unique for w in entry_weights(layer)}.values())
    trainable = _count([w for w in weights if w.trainable])
    non_trainable = _count([w for w in weights if not w.trainable])
    total = trainable + non_trainable
    problems: tuple[Problem, ...] = ()
    cap = DEFAULT_PARAM_LIMIT if limit is None else limit
    if total > cap:
        problems = (Problem(spec.name, "params", total, f"The model has {total:,} parameters, "
                            f"above the limit of {cap:,}.", "spec.problem.too_many_params",
                            {"total": total, "limit": cap}),)
    return ModelSummary(spec.name, tuple(rows), total, trainable, non_trainable,
                        len(weights), True, False, problems)


def summarize(spec: ModelSpec, param_limit: int | None = None) -> ModelSummary:
    """The summary of a spec (cached by its JSON); never raises for a bad spec: the
    problems are in ``problems``. Canvas positions (``layout``) are not part of the key:
    moving a node changes no shape or count."""
    if spec.layout:
        spec = dataclasses.replace(spec, layout={})
    key = (spec.to_json(indent=None), param_limit)
    hit = _CACHE.get(key)
    if hit is not None:
        _CACHE.move_to_end(key)
        return hit
    result = _built(spec, param_limit)
    _CACHE[key] = result
    if len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return result


@dataclass(frozen=True)
class DeferredDemo:
    """Deferred initialization shown: weights before and after the first call."""

    before: int
    after: tuple[tuple[str, tuple[int, ...]], ...]


def deferred_demo(spec: ModelSpec, input_shape: tuple[int, ...], batch: int = 2) -> DeferredDemo:
    """Build a Sequential spec without input, count its weights, call it once on zeros of
    ``(batch, *input_shape)`` and list the weights it then has (scenario B8).

    Raises:
        SpecError: the spec has an input already, or Keras rejects the shape.
    """
    import numpy as np

    from tfcore.model.build import build_model

    if spec.inputs or spec.kind != SEQUENTIAL:
        raise SpecError(key="spec.not_deferred")
    model = build_model(spec)
    before = len(model.weights)
    try:
        model(np.zeros((batch, *input_shape), dtype="float32"))
    except Exception as exc:  # noqa: BLE001 - shown to the person, located by the shape
        raise SpecError(key="spec.deferred_shape", params={"shape": str(input_shape)}) from exc
    return DeferredDemo(before, tuple((w.path, tuple(int(d) for d in w.shape))
                                      for w in model.weights))
