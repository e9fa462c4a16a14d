"""Training configuration and the registries a run names: optimizers, schedules, losses,
metrics, loops.

Everything here is chosen by name from a registry, so a run is fully described by the JSON
of :class:`TrainConfig` (``run.json["training"]``). The loops themselves live in
``tfcore.training.loops``; :func:`train` dispatches to them.
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, fields
from typing import Any, Callable, Mapping

from tfcore.errors import RunError
from tfcore.tfenv import quiet_tensorflow

quiet_tensorflow()


# The training loops (implemented in tfcore.training.loops, registered there as LOOPS).
LOOP_NAMES = ("fit", "custom")
# Checkpoint file names: ``<prefix>-<step>.index`` (``ckpt`` by default; ``model.ckpt`` as in
# the tutorial). A plain file name: letters, digits, ``.`` and ``_``, up to 64 characters.
CKPT_PREFIX_PATTERN = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._]{0,63}$")
CKPT_PREFIXES = ("ckpt", "model.ckpt")       # the choices the Train page offers
MAX_PACE = 10_000.0     # steps_per_second above this is no cap at all; say None instead


@dataclass(frozen=True)
class TrainConfig:
    """How to train: loop, optimizer, schedule, loss, metrics, sizes, checkpoints.

    Attributes:
        steps: total training steps; 0 means ``epochs`` whole passes over the train split.
        validate_every: evaluate the validation split every this many epochs.
        log_every: write a train record every this many steps (1: every step; records
            are buffered and flushed a few times a second, so logging stays cheap).
        max_records_per_sec: how often a second buffered records are written out (every
            recorded step reaches the file; this only bounds the number of writes).
        steps_per_second: demo pacing, at most this many training steps a second so a
            class can watch learning unfold (None: unlimited). Both loops honour it and
            run one step per call while it is set.
        ckpt_prefix: checkpoint file names, ``<ckpt_prefix>-<step>.index`` and
            ``.data-00000-of-00001`` (``model.ckpt`` gives the tutorial's names).
    """

    epochs: int = 5
    batch_size: int = 50
    optimizer: str = "adam"
    learning_rate: float = 1e-3
    momentum: float = 0.0
    schedule: str = "constant"
    loss: str = "sparse_categorical_crossentropy"
    metrics: tuple[str, ...] = ("sparse_categorical_accuracy",)
    loop: str = "fit"
    eager: bool = False
    seed: int = 0
    ckpt_every: int = 100
    keep: int = 3
    mixed_precision: bool = False
    log_every: int = 1
    steps: int = 0
    validate_every: int = 1
    max_records_per_sec: float = 4.0
    shuffle: bool = True
    steps_per_second: float | None = None
    ckpt_prefix: str = "ckpt"

    def to_dict(self) -> dict:
        return asdict(self) | {"metrics": list(self.metrics)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> "TrainConfig":
        """Build and check a config; unknown keys are ignored.

        Raises:
            RunError: a value is out of range or names nothing in a registry.
        """
        data = dict(data or {})
        known = {f.name: f for f in fields(cls)}
        kwargs: dict[str, Any] = {}
        for key, value in data.items():
            if key not in known:
                continue
            if key == "metrics":
                value = tuple(value or ())
            kwargs[key] = value
        try:
            config = cls(**kwargs)
        except TypeError as exc:  # pragma: no cover - defensive
            raise RunError(f"Bad training config: {exc}", key="train.err.config",
                           params={"message": str(exc)}) from exc
        config.check()
        return config

    def check(self) -> None:
        """Raise RunError naming the first bad value."""
        ints = {"epochs": (1, 1_000_000), "batch_size": (1, 1_000_000),
                "ckpt_every": (1, 10_000_000), "keep": (1, 1000), "log_every": (1, 1_000_000),
                "steps": (0, 100_000_000), "validate_every": (1, 1_000_000)}
        for name, (low, high) in ints.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise _bad(name, value, f"an integer from {low} to {high}")
        if not (isinstance(self.learning_rate, (int, float)) and self.learning_rate > 0
                and math.isfinite(self.learning_rate)):
            raise _bad("learning_rate", self.learning_rate, "a positive number")
        if not 0 <= float(self.momentum) < 1:
            raise _bad("momentum", self.momentum, "a number in [0, 1)")
        for name, registry in (("optimizer", OPTIMIZERS), ("schedule", SCHEDULES),
                               ("loop", LOOP_NAMES)):
            value = getattr(self, name)
            if value not in registry:
                raise _bad(name, value, f"one of {sorted(registry)}")
        custom_losses, custom_metrics = _custom_names()
        if self.loss not in LOSSES and self.loss not in custom_losses:
            raise _bad("loss", self.loss, f"one of {sorted(LOSSES) + custom_losses}")
        for metric in self.metrics:
            if metric not in METRICS and metric not in custom_metrics:
                raise _bad("metrics", metric, f"one of {sorted(METRICS) + custom_metrics}")
        custom = [n for n in (self.loss, *self.metrics) if n not in LOSSES and n not in METRICS]
        if custom and self.loop != "fit":
            raise _bad("loop", self.loop, f"'fit' when a user-written loss or metric "
                       f"({', '.join(custom)}) is chosen")
        prefix = self.ckpt_prefix
        if (not isinstance(prefix, str) or not CKPT_PREFIX_PATTERN.match(prefix)
                or prefix == "checkpoint" or prefix.endswith((".index", "_temp"))):
            raise _bad("ckpt_prefix", prefix, "a file name of letters, digits, '.' and '_' "
                       "(at most 64 characters), e.g. ckpt or model.ckpt")
        pace = self.steps_per_second
        if pace is not None and (isinstance(pace, bool) or not isinstance(pace, (int, float))
                                 or not math.isfinite(pace) or not 0 < pace <= MAX_PACE):
            raise _bad("steps_per_second", pace,
                       f"a number in (0, {MAX_PACE:g}] or null (unlimited)")

    def total_steps(self, n_train: int) -> int:
        """Steps the run trains for with ``n_train`` training examples."""
        return self.steps or self.epochs * steps_per_epoch(n_train, self.batch_size)


def _custom_names() -> tuple[list[str], list[str]]:
    """The user-written losses and metrics loaded in this process (``tfcore.custom``)."""
    from tfcore.custom import loss_names, metric_names

    return loss_names(), metric_names()


def _bad(name: str, value: Any, allowed: str) -> RunError:
    return RunError(f"Training setting {name!r} must be {allowed}. Received: {name}={value!r}",
                    key="train.err.setting",
                    params={"name": name, "value": repr(value), "allowed": allowed})


def shapes_fit(model_shape: Any, data_shape: Any) -> bool:
    """Whether a model input shape (None = any size) accepts examples of ``data_shape``."""
    model_shape, data_shape = tuple(model_shape), tuple(data_shape)
    return len(model_shape) == len(data_shape) and all(
        m is None or int(m) == int(d) for m, d in zip(model_shape, data_shape))


def steps_per_epoch(n_train: int, batch_size: int) -> int:
    return max(1, math.ceil(n_train / batch_size))


# ---------------------------------------------------------------- optimizers
def _sgd(keras: Any, lr: Any, c: TrainConfig) -> Any:
    return keras.optimizers.SGD(learning_rate=lr, momentum=float(c.momentum))


def _adam(keras: Any, lr: Any, c: TrainConfig) -> Any:
    return keras.optimizers.Adam(learning_rate=lr)


def _adamw(keras: Any, lr: Any, c: TrainConfig) -> Any:
    return keras.optimizers.AdamW(learning_rate=lr, weight_decay=0.004)


def _rmsprop(keras: Any, lr: Any, c: TrainConfig) -> Any:
    return keras.optimizers.RMSprop(learning_rate=lr, momentum=float(c.momentum))


def _adagrad(keras: Any, lr: Any, c: TrainConfig) -> Any:
    return keras.optimizers.Adagrad(learning_rate=lr)


OPTIMIZERS: dict[str, Callable[[Any, Any, TrainConfig], Any]] = {
    "sgd": _sgd, "adam": _adam, "adamw": _adamw, "rmsprop": _rmsprop, "adagrad": _adagrad,
}


# ---------------------------------------------------------------- schedules
def _constant(keras: Any, c: TrainConfig, total: int, spe: int) -> Any:
    return float(c.learning_rate)


def _exponential(keras: Any, c: TrainConfig, total: int, spe: int) -> Any:
    """Multiply the rate by 0.9 every epoch."""
    return keras.optimizers.schedules.ExponentialDecay(float(c.learning_rate),
                                                       decay_steps=spe, decay_rate=0.9)


def _cosine(keras: Any, c: TrainConfig, total: int, spe: int) -> Any:
    """Cosine decay to zero over the whole run."""
    return keras.optimizers.schedules.CosineDecay(float(c.learning_rate),
                                                  decay_steps=max(1, total))


SCHEDULES: dict[str, Callable[[Any, TrainConfig, int, int], Any]] = {
    "constant": _constant, "exponential": _exponential, "cosine": _cosine,
}


def make_optimizer(config: TrainConfig, total_steps: int, spe: int) -> Any:
    """The optimizer of ``config`` with its learning-rate schedule."""
    import keras

    lr = SCHEDULES[config.schedule](keras, config, total_steps, spe)
    optimizer = OPTIMIZERS[config.optimizer](keras, lr, config)
    if config.mixed_precision and keras.mixed_precision.global_policy().name == "mixed_float16":
        optimizer = keras.optimizers.LossScaleOptimizer(optimizer)
    return optimizer


# ---------------------------------------------------------------- losses
@dataclass(frozen=True)
class LossDef:
    """A loss: a Keras Loss factory (given a reduction) and how a batch reduces it."""

    make: Callable[[Any, Any], Any]   # (keras, reduction) -> keras.losses.Loss
    reduction: str = "sum_over_batch_size"   # or "sum"


def _half_sse(keras: Any, reduction: Any) -> Any:
    return half_sse_class()(reduction=reduction)


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


LOSSES: dict[str, LossDef] = {
    "sparse_categorical_crossentropy": LossDef(
        lambda k, r: k.losses.SparseCategoricalCrossentropy(reduction=r)),
    "sparse_categorical_crossentropy_logits": LossDef(
        lambda k, r: k.losses.SparseCategoricalCrossentropy(from_logits=True, reduction=r)),
    "categorical_crossentropy": LossDef(
        lambda k, r: k.losses.CategoricalCrossentropy(reduction=r)),
    "binary_crossentropy": LossDef(lambda k, r: k.losses.BinaryCrossentropy(reduction=r)),
    "mse": LossDef(lambda k, r: k.losses.MeanSquaredError(reduction=r)),
    "mae": LossDef(lambda k, r: k.losses.MeanAbsoluteError(reduction=r)),
    "huber": LossDef(lambda k, r: k.losses.Huber(reduction=r)),
    "half_sse": LossDef(_half_sse, reduction="sum"),
}


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
    """A metric: a Keras metric (fit loop) and a per-batch sum (custom loop)."""

    make: Callable[[Any, str], Any]          # (keras, name) -> keras.metrics.Metric
    batch_sum: Callable[[Any, Any, Any], Any]  # (tf, y_true, y_pred) -> scalar sum


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


METRICS: dict[str, MetricDef] = {
    "sparse_categorical_accuracy": MetricDef(
        lambda k, n: k.metrics.SparseCategoricalAccuracy(name=n), _sparse_acc_sum),
    "binary_accuracy": MetricDef(lambda k, n: k.metrics.BinaryAccuracy(name=n), _binary_acc_sum),
    "mae": MetricDef(lambda k, n: k.metrics.MeanAbsoluteError(name=n), _mae_sum),
    "mse": MetricDef(lambda k, n: k.metrics.MeanSquaredError(name=n), _mse_sum),
}


def make_metrics(names: tuple[str, ...]) -> list[Any]:
    import keras

    from tfcore.custom import make_custom_metric

    return [METRICS[n].make(keras, n) if n in METRICS else make_custom_metric(n) for n in names]


def default_loss_and_metrics(task: str, num_classes: int | None) -> tuple[str, tuple[str, ...]]:
    """A sensible loss and metric for a dataset's task."""
    if task == "regression":
        return "mse", ("mae",)
    return "sparse_categorical_crossentropy", ("sparse_categorical_accuracy",)


# ---------------------------------------------------------------- loops
