"""Dataset sources behind :mod:`tfcore.data`: a registry instead of an if-chain.

Fixed names (``digits28`` ...) map to a :class:`Source`; prefixed names (``tfds:``,
``upload:csv:`` ...) map to a :class:`PrefixSource` that receives the rest of the name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

from tfcore.data import builtin
from tfcore.data.base import RawData
from tfcore.messages import Text


@dataclass(frozen=True)
class Source:
    """A named dataset: title in both languages, kind, task and its loader."""

    name: str
    title: Mapping[str, str]
    kind: str
    task: str
    loader: Callable[[str, Mapping[str, Any], int], RawData]
    options: tuple[str, ...] = ()
    description: Mapping[str, str] | None = None


@dataclass(frozen=True)
class PrefixSource:
    """A family of datasets addressed as ``<prefix><argument>``."""

    prefix: str
    title: Mapping[str, str]
    loader: Callable[[str, str, Mapping[str, Any], int], RawData]
    # A string that changes when the underlying files change (cache key part).
    fingerprint: Callable[[str, Mapping[str, Any]], str] = lambda arg, options: ""


SOURCES: dict[str, Source] = {s.name: s for s in (
    Source("digits28", Text("data.title.digits28"),
           "image", "classification", builtin.load_digits28),
    Source("digits8", Text("data.title.digits8"),
           "image", "classification", builtin.load_digits8),
    Source("house_prices", Text("data.title.house_prices"),
           "table", "regression", builtin.load_house_prices),
    Source("circles", Text("data.title.circles"), "points", "classification",
           builtin.load_circles, builtin.POINT_OPTIONS),
    Source("xor", Text("data.title.xor"), "points", "classification",
           builtin.load_xor, builtin.POINT_OPTIONS),
    Source("spirals", Text("data.title.spirals"), "points", "classification",
           builtin.load_spirals, builtin.POINT_OPTIONS),
    Source("moons", Text("data.title.moons"), "points", "classification",
           builtin.load_moons, builtin.POINT_OPTIONS),
    Source("blobs", Text("data.title.blobs"), "points", "classification",
           builtin.load_blobs, builtin.POINT_OPTIONS + ("classes",)),
)}

PREFIXES: dict[str, PrefixSource] = {}


def register_prefix(source: PrefixSource) -> None:
    PREFIXES[source.prefix] = source


def find_prefix(name: str) -> tuple[PrefixSource, str] | None:
    """The prefix source for ``name`` and the rest of the name, or None."""
    for prefix in sorted(PREFIXES, key=len, reverse=True):
        if name.startswith(prefix):
            return PREFIXES[prefix], name[len(prefix):]
    return None
