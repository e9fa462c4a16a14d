"""The canvas component: built assets in ``frontend/dist`` (committed; no npm and nothing
fetched at run time). ``frontend/`` holds the sources: ``npm ci && npm run build`` there
rebuilds ``dist``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import streamlit.components.v1 as components

DIST = Path(__file__).resolve().parent / "frontend" / "dist"
KEY = "canvas.events"

_component = components.declare_component("tflab_model_canvas", path=str(DIST))


def model_canvas(**args: Any) -> Any:
    """Draw the canvas with ``args`` (graph, palette, labels, selected, rev, ack, ...);
    return its last value: ``{"token", "events": [...]}`` or None."""
    return _component(key=KEY, default=None, **args)
