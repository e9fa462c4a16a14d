"""User-written losses and metrics on the Train page, and the code a run carries.

With trusted code on, the saved code of the Custom code page is loaded (once per change)
and its losses and metrics join the Train page's choices. A run that uses a user-written
layer, loss or metric carries the code of those files in its request (``custom_code``);
the worker copies it into the run folder and loads that copy.
"""

from __future__ import annotations

from typing import Any

from tfcore.custom import TYPE_PREFIX, loss_names, metric_names, sources_for
from tfcore.model import ModelSpec
from ui.custom import load_saved_code


def custom_losses() -> list[str]:
    """The loaded user-written losses (loads the saved code first, trusted servers only)."""
    return loss_names() if load_saved_code() else []


def custom_metrics() -> list[str]:
    return metric_names() if load_saved_code() else []


def custom_request(spec: ModelSpec, training: dict[str, Any]) -> dict[str, Any]:
    """``{"custom_code": {file: source}}`` when the run uses user-written code, else {}."""
    types = {e.type for e in spec.all_layers() if e.type.startswith(TYPE_PREFIX)}
    code = sources_for(types, training.get("loss"), tuple(training.get("metrics") or ()))
    return {"custom_code": code} if code else {}
