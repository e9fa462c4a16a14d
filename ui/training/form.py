"""The Train page's setup widgets: model, dataset, device and hyperparameters -> the
``run.json`` request that ``tfcore.training.jobs.start_run`` takes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import streamlit as st

from tfcore.model import ModelSpec, from_dict
from tfcore.training import (
    CPU,
    GPU,
    LOSSES,
    METRICS,
    MIRRORED,
    OPTIMIZERS,
    SCHEDULES,
    default_loss_and_metrics,
    shapes_fit,
)
from ui.common import devices_report, pick, pick_model, t
from ui.data import load_with_spinner, pick_dataset

SPEC_KEY = "train.spec"                  # a ModelSpec (or its dict) sent by another page
WEIGHTS_KEY = "train.initial_weights"    # workspace-relative .weights.h5 to start from
DEVICE_CHOICES = ("cpu", "gpu", "mirrored", "logical")


@dataclass(frozen=True)
class DeviceChoice:
    """The device widgets' result: the DeviceConfig dict and the replica count."""

    config: dict
    replicas: int


def _handed_spec() -> ModelSpec | None:
    value = st.session_state.get(SPEC_KEY)
    if value is None:
        return None
    return value if isinstance(value, ModelSpec) else from_dict(value)


def model_section() -> tuple[ModelSpec | None, str | None]:
    """The model to train and the initial weights (from the weights lab), if any."""
    handed = _handed_spec()
    weights = st.session_state.get(WEIGHTS_KEY)
    if handed is not None and st.toggle(t("train.use_handed", name=handed.name), value=True,
                                        key="train.use_handed"):
        if weights:
            st.caption(t("train.initial_weights", path=str(weights)))
        return handed, weights or None
    return pick_model("train.model"), None


