"""Every choice a run names, described once: numeric settings (range, step, default), the
optimizers, learning-rate schedules, loops and device kinds.

Each entry says how to make it, which options it takes, its code text for the GradientTape
loop's code view and its label key in ``ui/common/locales/<lang>/train.json``. The
TrainConfig defaults and checks, the Train form, the CLI, the URL state and the code view
are all derived from these tables, so adding an optimizer is one :class:`Optimizer` line in
:data:`OPTIMIZERS` plus its label in the two catalogs (see docs/training.md).

This module imports no TensorFlow; factories take the ``keras`` module as an argument.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Iterable, Mapping

from tfcore.errors import RunError, TFLabError

# The refusals' keys; their texts are the engine catalog's (tfcore/locales/*/train.json).
INT_RANGE = "train.err.int_range"
FLOAT_RANGE = "train.err.float_range"
FLOAT_RANGE_OR_NONE = "train.err.float_range_or_none"
CHOICE = "train.err.choice"
USER_CODE_LOOP = "train.err.user_code_loop"
CKPT_PREFIX = "train.err.ckpt_prefix"
REFUSALS = (INT_RANGE, FLOAT_RANGE, FLOAT_RANGE_OR_NONE, CHOICE, USER_CODE_LOOP, CKPT_PREFIX)


def refusal(key: str, error: type[TFLabError] = RunError, **params: Any) -> TFLabError:
    """An engine error ``key`` (one of :data:`REFUSALS`) with ``params``; its English
    message is the catalog's text."""
    return error(key=key, params=params)


# ---------------------------------------------------------------- numeric settings
@dataclass(frozen=True)
class Setting:
    """A numeric setting: kind (int or float), closed range ``[low, high]``, widget step,
    default, and whether None is allowed (it then means "no limit")."""

    name: str
    kind: type
    low: float
    high: float
    default: Any
    step: float | None = None
    optional: bool = False

    def accepts(self, value: Any) -> bool:
        if value is None:
            return self.optional
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return False
        if self.kind is int and not isinstance(value, int):
            return False
        return math.isfinite(value) and self.low <= value <= self.high

    def check(self, value: Any, error: type[TFLabError] = RunError) -> None:
        """Raise ``error`` with the range as structured params when ``value`` is outside."""
        if self.accepts(value):
            return
        key = INT_RANGE if self.kind is int else (FLOAT_RANGE_OR_NONE if self.optional
                                                  else FLOAT_RANGE)
        raise refusal(key, error, name=self.name, value=repr(value), low=self.low,
                      high=self.high)

    def parse(self, text: str) -> Any:
        """The value of ``text`` (a URL or command-line value); ValueError outside the range."""
        value = self.kind(text)
        if not self.accepts(value):
            raise ValueError(text)
        return value

    def describe(self) -> str:
        """``1 to 1,000,000`` (command-line help)."""
        if self.kind is int:
            return f"{self.low:,} to {self.high:,}"
        return f"{self.low:g} to {self.high:g}"


def _settings(*items: Setting) -> Mapping[str, Setting]:
    return MappingProxyType({s.name: s for s in items})


SETTINGS: Mapping[str, Setting] = _settings(
    Setting("epochs", int, 1, 1_000_000, 5),
    Setting("batch_size", int, 1, 1_000_000, 50),
    Setting("learning_rate", float, 1e-7, 1e7, 1e-3),
    Setting("momentum", float, 0.0, 0.99, 0.0, step=0.01),
    Setting("seed", int, 0, 2**31 - 1, 0),
    Setting("ckpt_every", int, 1, 10_000_000, 100),
    # record the model's insides every N steps; 0: auto (as often as <= 3 % of the time)
    Setting("insight_every", int, 0, 10_000_000, 0),
    Setting("keep", int, 1, 1000, 3),
    Setting("log_every", int, 1, 1_000_000, 1),
    Setting("steps", int, 0, 100_000_000, 0),
    Setting("validate_every", int, 1, 1_000_000, 1),
    Setting("steps_per_second", float, 0.01, 10_000.0, None, optional=True),
    Setting("logical_devices", int, 0, 16, 0),
    Setting("memory_limit_mb", int, 0, 1_000_000, 0, step=256),
    Setting("workers", int, 2, 16, 2),                  # a cluster run's worker processes
    Setting("backup_every", int, 1, 1_000_000, 20),     # a cluster run's backup interval
)


def check_choice(name: str, value: Any, choices: Iterable[str],
                 error: type[TFLabError] = RunError) -> None:
    """Raise ``error`` (key ``train.err.choice``, the sorted choices as a list) unless
    ``value`` is one of ``choices``."""
    allowed = list(choices)
    if not isinstance(value, str) or value not in allowed:
        raise refusal(CHOICE, error, name=name, value=repr(value), choices=sorted(allowed))


def _args(*items: str) -> str:
    return ", ".join(item for item in items if item)


