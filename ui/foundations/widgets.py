"""Widget helpers of the foundations pages."""

from __future__ import annotations

from typing import Callable

from ui.common import DEFAULT_LANG, catalog, current_lang


def labels(prefix: str) -> Callable[[object], str]:
    """A ``format_func`` showing ``t(f"{prefix}.{option}")`` in the language of this run.

    The language is bound when the widget is made, not when the function is called:
    AppTest calls ``format_func`` outside the script run, where the session's language is
    not readable, and would otherwise mix English labels into a Chinese page.
    """
    own, fallback = catalog(current_lang()), catalog(DEFAULT_LANG)

    def fmt(option: object) -> str:
        key = f"{prefix}.{option}"
        return own.get(key) or fallback.get(key) or str(option)
    return fmt
