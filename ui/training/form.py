"""The Train page's setup widgets: model, dataset, device and hyperparameters -> the
``run.json`` request that ``tfcore.training.jobs.start_run`` takes.

Every value is kept across page switches (``ui.common.kept``) and mirrored in the URL
(``ui.training.url``), so a reload brings back what will train; a missing model or one that
cannot fit the dataset disables Train and says why.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any

import streamlit as st

from tfcore.model import ModelSpec, from_dict
from tfcore.training import (
    CKPT_PREFIXES,
    CPU,
    GPU,
    LOOP_KINDS,
    LOSSES,
    METRICS,
    MIRRORED,
    OPTIMIZERS,
    SCHEDULES,
    SETTINGS,
    TrainConfig,
    default_loss_and_metrics,
)
from ui.common import (
    choose_placeholder,
    devices_now,
    devices_report,
    guarded,
    kept,
    pick,
    pick_model,
    plain,
    recall,
    t,
)
from ui.data import dataset_info, pick_dataset
from ui.training.loop_code import show_loop_code
from ui.training.custom_choices import custom_losses, custom_metrics, custom_request
from ui.training.fit import apply_fixes, fit_problems, loss_choice
from ui.training.run_name import run_name_input
from ui.training.settings import insight_inputs, setting_input
from ui.training.url import PACES, apply_query, device_options, mirror

SPEC_KEY = "train.spec"                  # a ModelSpec (or its dict) sent by another page
WEIGHTS_KEY = "train.initial_weights"    # workspace-relative .weights.h5 to start from
MODEL_KEY = "train.model"
PROBE_KEY = "train.device_probe"         # (DeviceConfig dict, logical device names)
PACING = "steps_per_second" in {f.name for f in fields(TrainConfig)}


@dataclass(frozen=True)
class DeviceChoice:
    """The device widgets' result: the DeviceConfig dict and the replica count."""

    config: dict
    replicas: int


@dataclass
class FormResult:
    """The run request (None while something is missing or does not fit) and the reasons
    Train is disabled."""

    request: dict | None = None
    problems: list[str] = field(default_factory=list)


def _handed_spec() -> ModelSpec | None:
    value = st.session_state.get(SPEC_KEY)
    if value is None:
        return None
    return value if isinstance(value, ModelSpec) else from_dict(value)


def model_section() -> tuple[ModelSpec | None, str | None]:
    """The model to train and the initial weights (from the weights lab), if any."""
    handed = _handed_spec()
    weights = st.session_state.get(WEIGHTS_KEY)
    if handed is not None and kept(st.toggle, t("train.use_handed", name=handed.name),
                                   value=True, key="train.use_handed"):
        if weights:
            st.caption(t("train.initial_weights", path=plain(weights)))
        return handed, weights or None
    return pick_model(MODEL_KEY), None


