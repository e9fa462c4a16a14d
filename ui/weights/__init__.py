"""The weights lab: panels, actions and charts.

Code outside this package imports only the names below (``__all__``).
"""

from __future__ import annotations

from ui.weights import actions, panels, path_browser

__all__ = [
    "actions", "panels", "path_browser",
]
