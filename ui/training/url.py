"""The Train form mirrored in the URL: ``/train?source=saved&saved=lesson_net&loss=mse``
opens the form filled in, and every change updates the query so a reload or a shared
address brings back what will train.

``PARAMS`` is the one map between query parameters and the form's widget keys (whose values
``ui.common.memory`` keeps); each parameter checks its text before it fills a widget, and a
link's bad or stale value is ignored, named in a warning, while the rest still applies.
Parameters the page itself wrote are not re-applied, so only a link typed or opened by a
person changes the form; each rerun compares two small dicts, nothing more.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping

import streamlit as st

from tfcore.data import dataset_names, list_uploads
from tfcore.model import list_specs, preset_names
from tfcore.training import (
    CKPT_PREFIXES,
    DEVICE_KINDS,
    LOOP_KINDS,
    LOSSES,
    METRICS,
    OPTIMIZERS,
    SCHEDULES,
    SETTINGS,
)
from ui.common import choose, devices_report, recall, workspace
from ui.data import IMAGE_SIZES, RANGES, SOURCES, UPLOAD_KINDS
from ui.training.custom_choices import custom_losses, custom_metrics
from ui.training.settings import insight_every_range

WRITTEN_KEY = "train.url.written"      # {param: text} the page last put into the URL
IGNORED_KEY = "train.url.ignored"      # the last link's refused parameters, until a start
# The device kinds the shared device settings set up (cluster has a section of its own),
# plus "logical": MirroredStrategy over logical devices carved from one device.
DEVICE_CHOICES = tuple(name for name, kind in DEVICE_KINDS.items() if kind.flag) + ("logical",)
PACES = (0, 100, 20, 5)                # steps per second; 0 = unlimited
MODEL_SOURCES = ("builder", "preset", "saved")
TASKS = ("classification", "regression")   # the loss and metrics widgets are kept per task
TASK = "{task}"                            # stands for the task in a widget key
CLUSTER_MODES = ("local", "hosts")


def _choice(options: Callable[[], Iterable[Any]]) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        for option in options():
            if str(option) == text:
                return option
        raise ValueError(text)
    return parse


def _choices(options: Callable[[], Iterable[Any]]) -> Callable[[str], list]:
    one = _choice(options)
    return lambda text: [one(part) for part in text.split(",") if part]


def _number(kind: type, low: float, high: float) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        value = kind(text)
        if not low <= value <= high:
            raise ValueError(text)
        return value
    return parse


def _flag(text: str) -> bool:
    return {"true": True, "1": True, "false": False, "0": False}[text.lower()]


def _pace(text: str) -> int:
    value = 0 if text in ("", "none", "unlimited") else int(text)
    if value not in PACES:
        raise ValueError(text)
    return value


def _upload(text: str) -> tuple[str, str]:
    kind, _, name = text.partition(":")
    if kind not in UPLOAD_KINDS or name not in list_uploads(kind, workspace()):
        raise ValueError(text)
    return kind, name


def _gpus() -> range:
    return range(devices_report().gpu_count)


def _device(text: str) -> str:
    """A device choice from the URL; only a GPU choice waits for TensorFlow's device list."""
    if text in device_options(0):
        return text
    return _choice(lambda: device_options(len(_gpus())))(text)


def device_options(gpus: int) -> list[str]:
    """The device choices a machine with ``gpus`` GPUs offers (the GPU ones only with one)."""
    return [*(DEVICE_CHOICES if gpus else ("cpu", "logical")), "cluster"]


@dataclass(frozen=True)
class Param:
    """One query parameter: the widget key it fills (``{task}`` stands for each task), its
    parser and implied values; ``split``/``join`` when it spans two widgets."""

    key: str
    parse: Callable[[str], Any]
    implies: Mapping[str, Any] | None = None
    split: Callable[[Any], Mapping[str, Any]] | None = None
    join: Callable[[], Any] | None = None


def _data(name: str) -> str:
    return f"train.data.{name}"


def _upload_keys(value: tuple[str, str]) -> dict[str, str]:
    return {_data("upload_kind"): value[0], _data(f"upload_file.{value[0]}"): value[1]}


def _chosen_upload() -> str | None:
    """``kind:file`` of the chosen upload, None while there is none."""
    kind = recall(_data("upload_kind"))
    name = recall(_data(f"upload_file.{kind}")) if kind else None
    return f"{kind}:{name}" if name else None