# ---------------------------------------------------------------- optimizers
@dataclass(frozen=True)
class Optimizer:
    """A ``keras.optimizers`` class, the TrainConfig settings it takes besides the
    learning rate (``options``) and constant keyword arguments (``fixed``). ``label`` is a
    catalog key with a line on what it does; without one the form shows the class name
    (an optimizer's name is a proper noun in both languages)."""

    name: str
    keras_class: str
    label: str | None = None
    options: tuple[str, ...] = ()
    fixed: tuple[tuple[str, Any], ...] = ()

    def kwargs(self, config: Any) -> dict:
        """The keyword arguments besides the rate: the config's options, then ``fixed``."""
        options = {o: SETTINGS[o].kind(getattr(config, o)) for o in self.options}
        return {**options, **dict(self.fixed)}

    def make(self, keras: Any, learning_rate: Any, config: Any) -> Any:
        """The optimizer of ``config`` (``learning_rate``: a number or a schedule)."""
        cls = getattr(keras.optimizers, self.keras_class)
        return cls(learning_rate=learning_rate, **self.kwargs(config))

    def code(self, learning_rate: str, config: Any) -> str:
        """``keras.optimizers.SGD(learning_rate=0.01, momentum=0.9)``: what :meth:`make` calls."""
        options = (f"{o}={SETTINGS[o].kind(getattr(config, o)):g}" for o in self.options)
        fixed = (f"{k}={v!r}" for k, v in self.fixed)
        return (f"keras.optimizers.{self.keras_class}("
                f"{_args(f'learning_rate={learning_rate}', *options, *fixed)})")


def _optimizers(*items: Optimizer) -> Mapping[str, Optimizer]:
    return MappingProxyType({o.name: o for o in items})


OPTIMIZERS: Mapping[str, Optimizer] = _optimizers(
    Optimizer("sgd", "SGD", "train.opt.sgd", options=("momentum",)),
    Optimizer("adam", "Adam", "train.opt.adam"),
    Optimizer("adamw", "AdamW", "train.opt.adamw", fixed=(("weight_decay", 0.004),)),
    Optimizer("rmsprop", "RMSprop", "train.opt.rmsprop", options=("momentum",)),
    Optimizer("adagrad", "Adagrad", "train.opt.adagrad"),
    Optimizer("nadam", "Nadam", "train.opt.nadam"),
    Optimizer("lion", "Lion", "train.opt.lion"),
    Optimizer("adamax", "Adamax"),
)
DEFAULT_OPTIMIZER = "adam"


# ---------------------------------------------------------------- schedules
@dataclass(frozen=True)
class Schedule:
    """A learning-rate schedule: a ``keras.optimizers.schedules`` class (None: the rate
    stays constant) decaying over one epoch or the whole run, and constant arguments."""

    name: str
    label: str
    keras_class: str | None = None
    decay_steps: str = "total_steps"            # or "steps_per_epoch"
    fixed: tuple[tuple[str, Any], ...] = ()

    def make(self, keras: Any, learning_rate: float, total_steps: int, spe: int) -> Any:
        if self.keras_class is None:
            return float(learning_rate)
        steps = spe if self.decay_steps == "steps_per_epoch" else max(1, total_steps)
        cls = getattr(keras.optimizers.schedules, self.keras_class)
        return cls(float(learning_rate), decay_steps=steps, **dict(self.fixed))

    def code(self, learning_rate: float) -> str:
        """``0.001`` or ``keras.optimizers.schedules.CosineDecay(0.001, ...)``."""
        if self.keras_class is None:
            return f"{float(learning_rate):g}"
        fixed = (f"{k}={v!r}" for k, v in self.fixed)
        return (f"keras.optimizers.schedules.{self.keras_class}("
                f"{_args(f'{float(learning_rate):g}', f'decay_steps={self.decay_steps}', *fixed)})")


SCHEDULES: Mapping[str, Schedule] = MappingProxyType({s.name: s for s in (
    Schedule("constant", "train.sched.constant"),
    Schedule("exponential", "train.sched.exponential", "ExponentialDecay",
             decay_steps="steps_per_epoch", fixed=(("decay_rate", 0.9),)),
    Schedule("cosine", "train.sched.cosine", "CosineDecay"),
)})
DEFAULT_SCHEDULE = "constant"


# ---------------------------------------------------------------- loops
@dataclass(frozen=True)
class Loop:
    """A training loop style (the function is ``tfcore.training.loops.LOOPS[name]``)."""

    name: str
    label: str
    eager_option: bool = False       # may run eagerly (else always a traced graph)
    user_code: bool = False          # trains user-written losses and metrics
    shows_code: bool = False         # the Train page shows its code (tape_loop_code)


LOOP_KINDS: Mapping[str, Loop] = MappingProxyType({loop.name: loop for loop in (
    Loop("fit", "train.loop.fit", user_code=True),
    Loop("custom", "train.loop.custom", eager_option=True, shows_code=True),
)})
DEFAULT_LOOP = "fit"


# ---------------------------------------------------------------- devices
@dataclass(frozen=True)
class DeviceKind:
    """A DeviceConfig kind; ``flag`` is its ``--device`` spelling where the shared device
    flags take it (None: a command of its own sets it up, as ``train --device cluster``)."""

    name: str
    label: str
    flag: str | None


DEVICE_KINDS: Mapping[str, DeviceKind] = MappingProxyType({d.name: d for d in (
    DeviceKind("cpu", "train.device.cpu", "cpu"),
    DeviceKind("gpu", "train.device.gpu", "gpu:N"),
    DeviceKind("mirrored", "train.device.mirrored", "mirrored"),
    DeviceKind("cluster", "train.device.cluster", None),
)})
