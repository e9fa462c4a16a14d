"""The Train form mirrored in the URL: ``/train?preset=mlp&epochs=5&lang=zh`` opens the form
filled in, and every change updates the query so the address can be shared.

A query parameter names a form value (``PARAMS``); its widget key is where the form keeps
that value (``ui.common.memory``). Parameters the page itself wrote are not re-applied, so
only a link typed or opened by a person changes the form.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping

import streamlit as st

from tfcore.data import dataset_names
from tfcore.model import preset_names
from tfcore.training import DEVICE_KINDS, LOOP_KINDS, OPTIMIZERS, SCHEDULES, SETTINGS
from ui.common import remember

WRITTEN_KEY = "train.url.written"      # {param: text} the page last put into the URL
# The device kinds the shared device settings set up (cluster has a section of its own),
# plus "logical": MirroredStrategy over logical devices carved from one device.
DEVICE_CHOICES = tuple(name for name, kind in DEVICE_KINDS.items() if kind.flag) + ("logical",)
PACES = (0, 100, 20, 5)                # steps per second; 0 = unlimited


def _choice(options: Callable[[], Iterable[Any]]) -> Callable[[str], str]:
    def parse(text: str) -> str:
        if text not in list(options()):
            raise ValueError(text)
        return text
    return parse


def _pace(text: str) -> int:
    value = 0 if text in ("", "none", "unlimited") else int(text)
    if value not in PACES:
        raise ValueError(text)
    return value


@dataclass(frozen=True)
class Param:
    """One query parameter: the widget key it fills, its parser and implied values."""

    key: str
    parse: Callable[[str], Any]
    implies: Mapping[str, Any] | None = None


PARAMS: dict[str, Param] = {
    "preset": Param("train.model.preset", _choice(preset_names),
                    {"train.model.source": "preset", "train.use_handed": False}),
    "dataset": Param("train.data.name", _choice(dataset_names), {"train.data.source": "builtin"}),
    "epochs": Param("train.epochs", SETTINGS["epochs"].parse),
    "batch": Param("train.batch_size", SETTINGS["batch_size"].parse),
    "lr": Param("train.lr", SETTINGS["learning_rate"].parse),
    "optimizer": Param("train.optimizer", _choice(lambda: OPTIMIZERS)),
    # every option an optimizer takes (momentum ...), under its own name
    **{name: Param(f"train.{name}", SETTINGS[name].parse)
       for optimizer in OPTIMIZERS.values() for name in optimizer.options},
    "schedule": Param("train.schedule", _choice(lambda: SCHEDULES)),
    "loop": Param("train.loop", _choice(lambda: LOOP_KINDS)),
    "seed": Param("train.seed", SETTINGS["seed"].parse),
    "device": Param("train.device", _choice(lambda: DEVICE_CHOICES)),
    "pace": Param("train.pace", _pace),
}


def _text(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def apply_query() -> list[str]:
    """Put the URL's form values into the form (those the page did not write itself);
    returns the names of parameters that were ignored because their value is not allowed."""
    written = st.session_state.get(WRITTEN_KEY, {})
    ignored = []
    for name, param in PARAMS.items():
        text = st.query_params.get(name)
        if text is None or written.get(name) == text:
            continue
        try:
            value = param.parse(text)
        except (TypeError, ValueError):
            ignored.append(name)
            continue
        for key, implied in {**(param.implies or {}), param.key: value}.items():
            remember(key, implied)
            st.session_state.pop(key, None)        # the widget redraws from the new value
        written[name] = text
    st.session_state[WRITTEN_KEY] = written
    return ignored


def mirror(values: Mapping[str, Any]) -> None:
    """Write the form's current values into the URL (only what changed)."""
    written = dict(st.session_state.get(WRITTEN_KEY, {}))
    for name, value in values.items():
        if name not in PARAMS or value is None:
            continue
        text = _text(value)
        if st.query_params.get(name) != text:
            st.query_params[name] = text
        written[name] = text
    st.session_state[WRITTEN_KEY] = written
