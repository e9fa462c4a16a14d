"""The eager-vs-graph page: timing panels, charts, tracing and AutoGraph labs.

Code outside this package imports only the names below (``__all__``).
"""

from __future__ import annotations

from ui.timing.labs import autograph_panel, tracing_panel
from ui.timing.panels import compare_panel, g1_panel, sweep_panel

__all__ = [
    "autograph_panel", "compare_panel", "g1_panel", "sweep_panel", "tracing_panel",
]
