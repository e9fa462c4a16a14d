"""The weights lab: panels, actions and charts (the conv filter and image grids are also
the Runs page's).

Code outside this package imports only the names below (``__all__``).
"""

from __future__ import annotations

from ui.weights.actions import current_spec, spec_model
from ui.weights.charts import (
    diverging_scale,
    filter_frame,
    filter_grid_chart,
    grid_chart,
    image_frame,
    reduce_matrix,
)
from ui.weights.panels import (
    activations_panel,
    choose_variable,
    deferred_panel,
    edit_panel,
    files_panel,
    forget_run_link,
    init_panel,
    inspector,
    open_linked_run,
    overview,
    pick_run,
    variable_table,
)
from ui.weights.path_browser import path_browser

__all__ = [
    "activations_panel", "choose_variable", "current_spec", "deferred_panel",
    "diverging_scale", "edit_panel", "files_panel", "filter_frame", "filter_grid_chart",
    "forget_run_link", "grid_chart", "image_frame", "init_panel", "inspector",
    "open_linked_run", "overview", "path_browser", "pick_run", "reduce_matrix", "spec_model",
    "variable_table",
]
