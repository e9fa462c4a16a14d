"""User-written layers, losses and metrics (scenarios M7, M8, B2, B9).

A person writes Keras classes in ``<workspace>/custom/<name>.py`` (starting from the
tutorials' templates); saving checks the source without running it; loading runs it, on a
server started with ``TFLAB_TRUSTED_CODE=1`` only, and makes its layers catalog types
(``custom.<Class>``) and its losses and metrics Train-page choices. A run copies the code
it uses into its own folder (``<run>/custom/``) and the worker loads that copy;
``run_code_changes`` says which of those copies the workspace no longer has as the run
used them, and ``restore_run_code`` puts them back.

Code outside this package imports only the names below (``__all__``).
"""

from __future__ import annotations

from tfcore.custom.loader import (
    PACKAGE,
    TYPE_PREFIX,
    LoadedClass,
    LoadedCode,
    current,
    load_sources,
    load_workspace,
    prepare_run,
    sources_for,
)
from tfcore.custom.objects import loss_names, make_custom_loss, make_custom_metric, metric_names
from tfcore.custom.runcode import (
    CodeChange,
    restore_run_code,
    run_code_changes,
    run_code_names,
    run_code_stamp,
)
from tfcore.custom.store import (
    KINDS,
    TRUSTED_ENV,
    ClassInfo,
    CustomCodeError,
    check_name,
    delete_code,
    inspect_source,
    list_codes,
    read_code,
    save_code,
    trusted_code_enabled,
)
from tfcore.custom.templates import TEMPLATES, Template
from tfcore.custom.trial import TrialResult, ensure_loaded, parse_shape, try_class

__all__ = [
    "check_name", "ClassInfo", "CodeChange", "current", "CustomCodeError", "delete_code",
    "ensure_loaded",
    "inspect_source", "parse_shape", "TrialResult", "try_class",
    "KINDS", "list_codes", "load_sources", "load_workspace", "LoadedClass", "LoadedCode",
    "loss_names", "make_custom_loss", "make_custom_metric", "metric_names", "PACKAGE",
    "prepare_run", "read_code", "restore_run_code", "run_code_changes", "run_code_names",
    "run_code_stamp", "save_code", "sources_for", "Template", "TEMPLATES",
    "TRUSTED_ENV", "trusted_code_enabled", "TYPE_PREFIX",
]
