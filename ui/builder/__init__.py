"""The model builder page: spec editor, parameter fields, diagram, summary/code/import panels.

Code outside this package imports only the names below (``__all__``).
"""

from __future__ import annotations

from ui.builder import panels
from ui.builder.editor import (
    DRAFT,
    header_editor,
    inputs_editor,
    layers_editor,
    outputs_editor,
    replace_draft,
)
from ui.builder.fields import labels

__all__ = [
    "DRAFT", "header_editor", "inputs_editor", "labels", "layers_editor", "outputs_editor",
    "panels", "replace_draft",
]
