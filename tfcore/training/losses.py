"""The losses and metrics a run names: each entry says which Keras class makes it, how a
batch reduces it and (for metrics) the per-batch sum the GradientTape loop adds up.

The code view (:mod:`tfcore.training.tape_code`) reads each loss's :meth:`LossDef.code`,
the text of the very call :meth:`LossDef.make` makes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Callable, Mapping

_HALF_SSE: list[Any] = []


def half_sse_class() -> Any:
    """``0.5 * sum of squared errors`` (scenario M1) as a registered Keras Loss."""
    if _HALF_SSE:
        return _HALF_SSE[0]
    import keras

    @keras.saving.register_keras_serializable(package="tflab")
    class HalfSumSquaredError(keras.losses.Loss):
        """0.5 * sum over the batch of squared errors (the tutorial's linear regression)."""

        def __init__(self, reduction: Any = "sum", name: str = "half_sse", dtype: Any = None):
            super().__init__(name=name, reduction=reduction, dtype=dtype)

        def call(self, y_true: Any, y_pred: Any) -> Any:
            y_true = keras.ops.cast(y_true, y_pred.dtype)
            return 0.5 * keras.ops.sum(keras.ops.square(y_pred - y_true), axis=-1)

    _HALF_SSE.append(HalfSumSquaredError)
    return HalfSumSquaredError


@dataclass(frozen=True)
class LossDef:
    """A loss: its class (``keras.losses.<keras_class>`` unless ``factory`` gives it),
    constant keyword arguments, how a batch reduces it and the code view's comment."""

    keras_class: str
    fixed: tuple[tuple[str, Any], ...] = ()
    reduction: str = "sum_over_batch_size"   # or "sum"
    note: str = "one value per example"
    factory: Callable[[], Any] | None = None

    def make(self, keras: Any, reduction: Any) -> Any:
        """The Keras Loss with ``reduction`` (None: one value per example)."""
        cls = self.factory() if self.factory else getattr(keras.losses, self.keras_class)
        return cls(**dict(self.fixed), reduction=reduction)

    def code(self) -> str:
        """The per-example call :meth:`make` makes, as Python text."""
        where = "" if self.factory else "keras.losses."
        args = [f"{k}={v!r}" for k, v in self.fixed] + ["reduction=None"]
        return f"{where}{self.keras_class}({', '.join(args)})"


LOSSES: Mapping[str, LossDef] = MappingProxyType({
    "sparse_categorical_crossentropy": LossDef("SparseCategoricalCrossentropy"),
    "sparse_categorical_crossentropy_logits": LossDef(
        "SparseCategoricalCrossentropy", fixed=(("from_logits", True),)),
    "categorical_crossentropy": LossDef("CategoricalCrossentropy"),
    "binary_crossentropy": LossDef("BinaryCrossentropy"),
    "mse": LossDef("MeanSquaredError"),
    "mae": LossDef("MeanAbsoluteError"),
    "huber": LossDef("Huber"),
    "half_sse": LossDef("HalfSumSquaredError", reduction="sum", factory=half_sse_class,
                        note="0.5 * sum of squared errors"),
})


def make_loss(name: str, per_example: bool = False) -> Any:
    """The Keras loss of ``name``; ``per_example`` gives one value per example."""
    import keras

    if name not in LOSSES:                      # a user-written loss (fit loop only)
        from tfcore.custom import make_custom_loss

        return make_custom_loss(name, None if per_example else "sum_over_batch_size")
    spec = LOSSES[name]
    return spec.make(keras, None if per_example else spec.reduction)


# ---------------------------------------------------------------- metrics
@dataclass(frozen=True)
class MetricDef:
    """A metric: ``keras.metrics.<keras_class>`` (fit loop), a per-batch sum (custom
    loop) and whether it is a rate (a fraction of examples, always in [0, 1])."""

    keras_class: str
    batch_sum: Callable[[Any, Any, Any], Any]  # (tf, y_true, y_pred) -> scalar sum
    rate: bool = False

    def make(self, keras: Any, name: str) -> Any:
        return getattr(keras.metrics, self.keras_class)(name=name)


def _sparse_acc_sum(tf: Any, y: Any, p: Any) -> Any:
    y = tf.cast(tf.reshape(y, [-1]), tf.int64)
    return tf.reduce_sum(tf.cast(tf.equal(tf.argmax(p, axis=-1), y), tf.float32))


def _binary_acc_sum(tf: Any, y: Any, p: Any) -> Any:
    hit = tf.equal(tf.cast(p > 0.5, tf.float32), tf.cast(tf.reshape(y, tf.shape(p)), tf.float32))
    return tf.reduce_sum(tf.reduce_mean(tf.cast(hit, tf.float32), axis=-1))


def _mae_sum(tf: Any, y: Any, p: Any) -> Any:
    d = tf.cast(tf.reshape(y, tf.shape(p)), p.dtype) - p
    return tf.reduce_sum(tf.reduce_mean(tf.cast(tf.abs(d), tf.float32), axis=-1))


def _mse_sum(tf: Any, y: Any, p: Any) -> Any:
    d = tf.cast(tf.reshape(y, tf.shape(p)), p.dtype) - p
    return tf.reduce_sum(tf.reduce_mean(tf.cast(tf.square(d), tf.float32), axis=-1))


METRICS: Mapping[str, MetricDef] = MappingProxyType({
    "sparse_categorical_accuracy": MetricDef("SparseCategoricalAccuracy", _sparse_acc_sum,
                                             rate=True),
    "binary_accuracy": MetricDef("BinaryAccuracy", _binary_acc_sum, rate=True),
    "mae": MetricDef("MeanAbsoluteError", _mae_sum),
    "mse": MetricDef("MeanSquaredError", _mse_sum),
})


def is_rate(name: str) -> bool:
    """Whether the metric ``name`` is a rate of the registry (accuracy-type: in [0, 1])."""
    spec = METRICS.get(name)
    return spec is not None and spec.rate


def bound_rates(logs: Mapping[str, float]) -> dict:
    """``logs`` with every rate held inside [0, 1]: the last guard where values are
    recorded (the loops compute rates exactly; NaN stays NaN)."""
    return {k: (min(1.0, max(0.0, float(v))) if is_rate(k) and not math.isnan(v) else v)
            for k, v in logs.items()}


def make_metrics(names: tuple[str, ...]) -> list[Any]:
    import keras

    from tfcore.custom import make_custom_metric

    return [METRICS[n].make(keras, n) if n in METRICS else make_custom_metric(n) for n in names]


def default_loss_and_metrics(task: str, num_classes: int | None) -> tuple[str, tuple[str, ...]]:
    """A sensible loss and metric for a dataset's task."""
    if task == "regression":
        return "mse", ("mae",)
    return "sparse_categorical_crossentropy", ("sparse_categorical_accuracy",)