NOT_HANDED = {"train.use_handed": False}
PARAMS: dict[str, Param] = {
    "source": Param("train.model.source", _choice(lambda: MODEL_SOURCES), NOT_HANDED),
    "preset": Param("train.model.preset", _choice(preset_names),
                    {"train.model.source": "preset", **NOT_HANDED}),
    "saved": Param("train.model.saved", _choice(lambda: list_specs(workspace())),
                   {"train.model.source": "saved", **NOT_HANDED}),
    "data": Param(_data("source"), _choice(lambda: SOURCES)),
    "dataset": Param(_data("name"), _choice(dataset_names), {_data("source"): "builtin"}),
    **{name: Param(_data(name), _number(type(low), low, high))
       for name, (low, high, _, _) in RANGES.items()},
    "split_seed": Param(_data("seed"), SETTINGS["seed"].parse),
    "tfds": Param(_data("tfds_name"), str, {_data("source"): "tfds"}),
    "tfds_size": Param(_data("tfds_size"), _choice(lambda: IMAGE_SIZES)),
    "tfds_download": Param(_data("tfds_download"), _flag),
    "upload": Param(_data("upload_kind"), _upload, {_data("source"): "upload"},
                    split=_upload_keys, join=_chosen_upload),
    "loss": Param(f"train.loss.{TASK}", _choice(lambda: [*LOSSES, *custom_losses()])),
    "metrics": Param(f"train.metrics.{TASK}",
                     _choices(lambda: [*METRICS, *custom_metrics()])),
    "loop": Param("train.loop", _choice(lambda: LOOP_KINDS)),
    "eager": Param("train.eager", _flag),
    "epochs": Param("train.epochs", SETTINGS["epochs"].parse),
    "batch": Param("train.batch_size", SETTINGS["batch_size"].parse),
    "optimizer": Param("train.optimizer", _choice(lambda: OPTIMIZERS)),
    "lr": Param("train.lr", SETTINGS["learning_rate"].parse),
    # every option an optimizer takes (momentum ...), under its own name
    **{name: Param(f"train.{name}", SETTINGS[name].parse)
       for optimizer in OPTIMIZERS.values() for name in optimizer.options},
    "schedule": Param("train.schedule", _choice(lambda: SCHEDULES)),
    "seed": Param("train.seed", SETTINGS["seed"].parse),
    "pace": Param("train.pace", _pace),
    "ckpt_every": Param("train.ckpt_every", SETTINGS["ckpt_every"].parse),
    "keep": Param("train.keep", SETTINGS["keep"].parse),
    "validate_every": Param("train.validate_every", SETTINGS["validate_every"].parse),
    "ckpt_prefix": Param("train.ckpt_prefix", _choice(lambda: CKPT_PREFIXES)),
    "mixed": Param("train.mixed", _flag),
    "insight": Param("train.insight", _flag),
    "insight_every": Param("train.insight_every", _number(int, *insight_every_range()[:2])),
    "device": Param("train.device", _device),
    "gpu": Param("train.gpu_index", _choice(_gpus)),
    "gpus": Param("train.visible_gpus", _choices(_gpus)),
    "logical": Param("train.logical_count",
                     _number(int, 2, SETTINGS["logical_devices"].high)),
    "memory_limit": Param("train.memory_limit", SETTINGS["memory_limit_mb"].parse),
    "memory_growth": Param("train.memory_growth", _flag),
    "cluster": Param("train.cluster.mode", _choice(lambda: CLUSTER_MODES)),
    "workers": Param("train.cluster.workers", SETTINGS["workers"].parse),
    "backup_every": Param("train.cluster.backup_every", SETTINGS["backup_every"].parse),
    "hosts": Param("train.cluster.hosts", str),
    "name": Param("train.run_name", str),      # the run's name, once the form asks for one
}


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, (list, tuple)):
        return ",".join(map(_text, value))
    return str(value)


def _keys(param: Param, value: Any, task: str | None = None) -> dict[str, Any]:
    """The widget keys a parameter's value fills (every task's, when no task is given)."""
    if param.split is not None:
        return dict(param.split(value))
    tasks = TASKS if task is None else (task,)
    return {param.key.replace(TASK, each): value for each in tasks}


def apply_query() -> list[str]:
    """Put the URL's form values into the form (those the page did not write itself);
    returns the names of the last link's parameters that were ignored because their value
    is not allowed. They are named until a run is started (:func:`forget_ignored`) or
    another link applies: the page rewrites the URL with the form's values, so the next
    rerun (a click, a run's state changing) no longer sees the bad values, and the warning
    vanished before a class could read it. Values a parameter implies (``preset`` ->
    source "preset") give way to values the link names itself (``source=saved``)."""
    written = st.session_state.get(WRITTEN_KEY, {})
    ignored, implied, named = [], {}, {}
    for name, param in PARAMS.items():
        text = st.query_params.get(name)
        if text is None or written.get(name) == text:
            continue
        try:
            value = param.parse(text)
        except (TypeError, ValueError, KeyError):
            ignored.append(name)
            continue
        implied.update(param.implies or {})
        named.update(_keys(param, value))
        written[name] = text
    for key, value in {**implied, **named}.items():
        choose(key, value)                         # the browser is sent the new value too
    st.session_state[WRITTEN_KEY] = written
    kept_names = [] if named else st.session_state.get(IGNORED_KEY, [])
    if named or ignored:        # a new link's verdict; a stale value refused again stays named
        st.session_state[IGNORED_KEY] = kept_names + [n for n in ignored if n not in kept_names]
    return list(st.session_state.get(IGNORED_KEY, []))


def forget_ignored() -> None:
    """A run was started: the last link's refused parameters are no longer news."""
    st.session_state.pop(IGNORED_KEY, None)


def mirror(task: str | None) -> None:
    """Write the form's kept values into the URL (only what changed); a value the form no
    longer holds (None) leaves it. ``task``: the dataset's, None while none is loaded (the
    loss and metrics parameters then stay as they are)."""
    written = dict(st.session_state.get(WRITTEN_KEY, {}))
    for name, param in PARAMS.items():
        if TASK in param.key and task is None:
            continue
        value = param.join() if param.join else recall(param.key.replace(TASK, task or ""))
        if value is None:
            if name in st.query_params and written.get(name) is not None:
                del st.query_params[name]
            written.pop(name, None)
            continue
        text = _text(value)
        if st.query_params.get(name) != text:
            st.query_params[name] = text
        written[name] = text
    st.session_state[WRITTEN_KEY] = written
