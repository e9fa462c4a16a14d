"""Whether a model can train on a dataset: one rule for the Train page, the command line and
the worker's refusal before training.

A model fits when its single input accepts the dataset's examples and, for a sparse
classification loss, its (first) output has a value for every class. The page and the
command line ask with the spec (no TensorFlow call); the worker asks with the built model.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from tfcore.errors import RunError
from tfcore.training.config import shapes_fit

INPUT_SHAPE, CLASSES = "train.err.input_shape", "train.err.classes"

Shape = tuple  # one example's shape; None: any size on that axis


@dataclass(frozen=True)
class ModelShapes:
    """What the fit check needs of a model: each input's example shape and the first
    output's last-axis size (None: not known)."""

    inputs: tuple[Shape, ...] = ()
    output_units: int | None = None


@dataclass(frozen=True)
class FitProblem:
    """One reason a model cannot train on a dataset: a message key and its parameters."""

    key: str
    params: dict = field(default_factory=dict)

    def error(self) -> RunError:
        """The worker's refusal for this problem."""
        return RunError(key=self.key, params=dict(self.params))


def fit_problems(shapes: ModelShapes, info: Any, loss: str | None) -> list[FitProblem]:
    """Every reason a model of ``shapes`` cannot train on a dataset described by ``info``
    (a ``DatasetInfo``: name, input_shape, task, num_classes) with ``loss`` (None: the
    task's default, a sparse loss for classification)."""
    problems: list[FitProblem] = []
    data = tuple(info.input_shape)
    if len(shapes.inputs) == 1 and not shapes_fit(shapes.inputs[0], data):
        problems.append(FitProblem(INPUT_SHAPE, {"model": str(tuple(shapes.inputs[0])),
                                                 "data": str(data), "dataset": info.name}))
    sparse = loss is None or "sparse" in loss
    units, classes = shapes.output_units, int(info.num_classes or 0)
    if info.task == "classification" and sparse and units is not None and units < classes:
        problems.append(FitProblem(CLASSES, {"outputs": units, "classes": classes,
                                             "dataset": info.name}))
    return problems


def check_fits(shapes: ModelShapes, info: Any, loss: str | None) -> None:
    """Raise the first fit problem as a RunError (``train.err.input_shape`` or
    ``train.err.classes`` with structured params); nothing when the model fits."""
    problems = fit_problems(shapes, info, loss)
    if problems:
        raise problems[0].error()


def spec_shapes(spec: Any) -> ModelShapes:
    """A spec's shapes inferred without TensorFlow (a deferred Sequential: no inputs)."""
    from tfcore.model import validate

    inputs = tuple(tuple(i.shape) for i in spec.inputs)
    if not spec.layers:
        return ModelShapes(inputs)
    last = spec.outputs[0] if spec.outputs else spec.layers[-1].name
    try:
        shape = validate(spec).shapes.get(last)
    except Exception:  # noqa: BLE001 - an odd spec is the builder's business, not this check's
        return ModelShapes(inputs)
    units = int(shape[-1]) if shape and shape[-1] is not None else None
    return ModelShapes(inputs, units)


def model_shapes(model: Any) -> ModelShapes | None:
    """A built Keras model's shapes; None for a subclassed or deferred model (Keras checks
    it at the first batch)."""
    try:
        inputs = tuple(tuple(i.shape[1:]) for i in (model.inputs or []))
        out = model.outputs[0].shape if model.outputs else None
    except (AttributeError, ValueError):
        return None
    units = int(out[-1]) if out is not None and len(out) and out[-1] is not None else None
    return ModelShapes(inputs, units)


def check_model_fits(model: Any, info: Any, loss: str | None) -> None:
    """The worker's refusal: :func:`check_fits` with a built model's shapes."""
    shapes = model_shapes(model)
    if shapes is not None:
        check_fits(shapes, info, loss)


def check_spec_fits(spec: Any, info: Any, loss: str | None) -> None:
    """The command line's refusal: :func:`check_fits` with a spec's shapes."""
    check_fits(spec_shapes(spec), info, loss)


def check_request_fits(request: Mapping[str, Any]) -> None:
    """The command line's refusal: :func:`check_fits` for a run request (the ``run.json``
    body), with its spec's shapes, its dataset's description and its loss."""
    from tfcore.data import load_dataset
    from tfcore.training.request import RunRequest

    checked = RunRequest.from_dict(request)
    info = load_dataset(checked.dataset).info          # cached per request
    check_spec_fits(checked.model_spec(), info, checked.train_config().loss)
