"""Pieces every page uses: translation, error display, navigation, sidebar, cached
resources, the model picker, form values kept across pages, presenter mode and teacher rights
(destructive actions on a shared server).

Code outside this package imports only the names below (``__all__``).
"""

from __future__ import annotations

from ui.common import sidebar
from ui.common.errors import guarded, located_text, show_error
from ui.common.i18n import DEFAULT_LANG, catalog, current_lang, init_language, pick, t
from ui.common.memory import forget, kept, recall, remember, remembered
from ui.common.model_picker import CURRENT_SPEC_KEY, pick_model
from ui.common.nav import PAGES, available_pages
from ui.common.resources import (
    devices_report,
    run_store,
    tensorflow_ready,
    versions_report,
    warm_worker,
    workspace,
)
from ui.common.rights import can_destroy, server_is_loopback, teacher_login, teacher_password
from ui.common.sidebar import presenter_mode
from ui.common.text import plain, plain_params

__all__ = [
    "available_pages", "catalog", "current_lang", "CURRENT_SPEC_KEY", "DEFAULT_LANG",
    "devices_report", "forget", "guarded", "init_language", "kept", "located_text", "PAGES", "pick",
    "pick_model", "plain", "plain_params", "presenter_mode", "recall", "remember", "remembered",
    "run_store",
    "can_destroy", "server_is_loopback", "teacher_login", "teacher_password",
    "show_error", "sidebar", "t", "tensorflow_ready", "versions_report", "warm_worker", "workspace",
]