def device_section(batch_size: int) -> DeviceChoice:
    """Device radio plus its settings; shows replicas and global/per-replica batch.

    While TensorFlow loads the choices are those of a machine without GPUs (the page is
    redrawn once it has loaded), unless a GPU choice is already made: that one waits."""
    chosen = st.session_state.get("train.device", recall("train.device", CPU))
    loaded = devices_now() is not None           # else redrawn once TensorFlow has loaded
    gpus = devices_report().gpu_count if loaded or chosen not in device_options(0) else 0
    options = device_options(gpus)
    kind = kept(st.radio, t("train.device"), options, horizontal=True, key="train.device",
                allowed=options, format_func=lambda k: t(f"train.device.{k}"))
    config: dict[str, Any] = {"kind": CPU}
    replicas = 1
    visible = [] if kind == "gpu" else _visible_gpus(gpus, kind)
    if kind == "gpu":
        index = kept(st.number_input, t("train.gpu_index"), 0, max(0, gpus - 1), value=0,
                     key="train.gpu_index")
        config = {"kind": GPU, "gpus": [int(index)]}
    elif kind == "mirrored":
        config, replicas = {"kind": MIRRORED, "gpus": visible}, len(visible) or gpus
    elif kind == "cluster":
        from ui.training.cluster_form import cluster_section

        config, replicas = cluster_section(batch_size)
    elif kind == "logical":
        count = kept(st.number_input, t("train.logical_count"), 2,
                     SETTINGS["logical_devices"].high, value=2, key="train.logical_count")
        config, replicas = {"kind": MIRRORED, "logical_devices": int(count),
                            "gpus": visible}, int(count)
        st.caption(t("train.logical_help_gpu" if gpus else "train.logical_help_cpu"))
    if gpus and kind in ("gpu", "mirrored", "logical"):
        limit = setting_input(st, "memory_limit_mb", t("train.memory_limit"),
                              "train.memory_limit")
        config["memory_limit_mb"] = int(limit)
        config["memory_growth"] = kept(st.checkbox, t("train.memory_growth"), value=True,
                                       key="train.memory_growth")
    if kind == "logical":
        _logical_devices(config)
    st.caption(t("train.replicas", replicas=replicas, batch=batch_size,
                 per_replica=max(1, batch_size // max(1, replicas))))
    return DeviceChoice(config, replicas)


def _visible_gpus(gpus: int, kind: str) -> list[int]:
    """Which physical GPUs the worker sees (D1); disabled, with the reason, when there is
    no GPU or the run is on the CPU."""
    chosen = kept(st.multiselect, t("devices.visible"), list(range(gpus)),
                  key="train.visible_gpus", disabled=not gpus or kind in ("cpu", "cluster"),
                  help=t("devices.visible_help"),
                  placeholder=choose_placeholder(range(gpus), many=True),
                  format_func=lambda i: f"GPU {i}")
    if not gpus:
        st.caption(t("devices.visible_none"))
    elif kind == "cpu":
        st.caption(t("devices.visible_cpu"))
    elif kind == "cluster":
        st.caption(t("devices.visible_cluster"))
    return [int(i) for i in chosen] if gpus and kind not in ("cpu", "cluster") else []


def _logical_devices(config: dict) -> None:
    """A button that applies the settings in a fresh process and lists the logical devices
    the split creates (kept for the session per settings)."""
    from tfcore.training import DeviceConfig, probe_devices

    shown = st.session_state.get(PROBE_KEY)
    if st.button(t("devices.list_btn"), key="train.list_devices"):
        with st.spinner(t("devices.listing")), guarded():
            applied = probe_devices(DeviceConfig.from_dict(config))
            shown = (config, list(applied.logical))
            st.session_state[PROBE_KEY] = shown
    if shown and shown[0] == config:
        st.success(t("devices.listed", count=len(shown[1]),
                     names=", ".join(f"`{n}`" for n in shown[1])))


def _options(registry: Any) -> dict:
    """Selectbox/radio arguments for a registry: its names, shown by their label keys (an
    optimizer without one by its Keras class name)."""
    def shown(name: str) -> str:
        entry = registry[name]
        return t(entry.label) if entry.label else entry.keras_class
    return {"options": list(registry), "format_func": shown}


def _pace_label(pace: int) -> str:
    return t("train.pace.rate", n=pace) if pace else t("train.pace.unlimited")


def optimizer_options(optimizer: str) -> dict:
    """The widgets of the options the chosen optimizer takes (``Optimizer.options``); an
    option it does not take keeps its default."""
    values = {name: SETTINGS[name].default for o in OPTIMIZERS.values() for name in o.options}
    for name in OPTIMIZERS[optimizer].options:
        values[name] = setting_input(st, name, t(f"train.{name}"), f"train.{name}")
    return {name: SETTINGS[name].kind(value) for name, value in values.items()}


def training_section(task: str, num_classes: int | None) -> dict:
    """Loop, optimizer, schedule, loss, metrics, sizes and pacing -> TrainConfig dict."""
    loss_default, metrics_default = default_loss_and_metrics(task, num_classes)
    defaults = TrainConfig()
    c1, c2, c3 = st.columns(3)
    with c1:
        loop = kept(st.radio, t("train.loop"), key="train.loop", horizontal=True,
                    index=list(LOOP_KINDS).index(defaults.loop), **_options(LOOP_KINDS))
        eager = LOOP_KINDS[loop].eager_option and kept(st.checkbox, t("train.eager"),
                                                       key="train.eager")
        epochs = setting_input(st, "epochs", t("train.epochs"), "train.epochs")
        batch = setting_input(st, "batch_size", t("train.batch_size"), "train.batch_size")
    with c2:
        optimizer = kept(st.selectbox, t("train.optimizer"), key="train.optimizer",
                         index=list(OPTIMIZERS).index(defaults.optimizer),
                         **_options(OPTIMIZERS))
        lr = setting_input(st, "learning_rate", t("train.lr"), "train.lr", format="%g")
        options = optimizer_options(optimizer)
        schedule = kept(st.selectbox, t("train.schedule"), key="train.schedule",
                        index=list(SCHEDULES).index(defaults.schedule), **_options(SCHEDULES))
    with c3:
        losses = list(LOSSES) + custom_losses()
        loss = kept(st.selectbox, t("train.loss"), losses, index=losses.index(loss_default),
                    key=f"train.loss.{task}")
        seed = setting_input(st, "seed", t("train.seed"), "train.seed")
        pace = 0
        if PACING:
            pace = kept(st.selectbox, t("train.pace"), PACES, key="train.pace",
                        allowed=PACES, format_func=_pace_label, help=t("train.pace_help"))
    # a row of its own: a chip such as sparse_categorical_accuracy is cut in a third of 1280 px
    metrics = kept(st.multiselect, t("train.metrics"), list(METRICS) + custom_metrics(),
                   default=list(metrics_default), key=f"train.metrics.{task}",
                   placeholder=choose_placeholder(METRICS, many=True))
    with st.expander(t("train.advanced")):
        a1, a2, a3 = st.columns(3)
        ckpt_every = setting_input(a1, "ckpt_every", t("train.ckpt_every"), "train.ckpt_every")
        keep = setting_input(a2, "keep", t("train.keep"), "train.keep")
        validate_every = setting_input(a1, "validate_every", t("train.validate_every"),
                                       "train.validate_every")
        prefix = kept(a2.selectbox, t("checkpointing.prefix"), list(CKPT_PREFIXES),
                      key="train.ckpt_prefix", allowed=list(CKPT_PREFIXES),
                      help=t("checkpointing.prefix_help"))
        mixed = kept(a3.checkbox, t("train.mixed_precision"), key="train.mixed")
        a3.caption(t("train.mixed_help"))
        insight = insight_inputs(*st.columns(2, vertical_alignment="bottom"))
    config = {"epochs": int(epochs), "batch_size": int(batch), "optimizer": optimizer,
              "learning_rate": float(lr), "schedule": schedule,
              "loss": loss, "metrics": list(metrics), "loop": loop, "eager": bool(eager),
              "seed": int(seed), "ckpt_every": int(ckpt_every), "keep": int(keep),
              "validate_every": int(validate_every), "mixed_precision": bool(mixed),
              "ckpt_prefix": prefix, **insight, **options}
    show_loop_code(config)                      # T1: the GradientTape loop's own code
    if PACING:
        config["steps_per_second"] = float(pace) if pace else None
    return config


def _model_input_shape(spec: ModelSpec | None) -> tuple | None:
    return tuple(spec.inputs[0].shape) if spec is not None and spec.inputs else None


def setup_form() -> FormResult:
    """All setup widgets; the complete run request, or None with the reasons."""
    result = FormResult()
    ignored = apply_query()
    if ignored:
        st.warning(t("train.url_ignored", names=plain(", ".join(ignored))),
                   icon=":material/link_off:")
    left, right = st.columns(2)
    with left:
        st.subheader(t("train.model"))
        spec, weights = model_section()
        spec = apply_fixes(spec)                # a refusal's fix, applied on this page
    with right:
        st.subheader(t("train.dataset"))
        request = pick_dataset("train.data", model_shape=_model_input_shape(spec))
        info = dataset_info(request, "train.data") if request is not None else None
        if info is not None:
            st.caption(t("train.dataset_info", title=plain(pick(info.title)), train=info.n_train,
                         val=info.n_val, test=info.n_test,
                         shape=" x ".join(map(str, info.input_shape)),
                         classes=info.num_classes or "-"))
    if spec is None:
        result.problems = [t("train.choose_model")]
    if spec is None or request is None or info is None:
        mirror(info.task if info is not None else None)
        return result
    st.subheader(t("train.settings"))
    training = training_section(info.task, info.num_classes)
    st.subheader(t("train.device_header"))
    device = device_section(training["batch_size"])
    mirror(info.task)
    result.problems = [t(p.key, **p.params) for p in
                       fit_problems(spec, info, training["loss"])]
    refused = loss_choice(spec, training["loss"], info.num_classes)  # for the output
    result.problems += [refused] if refused else []
    if result.problems:
        return result
    body = {"name": run_name_input(spec.name), "spec": spec.to_dict(), "dataset": request.to_dict(),
            "training": training, "device": device.config}
    body.update(custom_request(spec, training))   # user-written code the run uses
    if weights:
        body["initial_weights"] = str(weights)
    result.request = body
    return result
