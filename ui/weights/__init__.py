"""The weights lab: panels, actions and charts.

Code outside this package imports only the names below (``__all__``).
"""

from __future__ import annotations

from ui.weights.actions import current_spec, spec_model
from ui.weights.panels import (
    activations_panel,
    choose_variable,
    deferred_panel,
    edit_panel,
    files_panel,
    init_panel,
    inspector,
    overview,
    pick_run,
    variable_table,
)
from ui.weights.path_browser import path_browser

__all__ = [
    "activations_panel", "choose_variable", "current_spec", "deferred_panel", "edit_panel",
    "files_panel", "init_panel", "inspector", "overview", "path_browser", "pick_run",
    "spec_model", "variable_table",
]
