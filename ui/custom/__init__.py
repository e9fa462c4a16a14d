"""The Custom code page: write, check, save, load and try user-written layers, losses and
metrics (scenarios M7, M8, B2, B9).

Code outside this package imports only the names below (``__all__``).
"""

from __future__ import annotations

from ui.custom.editor import custom_code_page, load_saved_code

__all__ = ["custom_code_page", "load_saved_code"]
