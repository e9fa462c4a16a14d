"""Spec -> keras.Model.

Layers are created through :func:`tfcore.catalog.create_layer`; an entry with
``shares`` re-applies the already-created layer of another entry (tied weights).
"""

from __future__ import annotations

from typing import Any

from tfcore.devices import quiet_tensorflow
from tfcore.errors import SpecError
from tfcore.spec import FUNCTIONAL, LayerSpec, ModelSpec

quiet_tensorflow()


def _layer_error(entry: LayerSpec, exc: Exception) -> SpecError:
    message = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return SpecError(f"Layer {entry.name!r} ({entry.type}): {message}",
                     key="spec.keras_rejected",
                     params={"layer": entry.name, "type": entry.type, "message": message},
                     details=[f"{entry.name}: {message}"])


class _LayerFactory:
    """Creates each layer once; ``shares`` entries get the owner's layer object."""

    def __init__(self) -> None:
        self.created: dict[str, Any] = {}

    def get(self, entry: LayerSpec) -> Any:
        from tfcore.catalog import create_layer

        owner = entry.shares or entry.name
        if owner not in self.created:
            if entry.shares:
                raise SpecError(
                    f"Layer {entry.name!r} shares {entry.shares!r}, which is not defined "
                    "before it.", key="spec.share_order",
                    params={"layer": entry.name, "shares": entry.shares})
            children = [self.get(child) for child in entry.layers]
            try:
                self.created[owner] = create_layer(entry, children)
            except SpecError:
                raise
            except Exception as exc:  # Keras rejects a value: attribute it to the layer
                raise _layer_error(entry, exc) from exc
        return self.created[owner]


def build_model(spec: ModelSpec) -> Any:
    """Build the keras.Model a spec describes.

    Raises:
        SpecError: naming the first layer Keras rejects and its message.
    """
    import keras

    factory = _LayerFactory()
    if spec.kind == FUNCTIONAL:
        return _build_functional(spec, factory, keras)
    model = keras.Sequential(name=_safe_name(spec.name))
    if spec.inputs:
        first = spec.inputs[0]
        model.add(keras.Input(shape=tuple(first.shape), dtype=first.dtype, name=first.name))
    for entry in spec.layers:
        layer = factory.get(entry)
        try:
            model.add(layer)
        except Exception as exc:
            raise _layer_error(entry, exc) from exc
    return model


def _build_functional(spec: ModelSpec, factory: _LayerFactory, keras: Any) -> Any:
    tensors: dict[str, Any] = {
        item.name: keras.Input(shape=tuple(item.shape), dtype=item.dtype, name=item.name)
        for item in spec.inputs
    }
    pending = list(spec.layers)
    while pending:
        ready = [e for e in pending if all(name in tensors for name in e.inputs)
                 and (not e.shares or e.shares in factory.created or
                      any(o.name == e.shares for o in spec.layers if o.name in tensors))]
        if not ready:
            names = ", ".join(e.name for e in pending)
            raise SpecError(f"Layers {names} cannot be reached from the inputs "
                            "(missing input or a cycle).", key="spec.unreachable",
                            params={"layers": names})
        for entry in ready:
            layer = factory.get(entry)
            args = [tensors[name] for name in entry.inputs]
            try:
                tensors[entry.name] = layer(args if len(args) > 1 else args[0])
            except Exception as exc:
                raise _layer_error(entry, exc) from exc
            pending.remove(entry)
    missing = [name for name in spec.outputs if name not in tensors]
    if not spec.outputs or missing:
        raise SpecError(f"Outputs {missing or '[]'} are not layers of the model.",
                        key="spec.bad_outputs", params={"outputs": str(missing)})
    inputs = [tensors[i.name] for i in spec.inputs]
    outputs = [tensors[name] for name in spec.outputs]
    return keras.Model(inputs=inputs if len(inputs) > 1 else inputs[0],
                       outputs=outputs if len(outputs) > 1 else outputs[0],
                       name=_safe_name(spec.name))


def _safe_name(name: str) -> str:
    cleaned = "".join(c if c.isalnum() or c in "_-" else "_" for c in name).strip("_")
    return cleaned or "model"
