"""Pieces every page uses: translation, error display, navigation, sidebar, cached
resources and the model picker.

Code outside this package imports only the names below (``__all__``).
"""

from __future__ import annotations

from ui.common import sidebar
from ui.common.errors import guarded, show_error
from ui.common.i18n import DEFAULT_LANG, catalog, current_lang, init_language, pick, t
from ui.common.model_picker import CURRENT_SPEC_KEY, pick_model
from ui.common.nav import PAGES, available_pages
from ui.common.resources import (
    devices_report,
    run_store,
    tensorflow_ready,
    versions_report,
    workspace,
)

__all__ = [
    "available_pages", "catalog", "current_lang", "CURRENT_SPEC_KEY", "DEFAULT_LANG",
    "devices_report", "guarded", "init_language", "PAGES", "pick", "pick_model", "run_store",
    "show_error", "sidebar", "t", "tensorflow_ready", "versions_report", "workspace",
]
