"""Spec -> keras.Model, with each application's output shape.

Layers are created through :func:`tfcore.model.catalog.create_layer`; an entry with ``shares``
re-applies the already-created layer of another entry (tied weights). Errors Keras raises
are attributed to the layer entry that caused them.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Mapping

from tfcore.errors import SpecError
from tfcore.model.spec import FUNCTIONAL, INPUT_REF, LayerSpec, ModelSpec
from tfcore.tfenv import quiet_tensorflow

quiet_tensorflow()


@dataclass(frozen=True)
class Built:
    """A built model plus, per spec entry, its Keras layer and output shape (batch axis
    included; ``None`` when the model has no input shape yet)."""

    model: Any
    layers: Mapping[str, Any]
    shapes: Mapping[str, Any]


def entry_weights(layer: Any) -> tuple:
    """The weights of what a spec entry built: a layer's, or none for a raw op (``x + 3.0``
    in MobileNetV3's hard swish is a Keras operation, not a layer: no ``weights``, no
    ``built``)."""
    return tuple(getattr(layer, "weights", ()))


def _layer_error(entry: LayerSpec, exc: Exception) -> SpecError:
    text = str(exc).strip()
    message = " ".join(text.splitlines()[:3]) if text else type(exc).__name__
    return SpecError(key="spec.keras_rejected",
                     params={"layer": entry.name, "type": entry.type, "message": message},
                     details=[f"{entry.name}: {message}"])


class _LayerFactory:
    """Creates each layer once; ``shares`` entries get the owner's layer object."""

    def __init__(self) -> None:
        self.created: dict[str, Any] = {}

    def get(self, entry: LayerSpec, input_shape: tuple | None = None) -> Any:
        from tfcore.model.catalog import create_layer

        owner = entry.shares or entry.name
        if owner not in self.created:
            if entry.shares:
                raise SpecError(
                    key="spec.share_order",
                    params={"layer": entry.name, "shares": entry.shares})
            children = [self.get(child) for child in entry.layers]
            try:
                self.created[owner] = create_layer(entry, children, input_shape)
            except SpecError:
                raise
            except Exception as exc:  # Keras rejects a value: attribute it to the layer
                raise _layer_error(entry, exc) from exc
        return self.created[owner]


def fill_call(template: Any, args: list) -> Any:
    """A ``call`` template with each ``{"__input__": k}`` replaced by the k-th tensor."""
    if isinstance(template, dict):
        if INPUT_REF in template:
            tensor = args[template[INPUT_REF]]
            return tensor[template["output"]] if "output" in template else tensor
        return {k: fill_call(v, args) for k, v in template.items()}
    if isinstance(template, list):
        return [fill_call(v, args) for v in template]
    return template


def _apply(entry: LayerSpec, layer: Any, args: Any, many: bool = False) -> Any:
    """Call the layer: on one tensor, on the list of its inputs (merges), on them as
    separate arguments (attention, ops), or as the entry's ``call`` template says."""
    from tfcore.model.catalog import get_type

    try:
        if not many:
            return layer(args)
        if entry.call:
            call_args = fill_call(list(entry.call.get("args", [])), args)
            call_kwargs = fill_call(dict(entry.call.get("kwargs", {})), args)
            return layer(*call_args, **call_kwargs)
        if len(args) == 1:
            return layer(args[0])
        kind = get_type(entry.type)
        return layer(*args) if kind is not None and kind.positional else layer(args)
    except SpecError:
        raise
    except Exception as exc:
        raise _layer_error(entry, exc) from exc


SIZE_KEYS = ("spec.problem.too_many_elements", "spec.problem.too_many_params",
             "spec.problem.too_many_bytes")
_dry = threading.local()


@contextmanager
def _deferred_variables() -> Iterator[None]:
    """Keras variables created in the block are shapes only (``keras.StatelessScope``
    defers their initializers) and are forgotten afterwards, never initialized."""
    import keras
    from keras.src.backend.common import global_state

    before = list(global_state.get_global_attribute("uninitialized_variables") or [])
    _dry.active = True
    try:
        with keras.StatelessScope(initialize_variables=False):
            yield
    finally:
        _dry.active = False
        global_state.set_global_attribute("uninitialized_variables", before)


