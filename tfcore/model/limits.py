"""Limits a spec must respect before any work is done on it, each refused with a located
message (which field, the value, the limit) in well under a second.

* JSON nesting depth, measured by a flat scan of the text (no recursion, so a document
  nested 100,000 deep costs one pass and no ``RecursionError``);
* the number of layer entries (nested blocks included), counted without recursion;
* the elements of one example of an input (and of every inferred layer output);
* the bytes a model needs: its weights plus one example's output of every layer, as
  float32 (``MAX_MODEL_BYTES``, checked with the parameter limit in ``validate``).
"""

from __future__ import annotations

import re
from typing import Any, Mapping

from tfcore import settings
from tfcore.errors import SpecError

MAX_JSON_DEPTH = 64
MAX_LAYERS = settings.max_layers()                      # read once, at import
MAX_EXAMPLE_ELEMENTS = settings.max_example_elements()
MIB = 1024**2
MAX_MODEL_BYTES = settings.max_model_mb() * MIB     # weights + one example's outputs, float32
MAX_SPEC_CHARS = 20 * 1024**2
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_BRACKET = re.compile(r"[\[\]{}]")


def json_depth(text: str) -> tuple[int, int]:
    """(deepest nesting of arrays/objects, character offset where it is reached)."""
    stripped = _STRING.sub(lambda m: " " * len(m.group(0)), text)
    depth = deepest = where = 0
    for match in _BRACKET.finditer(stripped):
        if match.group(0) in "[{":
            depth += 1
            if depth > deepest:
                deepest, where = depth, match.start()
        else:
            depth -= 1
    return deepest, where


def check_json_text(text: str) -> None:
    """Refuse JSON text that is too long or nested too deep, before parsing it.

    Raises:
        SpecError: ``spec.too_long`` or ``spec.too_deep`` with line and column.
    """
    if len(text) > MAX_SPEC_CHARS:
        raise SpecError(key="spec.too_long",
                        params={"length": f"{len(text):,}", "limit": f"{MAX_SPEC_CHARS:,}"})
    depth, where = json_depth(text)
    if depth > MAX_JSON_DEPTH:
        line = text.count("\n", 0, where) + 1
        col = where - (text.rfind("\n", 0, where) + 1) + 1
        raise SpecError(key="spec.too_deep",
                        params={"depth": depth, "limit": MAX_JSON_DEPTH, "line": line,
                                "col": col})


def data_depth(data: Any) -> int:
    """Nesting depth of parsed data (lists and mappings), iteratively; stops past the limit."""
    deepest, stack = 0, [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, Mapping):
            children = list(value.values())
        elif isinstance(value, (list, tuple)):
            children = list(value)
        else:
            continue
        deepest = max(deepest, depth)
        if deepest > MAX_JSON_DEPTH:
            return deepest
        stack.extend((child, depth + 1) for child in children)
    return deepest


def check_data(data: Mapping[str, Any]) -> None:
    """Refuse a parsed document nested too deep or with too many layer entries.

    Raises:
        SpecError: ``spec.too_deep`` or ``spec.too_many_layers`` (the count and the limit).
    """
    depth = data_depth(data)
    if depth > MAX_JSON_DEPTH:
        raise SpecError(key="spec.too_deep",
                        params={"depth": depth, "limit": MAX_JSON_DEPTH, "line": "-",
                                "col": "-"})
    count, stack = 0, [data.get("layers")]
    while stack:
        layers = stack.pop()
        if not isinstance(layers, list):
            continue
        count += len(layers)
        if count > MAX_LAYERS:
            break
        stack.extend(entry.get("layers") for entry in layers if isinstance(entry, Mapping))
    if count > MAX_LAYERS:
        raise SpecError(key="spec.too_many_layers",
                        params={"count": f"{count:,}", "limit": f"{MAX_LAYERS:,}"})


def elements(shape: Any) -> int | None:
    """Elements of one example of ``shape`` (no batch axis); None when a dimension is
    unknown or the shape is not a tuple of sizes."""
    if not isinstance(shape, (tuple, list)):
        return None
    total = 1
    for dim in shape:
        if not isinstance(dim, int) or isinstance(dim, bool):
            return None
        total *= dim
    return total
