"""The runs and checkpoints page: comparison charts, run detail, checkpoint browser, actions.

Code outside this package imports only the names below (``__all__``).
"""

from __future__ import annotations

from ui.runs import actions, code_check, detail, panels, tensorboard_button

__all__ = [
    "actions", "code_check", "detail", "panels", "tensorboard_button",
]
