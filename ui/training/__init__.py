"""The Train page: the setup form, the live panel and its charts.

Code outside this package imports only the names below (``__all__``).
"""

from __future__ import annotations

from ui.training.form import setup_form
from ui.training.live import BUFFER_KEY, RUN_KEY, live_panel

__all__ = [
    "BUFFER_KEY", "live_panel", "RUN_KEY", "setup_form",
]
