"""A Train-page widget for one numeric setting of ``tfcore.training.SETTINGS``: the range,
step and default are the engine's, so the form cannot offer what a run would refuse."""

from __future__ import annotations

from typing import Any

from tfcore.training import SETTINGS, TrainConfig
from ui.common import kept, t

# Recording a run's insides (issue 25): the engine's ``insight`` flag and ``insight_every``
# setting when it has them; until then these stand in (a run ignores keys it lacks).
INSIGHT_EVERY = (0, 1_000_000, 0)             # low, high, default (0: chosen by the worker)
INSIGHT_DEFAULT = bool(getattr(TrainConfig(), "insight", True))


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


def insight_every_range() -> tuple[int, int, int]:
    """``insight_every``'s low, high and default: the engine's setting when it has one."""
    setting = SETTINGS.get("insight_every")
    if setting is None:
        return INSIGHT_EVERY
    return int(setting.low), int(setting.high), int(setting.default)


def insight_inputs(left: Any, right: Any) -> dict:
    """"Record insides while training" and its snapshot interval -> the training dict's
    ``insight`` and ``insight_every``."""
    record = kept(left.toggle, t("insight.form.record"), value=INSIGHT_DEFAULT,
                  key="train.insight", help=t("insight.form.record_help"))
    low, high, default = insight_every_range()
    every = kept(right.number_input, t("insight.form.every"), low, high, value=default,
                 step=1, key="train.insight_every", disabled=not record,
                 help=t("insight.form.every_help"))
    return {"insight": bool(record), "insight_every": int(every)}
