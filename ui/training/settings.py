"""A Train-page widget for one numeric setting of ``tfcore.training.SETTINGS``: the range,
step and default are the engine's, so the form cannot offer what a run would refuse."""

from __future__ import annotations

from typing import Any

from tfcore.training import SETTINGS
from ui.common import kept


def setting_input(where: Any, name: str, label: str, key: str, **kwargs: Any) -> Any:
    """A number input (a slider when the setting has a float step) with the range, step and
    default of ``SETTINGS[name]``, its value kept across pages. ``where``: ``st`` or a
    column."""
    setting = SETTINGS[name]
    if setting.kind is float and setting.step:
        return kept(where.slider, label, setting.low, setting.high, value=setting.default,
                    step=setting.step, key=key, **kwargs)
    if setting.step:
        kwargs.setdefault("step", setting.step)
    return kept(where.number_input, label, setting.low, setting.high, value=setting.default,
                key=key, **kwargs)