def _dry_sizes(spec: ModelSpec) -> tuple[dict[str, Any], dict[str, int | None]] | None:
    """Every entry's output shape (no batch axis) and parameter count as Keras has them,
    from a build on symbolic inputs whose variables are never allocated; None when Keras
    rejects the spec (the real build then names the layer)."""
    import math

    try:
        with _deferred_variables():
            built = build_traced(spec, make_model=False)
    except Exception:  # noqa: BLE001 - the real build reports Keras's rejection, located
        return None
    shapes = {name: None if shape is None else tuple(shape)[1:]
              for name, shape in built.shapes.items()}
    params: dict[str, int | None] = {}
    seen: set[int] = set()
    for entry in spec.layers:
        layer = built.layers[entry.name]
        first = id(layer) not in seen
        seen.add(id(layer))
        params[entry.name] = sum(math.prod(int(d) for d in w.shape)
                                 for w in entry_weights(layer)) if first else 0
    return shapes, params


def check_sizes(spec: ModelSpec, param_limit: int | None = None) -> None:
    """Refuse a model over the size limits before anything is allocated: the shapes and
    parameter counts inferred in plain Python, and where a layer has no rule, Keras's own
    from a dry build (variables deferred, never initialized).

    Raises:
        SpecError: ``spec.too_big`` whose ``details`` are the located problems (layer,
            field, limit).
    """
    from tfcore.model.validate import size_problems, validate

    if getattr(_dry, "active", False) or not spec.inputs:
        return
    static = validate(spec, param_limit)
    problems = [p for p in static.problems if p.key in SIZE_KEYS]
    unknown = any(static.shapes.get(e.name) is None or
                  (static.params.get(e.name) is None and not e.shares) for e in spec.layers)
    if not problems and unknown:
        sizes = _dry_sizes(spec)
        if sizes is not None:
            problems = size_problems(spec, {**{i.name: tuple(i.shape) for i in spec.inputs},
                                            **sizes[0]}, sizes[1], param_limit)
    if problems:
        raise SpecError(key="spec.too_big", params={"where": problems[0].where,
                                                     "count": len(problems)},
                        details=list(problems))


def build_traced(spec: ModelSpec, make_model: bool = True,
                 param_limit: int | None = None) -> Built:
    """Build the model and record every entry's layer and output shape, after
    :func:`check_sizes` (nothing is allocated for a model over the limits).

    Args:
        make_model: False skips assembling the Sequential model (``model`` is None) when
            only the layers, shapes and weights are needed (the summary): half the work.
        param_limit: the parameter limit (default ``TFLAB_PARAM_LIMIT``).

    Raises:
        SpecError: ``spec.too_big`` (see :func:`check_sizes`), or naming the first layer
            Keras rejects and its message.
    """
    check_sizes(spec, param_limit)      # refused in plain Python: Keras not even imported
    import keras

    factory = _LayerFactory()
    if spec.kind == FUNCTIONAL:
        return _build_functional(spec, factory, keras)
    shapes: dict[str, Any] = {}
    layers: dict[str, Any] = {}
    if not spec.inputs:  # deferred initialization: no weights until the first call
        for entry in spec.layers:
            layers[entry.name] = factory.get(entry)
            shapes[entry.name] = None
        model = keras.Sequential(list(layers.values()), name=_safe_name(spec.name))
        return Built(model, layers, shapes)
    first = spec.inputs[0]
    if make_model:
        try:
            return _build_sequential_once(spec, keras)
        except SpecError:
            raise
        except Exception:  # noqa: BLE001 - traced below, which names the layer at fault
            factory = _LayerFactory()
    x = keras.Input(shape=tuple(first.shape), dtype=first.dtype, name=first.name)
    for entry in spec.layers:
        layer = factory.get(entry, tuple(x.shape[1:]))
        x = _apply(entry, layer, x)
        layers[entry.name], shapes[entry.name] = layer, tuple(x.shape)
    if make_model:  # the one-pass build failed but every layer accepted its input
        raise SpecError(key="spec.keras_rejected", params={"layer": spec.name, "type": "",
                                                          "message": "Sequential"})
    return Built(None, layers, shapes)


