"""The runs and checkpoints page: comparison charts, run detail, checkpoint browser, actions.

Code outside this package imports only the names below (``__all__``).
"""

from __future__ import annotations

from ui.runs.tensorboard_button import open_button as open_tensorboard_button
from ui.runs.actions import deleted_notice, export_tab, foreign_panel, manage_tab, restore_tab
from ui.runs.code_check import code_panel
from ui.runs.conv_tab import filters_tab
from ui.runs.detail import (
    checkpoints_tab,
    config_tab,
    curves_tab,
    diff_tab,
    listing_for,
    variables_tab,
)
from ui.runs.panels import compare_panel, filters, run_label
from ui.runs.table import runs_table

__all__ = [
    "checkpoints_tab", "code_panel", "compare_panel", "config_tab", "curves_tab", "diff_tab",
    "deleted_notice", "export_tab", "filters", "filters_tab", "foreign_panel", "listing_for",
    "manage_tab",
    "restore_tab", "run_label", "runs_table", "open_tensorboard_button", "variables_tab",
]
