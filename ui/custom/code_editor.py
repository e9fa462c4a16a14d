"""The code editor component: CodeMirror 6 (monospace, line numbers, Python highlighting,
Tab indents, read-only mode) in an iframe.

Built assets live in ``frontend/dist`` (committed; nothing is fetched at run time;
``make code-editor`` rebuilds them from ``frontend/src``). The page owns the text: it sends
``value`` with a generation number ``gen`` and bumps ``gen`` whenever it replaces the text
(a template, a file); the editor sends back ``{"text", "gen"}`` a moment after typing
stops and when it loses focus. A text typed into an older generation is ignored.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import streamlit.components.v1 as components

FRONTEND = Path(__file__).resolve().parent / "frontend"
DIST = FRONTEND / "dist"

_component = components.declare_component("tflab_code_editor", path=str(DIST))


def code_editor(value: str, gen: int, *, key: str, label: str, read_only: bool = False,
                height: int = 420) -> str | None:
    """Draw the editor holding ``value``; return the text typed into generation ``gen``,
    or ``None`` when nothing was typed into it yet."""
    sent = _component(value=value, gen=int(gen), read_only=bool(read_only), height=int(height),
                      label=label, key=key, default=None)
    return typed_text(sent, gen)


def typed_text(sent: Any, gen: int) -> str | None:
    """The text of the editor's value ``sent`` when it belongs to generation ``gen``."""
    if not isinstance(sent, dict) or sent.get("gen") != gen:
        return None
    text = sent.get("text")
    return text if isinstance(text, str) else None