def device_section(batch_size: int) -> DeviceChoice:
    """Device radio plus its settings; shows replicas and global/per-replica batch."""
    gpus = devices_report().gpu_count
    options = list(DEVICE_CHOICES if gpus else ("cpu", "logical"))
    kind = st.radio(t("train.device"), options, horizontal=True, key="train.device",
                    format_func=lambda k: t(f"train.device.{k}"))
    config: dict[str, Any] = {"kind": CPU}
    replicas = 1
    if kind == "gpu":
        index = st.number_input(t("train.gpu_index"), 0, max(0, gpus - 1), 0,
                                key="train.gpu_index")
        config = {"kind": GPU, "gpus": [int(index)]}
    elif kind == "mirrored":
        config, replicas = {"kind": MIRRORED}, gpus
    elif kind == "logical":
        count = st.number_input(t("train.logical_count"), 2, 8, 2, key="train.logical_count")
        config, replicas = {"kind": MIRRORED, "logical_devices": int(count)}, int(count)
        st.caption(t("train.logical_help_gpu" if gpus else "train.logical_help_cpu"))
    if gpus and kind in ("gpu", "mirrored", "logical"):
        limit = st.number_input(t("train.memory_limit"), 0, 1_000_000, 0, 256,
                                key="train.memory_limit")
        config["memory_limit_mb"] = int(limit)
        config["memory_growth"] = st.checkbox(t("train.memory_growth"), value=True,
                                              key="train.memory_growth")
    st.caption(t("train.replicas", replicas=replicas, batch=batch_size,
                 per_replica=max(1, batch_size // max(1, replicas))))
    return DeviceChoice(config, replicas)


def _options(names: list[str], prefix: str) -> dict:
    return {"options": names, "format_func": lambda n: t(f"{prefix}.{n}")}


def training_section(task: str, num_classes: int | None) -> dict:
    """Loop, optimizer, schedule, loss, metrics and sizes -> TrainConfig dict."""
    loss_default, metrics_default = default_loss_and_metrics(task, num_classes)
    c1, c2, c3 = st.columns(3)
    with c1:
        loop = st.radio(t("train.loop"), key="train.loop", horizontal=True,
                        **_options(["fit", "custom"], "train.loop"))
        eager = loop == "custom" and st.checkbox(t("train.eager"), key="train.eager")
        epochs = st.number_input(t("train.epochs"), 1, 100_000, 5, key="train.epochs")
        batch = st.number_input(t("train.batch_size"), 1, 65_536, 50, key="train.batch_size")
    with c2:
        optimizer = st.selectbox(t("train.optimizer"), key="train.optimizer",
                                 **_options(list(OPTIMIZERS), "train.opt"),
                                 index=list(OPTIMIZERS).index("adam"))
        lr = st.number_input(t("train.lr"), 1e-7, 1e7, 1e-3, format="%g", key="train.lr")
        momentum = 0.0
        if optimizer in ("sgd", "rmsprop"):
            momentum = st.slider(t("train.momentum"), 0.0, 0.99, 0.0, 0.01,
                                 key="train.momentum")
        schedule = st.selectbox(t("train.schedule"), key="train.schedule",
                                **_options(list(SCHEDULES), "train.sched"))
    with c3:
        losses = list(LOSSES)
        loss = st.selectbox(t("train.loss"), losses, index=losses.index(loss_default),
                            key=f"train.loss.{task}")
        metrics = st.multiselect(t("train.metrics"), list(METRICS),
                                 default=list(metrics_default), key=f"train.metrics.{task}")
        seed = st.number_input(t("train.seed"), 0, 2**31 - 1, 0, key="train.seed")
    with st.expander(t("train.advanced")):
        a1, a2, a3 = st.columns(3)
        ckpt_every = a1.number_input(t("train.ckpt_every"), 1, 10_000_000, 100,
                                     key="train.ckpt_every")
        keep = a2.number_input(t("train.keep"), 1, 100, 3, key="train.keep")
        validate_every = a1.number_input(t("train.validate_every"), 1, 1_000_000, 1,
                                         key="train.validate_every")
        mixed = a3.checkbox(t("train.mixed_precision"), key="train.mixed")
        a3.caption(t("train.mixed_help"))
    return {"epochs": int(epochs), "batch_size": int(batch), "optimizer": optimizer,
            "learning_rate": float(lr), "momentum": float(momentum), "schedule": schedule,
            "loss": loss, "metrics": list(metrics), "loop": loop, "eager": bool(eager),
            "seed": int(seed), "ckpt_every": int(ckpt_every), "keep": int(keep),
            "validate_every": int(validate_every),
            "mixed_precision": bool(mixed)}


def setup_form() -> dict | None:
    """All setup widgets; the complete run request, or None while something is missing."""
    left, right = st.columns(2)
    with left:
        st.subheader(t("train.model"))
        spec, weights = model_section()
    with right:
        st.subheader(t("train.dataset"))
        request = pick_dataset("train.data")
        bundle = load_with_spinner(request) if request is not None else None
        if bundle is not None:
            info = bundle.info
            st.caption(t("train.dataset_info", title=pick(info.title), train=info.n_train,
                         val=info.n_val, test=info.n_test,
                         shape=" x ".join(map(str, info.input_shape)),
                         classes=info.num_classes or "-"))
    if spec is None or request is None or bundle is None:
        return None
    if spec.inputs and not shapes_fit(spec.inputs[0].shape, bundle.info.input_shape):
        st.warning(t("train.shape_mismatch", model=tuple(spec.inputs[0].shape),
                     data=tuple(bundle.info.input_shape)), icon=":material/warning:")
        return None
    st.subheader(t("train.settings"))
    training = training_section(bundle.info.task, bundle.info.num_classes)
    st.subheader(t("train.device_header"))
    device = device_section(training["batch_size"])
    body = {"name": spec.name, "spec": spec.to_dict(), "dataset": request.to_dict(),
            "training": training, "device": device.config}
    if weights:
        body["initial_weights"] = str(weights)
    return body
