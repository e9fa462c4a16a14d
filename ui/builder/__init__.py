"""The model builder page: spec editor, parameter fields, nested blocks, diagram,
summary/code/import panels and the "Try it" panel.

Code outside this package imports only the names below (``__all__``).
"""

from __future__ import annotations

from ui.builder.blocks import breadcrumb as block_breadcrumb
from ui.builder.blocks import error_text as block_error_text
from ui.builder.blocks import open_path as open_block_path
from ui.builder.blocks import set_open as set_open_block
from ui.builder.editor import (
    DRAFT,
    header_editor,
    inputs_editor,
    layers_editor,
    outputs_editor,
    problem_text,
    replace_draft,
)
from ui.builder.drafts import (ask_load, autosave_draft, confirm_load, mark_saved,
                               open_linked_preset, restore_draft)
from ui.builder.fields import config_form, labels
from ui.builder.panels import (
    code_tab,
    deferred_panel,
    diagram,
    io_tab,
    problems_panel,
    save_tab,
    summary_table,
)
from ui.builder.try_panel import try_panel

__all__ = [
    "config_form", "DRAFT", "header_editor", "inputs_editor", "labels", "layers_editor",
    "outputs_editor", "problem_text", "replace_draft", "try_panel",
    "block_breadcrumb", "block_error_text", "open_block_path", "set_open_block",
    "code_tab", "deferred_panel", "diagram", "io_tab", "problems_panel", "save_tab",
    "summary_table", "ask_load", "autosave_draft", "confirm_load", "mark_saved",
    "open_linked_preset", "restore_draft",
]
