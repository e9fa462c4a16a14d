"""The engine's message catalogs: one English and one Chinese text per key, no Streamlit.

Catalogs live in ``tfcore/locales/<lang>/<area>.json`` (flat ``key: text`` maps, the same
keys in both languages; a test checks). The engine raises errors and names its layers,
presets and datasets by key (:class:`Text`); the English rendering is the error's
``message`` and the CLI's output, the dashboard renders the key in the reader's language
(``ui.common.i18n`` merges these catalogs with its own).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterator, Mapping

LOCALES_DIR = Path(__file__).resolve().parent / "locales"
LANGUAGES = ("en", "zh")
DEFAULT_LANG = "en"
SEPARATORS = {"en": ", ", "zh": "\u3001"}     # between the items of a list parameter


@lru_cache(maxsize=None)
def catalog(lang: str) -> Mapping[str, str]:
    """All engine keys of one language, merged from its area files."""
    merged: dict[str, str] = {}
    for path in sorted((LOCALES_DIR / lang).glob("*.json")):
        merged.update(json.loads(path.read_text(encoding="utf-8")))
    return merged


def render(key: str, params: Mapping[str, Any] | None = None,
           lang: str = DEFAULT_LANG) -> str | None:
    """The text of ``key`` in ``lang`` (English when that language lacks it) formatted with
    ``params`` (a :class:`Text` among them rendered in ``lang`` too); None when no catalog
    has the key or the params do not fit its text."""
    text = catalog(lang).get(key)
    if text is None:
        text = catalog(DEFAULT_LANG).get(key)
    if text is None:
        return None
    shown = {k: shown_value(v, lang) for k, v in (params or {}).items()}
    try:
        return text.format(**shown)             # a text with placeholders needs its params
    except (KeyError, IndexError, ValueError):
        return None


class Names(str):
    """A list parameter of names (choices, columns, layers): its ``items``, shown joined with
    the language's list separator (a comma; the ideographic comma in Chinese). As a string it
    is the English join, so a JSON file of plain values (``status.json``) can hold it."""

    items: tuple[str, ...]

    def __new__(cls, items: Any) -> "Names":
        items = tuple(str(item) for item in items)
        made = super().__new__(cls, SEPARATORS[DEFAULT_LANG].join(items))
        made.items = items
        return made

    def __getnewargs__(self) -> tuple:
        return (self.items,)


def names(items: Any) -> Names:
    """``items`` as a :class:`Names` parameter (each item as text)."""
    return Names(items)


def shown_value(value: Any, lang: str) -> Any:
    """A parameter as a message shows it: a :class:`Text` rendered in ``lang``, a
    :class:`Names` joined with the language's list separator, anything else as is."""
    if isinstance(value, Text):
        return value[lang]
    if isinstance(value, Names):
        return SEPARATORS.get(lang, ", ").join(value.items)
    return value


def plain_params(params: Mapping[str, Any], lang: str = DEFAULT_LANG) -> dict[str, Any]:
    """Parameters reduced to plain values (for a JSON file that takes only scalars): names
    joined, texts rendered in ``lang``, other lists as Python writes them; numbers, strings,
    booleans and None kept."""
    return {k: v if v is None or isinstance(v, (str, int, float, bool)) else
            str(shown_value(v, lang)) for k, v in params.items()}


@dataclass(frozen=True)
class Text(Mapping[str, str]):
    """A translatable text the engine hands out: a catalog key and its parameters.

    It reads like the ``{"en": ..., "zh": ...}`` map it replaces (``text["zh"]``,
    ``dict(text)``), so readers that index by language keep working; the dashboard renders
    ``key`` with ``params`` through its translation function.
    """

    key: str
    params: Mapping[str, Any] = field(default_factory=dict, hash=False)

    def __getitem__(self, lang: str) -> str:
        if lang not in LANGUAGES:
            raise KeyError(lang)
        shown = render(self.key, self.params, lang)
        return self.key if shown is None else shown

    def __iter__(self) -> Iterator[str]:
        return iter(LANGUAGES)

    def __len__(self) -> int:
        return len(LANGUAGES)

    def __str__(self) -> str:
        return self[DEFAULT_LANG]
