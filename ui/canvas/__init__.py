"""The model canvas: a Streamlit component of our own (React Flow, bundled in
``frontend/dist``) that draws the builder's spec; every gesture comes back as an event and
is applied as a spec edit (``tfcore.model.canvas_ops``), with undo/redo kept in Python.

Code outside this package imports only the names below (``__all__``).
"""

from __future__ import annotations

from ui.canvas.view import canvas_mode

__all__ = ["canvas_mode"]
