"""Pieces every page uses: translation, error display, navigation, sidebar, cached
resources, the model picker, form values kept across pages, presenter mode, teacher rights
(destructive actions on a shared server) and the browser's cookies.

Code outside this package imports only the names below (``__all__``).
"""

from __future__ import annotations

from ui.common.chart_axes import STEP_AXIS
from ui.common.chart_cache import cached_chart, frame_digest
from ui.common.columns import counted, fits, fitted, shorten
from ui.common.cookies import browser_cookie, write_cookie
from ui.common.errors import error_text, guarded, located_text, show_error
from ui.common.i18n import (DEFAULT_LANG, catalog, current_lang, init_language, metric_label,
                             pick, t)
from ui.common.memory import choose, kept, owned, recall, remember, remembered
from ui.common.links import leave_links, linked, linked_tabs, reopen_links, url_keeps
from ui.common.model_picker import CURRENT_SPEC_KEY, open_linked_model, pick_model
from ui.common.nav import PAGES, available_pages
from ui.common.palette import CLASS_COLORS, class_color, class_colors
from ui.common.recent_runs import recent_table
from ui.common.router import APP_ICON, page_sections
from ui.common.resources import (
    devices_now,
    devices_report,
    preload_tensorflow,
    rerun_when_tensorflow_loads,
    run_store,
    tensorflow_loaded,
    tensorflow_ready,
    versions_report,
    warm_worker,
    workspace,
)
from ui.common.rights import can_destroy, server_is_loopback, teacher_login, teacher_password
from ui.common.script_hooks import disable_keras_reset, keras_reset_disabled
from ui.common.sidebar import presenter_mode
from ui.common.sidebar import render as render_sidebar
from ui.common.text import NO_VALUE, plain, plain_params
from ui.common.st_compat import protocol_messages
from ui.common.widgets import choose_placeholder

disable_keras_reset()       # Streamlit's per-run keras.backend.clear_session() (script_hooks)

__all__ = [
    "APP_ICON",
    "CLASS_COLORS",
    "browser_cookie",
    "write_cookie",
    "protocol_messages",
    "CURRENT_SPEC_KEY",
    "DEFAULT_LANG",
    "NO_VALUE",
    "PAGES",
    "STEP_AXIS",
    "available_pages",
    "page_sections",
    "cached_chart",
    "counted",
    "choose_placeholder",
    "can_destroy",
    "catalog",
    "current_lang",
    "devices_now",
    "devices_report",
    "disable_keras_reset",
    "fits",
    "fitted",
    "frame_digest",
    "guarded",
    "init_language",
    "kept",
    "choose",
    "class_color",
    "class_colors",
    "owned",
    "linked",
    "linked_tabs",
    "url_keeps",
    "keras_reset_disabled",
    "error_text",
    "located_text",
    "metric_label",
    "open_linked_model",
    "pick",
    "pick_model",
    "plain",
    "plain_params",
    "preload_tensorflow",
    "presenter_mode",
    "recall",
    "recent_table",
    "remember",
    "remembered",
    "leave_links",
    "reopen_links",
    "run_store",
    "server_is_loopback",
    "shorten",
    "show_error",
    "render_sidebar",
    "rerun_when_tensorflow_loads",
    "t",
    "teacher_login",
    "teacher_password",
    "tensorflow_loaded",
    "tensorflow_ready",
    "versions_report",
    "warm_worker",
    "workspace",
]
