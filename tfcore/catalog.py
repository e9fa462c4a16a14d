"""Registries of what a spec may name: layer types (more to come with the builder)."""

from __future__ import annotations

from typing import Any, Sequence

from tfcore.errors import SpecError
from tfcore.spec import LayerSpec


def create_layer(entry: LayerSpec, children: Sequence[Any] = ()) -> Any:
    """Create the Keras layer of one spec entry."""
    import keras

    config = dict(entry.config)
    if entry.type == "Block":
        return keras.Sequential(list(children), name=entry.name)
    cls = getattr(keras.layers, entry.type, None)
    if cls is None:
        raise SpecError(f"Unknown layer type {entry.type!r} for layer {entry.name!r}.",
                        key="spec.unknown_type", params={"layer": entry.name,
                                                         "type": entry.type})
    return cls(name=entry.name, **config)
