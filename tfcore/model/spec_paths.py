"""Where a layer sits in nested blocks: the *path* of a container is the tuple of ``Block``
names from the top level down (``()``: the model's own layer list). Used by
:mod:`tfcore.model.spec_ops`, whose edits take such paths."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from tfcore.errors import SpecError
from tfcore.model.spec import LayerSpec, ModelSpec

BLOCK = "Block"


def _located(key: str, where: str, /, **params: Any) -> SpecError:
    error = SpecError(key=key, params={"where": where, **params})
    error.details = [error.message]
    return error


def _where(path: tuple[str, ...]) -> str:
    return "/".join(path) or "model"


def block_children(spec: ModelSpec, path: tuple[str, ...] | list[str] = ()) -> tuple[
        LayerSpec, ...]:
    """The layers of the container at ``path`` (``()``: the model's top level).

    Raises:
        SpecError: ``spec.no_block`` when a name on the path is not a Block there.
    """
    entries = spec.layers
    for depth, name in enumerate(path):
        found = next((e for e in entries if e.name == name), None)
        if found is None or found.type != BLOCK or found.shares:
            raise _located("spec.no_block", _where(tuple(path[:depth + 1])), block=name)
        entries = found.layers
    return entries


def path_of(spec: ModelSpec, name: str) -> tuple[str, ...]:
    """The path of the container that holds the layer ``name`` (``()``: top level).

    Raises:
        SpecError: ``spec.no_layer`` when no layer has that name.
    """
    def walk(entries: tuple[LayerSpec, ...], path: tuple[str, ...]) -> tuple[str, ...] | None:
        for entry in entries:
            if entry.name == name:
                return path
            found = walk(entry.layers, path + (entry.name,))
            if found is not None:
                return found
        return None

    found = walk(spec.layers, ())
    if found is None:
        raise SpecError(key="spec.no_layer", params={"layer": name})
    return found


def with_children(spec: ModelSpec, path: tuple[str, ...],
                  children: tuple[LayerSpec, ...]) -> ModelSpec:
    """The spec with the container at ``path`` holding ``children`` instead."""
    block_children(spec, path)  # raises on a bad path

    def swap(entries: tuple[LayerSpec, ...], rest: tuple[str, ...]) -> tuple[LayerSpec, ...]:
        if not rest:
            return tuple(children)
        return tuple(replace(e, layers=swap(e.layers, rest[1:])) if e.name == rest[0] else e
                     for e in entries)

    return replace(spec, layers=swap(spec.layers, tuple(path)))


def _map_entries(spec: ModelSpec, fix: Any) -> ModelSpec:
    def walk(entries: tuple[LayerSpec, ...]) -> tuple[LayerSpec, ...]:
        return tuple(replace(fix(e), layers=walk(e.layers)) for e in entries)

    return replace(spec, layers=walk(spec.layers))