def _build_sequential_once(spec: ModelSpec, keras: Any) -> Built:
    """Sequential in one pass, so each layer has exactly one inbound node (``layer.output``
    works); Keras Applications get their input shape from static inference."""
    from tfcore.model.validate import validate

    static = validate(spec).shapes
    factory, layers = _LayerFactory(), {}
    prev = spec.inputs[0].name
    for entry in spec.layers:
        hint = static.get(prev)
        layers[entry.name] = factory.get(entry, tuple(hint) if hint is not None else None)
        prev = entry.name
    first = spec.inputs[0]
    _prebuild(spec, layers, static)
    model = keras.Sequential(
        [keras.Input(shape=tuple(first.shape), dtype=first.dtype, name=first.name),
         *[layers[e.name] for e in spec.layers]], name=_safe_name(spec.name))
    shapes = _sequential_shapes(spec, layers)
    return Built(model, layers, shapes)


def _prebuild(spec: ModelSpec, layers: dict[str, Any], static: dict[str, Any]) -> None:
    """Build each layer before the Sequential model does, outside the model's name scope,
    so variable paths read ``dense/kernel`` rather than ``mlp/dense/kernel``."""
    prev = spec.inputs[0].name
    for entry in spec.layers:
        layer, hint = layers[entry.name], static.get(prev)
        prev = entry.name
        if layer.built or hint is None:
            continue
        try:
            layer.build((None, *hint))
        except Exception:  # noqa: BLE001 - Keras builds it inside the model instead
            continue


def _sequential_shapes(spec: ModelSpec, layers: dict[str, Any]) -> dict[str, Any]:
    """Each application's output shape, without adding nodes to the layers."""
    import keras

    x = keras.KerasTensor(shape=(None, *spec.inputs[0].shape), dtype=spec.inputs[0].dtype)
    shapes = {}
    for entry in spec.layers:
        x = layers[entry.name].compute_output_spec(x)
        shapes[entry.name] = tuple(x.shape)
    return shapes


def build_model(spec: ModelSpec) -> Any:
    """Build the keras.Model a spec describes.

    Raises:
        SpecError: naming the first layer Keras rejects and its message.
    """
    return build_traced(spec).model


def _build_functional(spec: ModelSpec, factory: _LayerFactory, keras: Any) -> Built:
    tensors: dict[str, Any] = {
        item.name: keras.Input(shape=tuple(item.shape), dtype=item.dtype, name=item.name)
        for item in spec.inputs
    }
    layers: dict[str, Any] = {}
    pending = list(spec.layers)
    while pending:
        ready = [e for e in pending if all(name in tensors for name in e.inputs)
                 and (not e.shares or e.shares in factory.created)]
        if not ready:
            names = ", ".join(e.name for e in pending)
            raise SpecError(key="spec.unreachable",
                            params={"layers": names})
        for entry in ready:
            args = [tensors[name] for name in entry.inputs]
            first = args[0] if args else None
            first_shape = tuple(first.shape[1:]) if hasattr(first, "shape") else None
            layer = factory.get(entry, first_shape)
            tensors[entry.name] = _apply(entry, layer, args, many=True)
            layers[entry.name] = layer
            pending.remove(entry)
    missing = [name for name in spec.outputs if name not in tensors]
    if not spec.outputs or missing:
        raise SpecError(key="spec.bad_outputs", params={"outputs": str(missing)})
    inputs = [tensors[i.name] for i in spec.inputs]
    outputs = [tensors[name] for name in spec.outputs]
    model = keras.Model(inputs=inputs if len(inputs) > 1 else inputs[0],
                        outputs=outputs if len(outputs) > 1 else outputs[0],
                        name=_safe_name(spec.name))
    shapes = {name: _shape_of(tensors[name]) for name in layers}
    return Built(model, layers, shapes)


def _shape_of(tensor: Any) -> Any:
    if isinstance(tensor, (list, tuple)):   # a layer with several outputs: the first
        return _shape_of(tensor[0]) if tensor else None
    return tuple(tensor.shape)


def _safe_name(name: str) -> str:
    cleaned = "".join(c if c.isalnum() or c in "_-." else "_" for c in name).strip("_.")
    return cleaned or "model"
