"""Whether a model can train on a dataset, checked before any TensorFlow call: the input
shape and, for sparse classification losses, enough outputs for every class. The same
rules as the worker's refusal (``train.err.input_shape``, ``train.err.classes``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tfcore.model import ModelSpec, validate
from tfcore.training import shapes_fit


@dataclass(frozen=True)
class FitProblem:
    """One reason the model cannot train on the dataset: a message key and its params."""

    key: str
    params: dict = field(default_factory=dict)


def output_units(spec: ModelSpec) -> int | None:
    """The size of the model's (first) output's last axis, inferred from the spec; None
    when it cannot be known without building the model."""
    if not spec.layers:
        return None
    last = spec.outputs[0] if spec.outputs else spec.layers[-1].name
    try:
        shape = validate(spec).shapes.get(last)
    except Exception:  # noqa: BLE001 - an odd spec is the builder's business, not this check's
        return None
    if not shape or shape[-1] is None:
        return None
    return int(shape[-1])


def fit_problems(spec: ModelSpec, info: Any, loss: str | None = None) -> list[FitProblem]:
    """Every reason ``spec`` cannot train on a dataset described by ``info`` (a
    ``DatasetInfo``: input_shape, task, num_classes, name) with ``loss``."""
    problems: list[FitProblem] = []
    if spec.inputs and not shapes_fit(spec.inputs[0].shape, info.input_shape):
        problems.append(FitProblem("train.shape_mismatch", {
            "model": tuple(spec.inputs[0].shape), "data": tuple(info.input_shape)}))
    sparse = loss is None or "sparse" in loss
    if info.task == "classification" and info.num_classes and sparse:
        units = output_units(spec)
        if units is not None and units < int(info.num_classes):
            problems.append(FitProblem("train.classes_mismatch", {
                "outputs": units, "classes": int(info.num_classes)}))
    return problems
