"""Training configuration: :class:`TrainConfig`, whose defaults and checks come from the
registries of ``tfcore.training.registry`` (settings, optimizers, schedules, loops) and
``tfcore.training.losses`` (losses, metrics).

Everything here is chosen by name from a registry, so a run is fully described by the JSON
of :class:`TrainConfig` (``run.json["training"]``). The loops themselves live in
``tfcore.training.loops``.
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, fields
from typing import Any, Mapping

from tfcore.errors import RunError
from tfcore.tfenv import quiet_tensorflow
from tfcore.training.losses import (  # noqa: F401 - re-exported for callers
    LOSSES,
    METRICS,
    LossDef,
    MetricDef,
    default_loss_and_metrics,
    half_sse_class,
    make_loss,
    make_metrics,
)
from tfcore.training.registry import (  # noqa: F401 - re-exported for callers
    CHOICE,
    CKPT_PREFIX,
    DEFAULT_LOOP,
    DEFAULT_OPTIMIZER,
    DEFAULT_SCHEDULE,
    LOOP_KINDS,
    OPTIMIZERS,
    SCHEDULES,
    SETTINGS,
    USER_CODE_LOOP,
    check_choice,
    refusal,
)

quiet_tensorflow()


LOOP_NAMES = tuple(LOOP_KINDS)
# Checkpoint file names: ``<prefix>-<step>.index`` (``ckpt`` by default; ``model.ckpt`` as in
# the tutorial). A plain file name: letters, digits, ``.`` and ``_``, up to 64 characters.
CKPT_PREFIX_PATTERN = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._]{0,63}$")
CKPT_PREFIXES = ("ckpt", "model.ckpt")       # the choices the Train page offers
MAX_PACE = SETTINGS["steps_per_second"].high  # above this is no cap at all; say None instead
_D = {name: setting.default for name, setting in SETTINGS.items()}


@dataclass(frozen=True)
class TrainConfig:
    """How to train: loop, optimizer, schedule, loss, metrics, sizes, checkpoints.

    Numeric defaults and ranges are :data:`tfcore.training.registry.SETTINGS`.

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
        insight: record the model's insides while it trains (``insight/`` in the run
            directory: weight histograms, gradient norms, dead ReLUs, the decision
            boundary and every neuron's picture on 2-D data).
        insight_every: take those snapshots every this many steps; 0 (auto) as often as
            their measured cost stays within 3 % of the training time, and at least at
            the start, the first and the last step.
    """

    epochs: int = _D["epochs"]
    batch_size: int = _D["batch_size"]
    optimizer: str = DEFAULT_OPTIMIZER
    learning_rate: float = _D["learning_rate"]
    momentum: float = _D["momentum"]
    schedule: str = DEFAULT_SCHEDULE
    loss: str = "sparse_categorical_crossentropy"
    metrics: tuple[str, ...] = ("sparse_categorical_accuracy",)
    loop: str = DEFAULT_LOOP
    eager: bool = False
    seed: int = _D["seed"]
    ckpt_every: int = _D["ckpt_every"]
    keep: int = _D["keep"]
    mixed_precision: bool = False
    log_every: int = _D["log_every"]
    steps: int = _D["steps"]
    validate_every: int = _D["validate_every"]
    max_records_per_sec: float = 4.0
    shuffle: bool = True
    steps_per_second: float | None = _D["steps_per_second"]
    ckpt_prefix: str = "ckpt"
    insight: bool = True
    insight_every: int = _D["insight_every"]

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
            raise RunError(key="train.err.config", params={"message": str(exc)}) from exc
        config.check()
        return config

    def check(self) -> None:
        """Raise RunError naming the first bad value, with the range or the choices."""
        for f in fields(self):
            if f.name in SETTINGS:
                SETTINGS[f.name].check(getattr(self, f.name))
        check_choice("optimizer", self.optimizer, OPTIMIZERS)
        check_choice("schedule", self.schedule, SCHEDULES)
        check_choice("loop", self.loop, LOOP_KINDS)
        custom_losses, custom_metrics = _custom_names()
        check_choice("loss", self.loss, [*LOSSES, *custom_losses])
        for metric in self.metrics:
            check_choice("metrics", metric, [*METRICS, *custom_metrics])
        custom = [n for n in (self.loss, *self.metrics) if n not in LOSSES and n not in METRICS]
        if custom and not LOOP_KINDS[self.loop].user_code:
            raise refusal(USER_CODE_LOOP, name="loop", value=repr(self.loop), names=custom,
                          loops=[n for n, loop in LOOP_KINDS.items() if loop.user_code])
        if not isinstance(self.insight, bool):
            raise refusal(CHOICE, name="insight", value=repr(self.insight),
                          choices=["false", "true"])
        prefix = self.ckpt_prefix
        if (not isinstance(prefix, str) or not CKPT_PREFIX_PATTERN.match(prefix)
                or prefix == "checkpoint" or prefix.endswith((".index", "_temp"))):
            raise refusal(CKPT_PREFIX, value=repr(prefix))

    @property
    def sync_every(self) -> int:
        """The steps whose model a multi-step graph call must hand back: checkpoints and,
        when set, the insight interval (their greatest common divisor)."""
        if self.insight and self.insight_every:
            return math.gcd(self.ckpt_every, self.insight_every)
        return self.ckpt_every

    def total_steps(self, n_train: int) -> int:
        """Steps the run trains for with ``n_train`` training examples."""
        return self.steps or self.epochs * steps_per_epoch(n_train, self.batch_size)


def _custom_names() -> tuple[list[str], list[str]]:
    """The user-written losses and metrics loaded in this process (``tfcore.custom``)."""
    from tfcore.custom import loss_names, metric_names

    return loss_names(), metric_names()


def shapes_fit(model_shape: Any, data_shape: Any) -> bool:
    """Whether a model input shape (None = any size) accepts examples of ``data_shape``."""
    model_shape, data_shape = tuple(model_shape), tuple(data_shape)
    return len(model_shape) == len(data_shape) and all(
        m is None or int(m) == int(d) for m, d in zip(model_shape, data_shape))


def steps_per_epoch(n_train: int, batch_size: int) -> int:
    return max(1, math.ceil(n_train / batch_size))


def make_optimizer(config: TrainConfig, total_steps: int, spe: int) -> Any:
    """The optimizer of ``config`` with its learning-rate schedule."""
    import keras

    lr = SCHEDULES[config.schedule].make(keras, config.learning_rate, total_steps, spe)
    optimizer = OPTIMIZERS[config.optimizer].make(keras, lr, config)
    if config.mixed_precision and keras.mixed_precision.global_policy().name == "mixed_float16":
        optimizer = keras.optimizers.LossScaleOptimizer(optimizer)
    return optimizer
