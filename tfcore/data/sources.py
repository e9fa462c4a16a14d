"""Dataset sources behind :mod:`tfcore.data`: a registry instead of an if-chain.

Fixed names (``digits28`` ...) map to a :class:`Source`; prefixed names (``tfds:``,
``upload:csv:`` ...) map to a :class:`PrefixSource` that receives the rest of the name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

from tfcore.data import builtin
from tfcore.data.base import RawData


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


def _t(en: str, zh: str) -> dict[str, str]:
    return {"en": en, "zh": zh}


SOURCES: dict[str, Source] = {s.name: s for s in (
    Source("digits28", _t("Digits 28x28 (scikit-learn, resized)", "手写数字 28x28（scikit-learn，放大）"),
           "image", "classification", builtin.load_digits28),
    Source("digits8", _t("Digits 8x8 (scikit-learn)", "手写数字 8x8（scikit-learn）"),
           "image", "classification", builtin.load_digits8),
    Source("house_prices", _t("House prices 2013-2017 (M1)", "房价 2013-2017（M1）"),
           "table", "regression", builtin.load_house_prices),
    Source("circles", _t("Circles (2-D)", "圆环（二维）"), "points", "classification",
           builtin.load_circles, builtin.POINT_OPTIONS),
    Source("xor", _t("XOR (2-D)", "异或（二维）"), "points", "classification",
           builtin.load_xor, builtin.POINT_OPTIONS),
    Source("spirals", _t("Spirals (2-D)", "螺旋（二维）"), "points", "classification",
           builtin.load_spirals, builtin.POINT_OPTIONS),
    Source("blobs", _t("Gaussian blobs (2-D)", "高斯团簇（二维）"), "points", "classification",
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
