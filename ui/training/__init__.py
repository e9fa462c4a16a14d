"""The Train page: the setup form (kept across pages, mirrored in the URL, checked against
the dataset), the live panel and its charts.

Code outside this package imports only the names below (``__all__``).
"""

from __future__ import annotations

from ui.training.form import FormResult, setup_form
from ui.training.live import empty_panel, live_panel, mark_started
from ui.training.run_picker import RUN_KEY, run_picker, watched_run

__all__ = [
    "empty_panel", "FormResult", "live_panel", "mark_started", "RUN_KEY", "run_picker",
    "setup_form", "watched_run",
]
