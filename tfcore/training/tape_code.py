"""The hand-written GradientTape loop as text (scenario T1), for a training config.

The step is read with :func:`inspect.getsource` from the function the loop really runs
(:meth:`tfcore.training.tape_loop.TapeSteps._train_one`); the header above it names the
loss, schedule and optimizer the config creates, as the registry entries the run makes
them from write them (:meth:`~tfcore.training.losses.LossDef.code`,
:meth:`~tfcore.training.registry.Schedule.code`,
:meth:`~tfcore.training.registry.Optimizer.code`), so the text cannot drift from what trains.
"""

from __future__ import annotations

import inspect
import textwrap
from typing import Any, Mapping

from tfcore.training.config import TrainConfig
from tfcore.training.losses import LOSSES
from tfcore.training.registry import DEFAULT_SCHEDULE, OPTIMIZERS, SCHEDULES
from tfcore.training.tape_loop import TapeSteps


def _config(config: TrainConfig | Mapping[str, Any]) -> TrainConfig:
    if isinstance(config, TrainConfig):
        return config
    known = {k: v for k, v in dict(config).items() if k in TrainConfig.__dataclass_fields__}
    if "metrics" in known:
        known["metrics"] = tuple(known["metrics"])
    return TrainConfig(**known)


def loss_line(name: str) -> str:
    """``loss_obj = ...``: the per-example loss the loop computes for ``name``."""
    spec = LOSSES.get(name)
    if spec is None:
        return f"loss_obj = make_custom_loss({name!r}, reduction=None)  # your loss"
    return f"loss_obj = {spec.code()}  # {spec.note}"


def optimizer_line(config: TrainConfig) -> str:
    """``optimizer = ...`` with the config's rate, schedule and options filled in."""
    optimizer = OPTIMIZERS.get(config.optimizer)
    if optimizer is None:
        return f"optimizer = make_optimizer({config.optimizer!r})"
    schedule = SCHEDULES.get(config.schedule, SCHEDULES[DEFAULT_SCHEDULE])
    return f"optimizer = {optimizer.code(schedule.code(config.learning_rate), config)}"


def tape_loop_code(config: TrainConfig | Mapping[str, Any]) -> str:
    """The GradientTape loop a run of ``config`` trains with, as Python text.

    The train step is the real source of ``TapeSteps._train_one``; ``self.`` names the
    objects created in the header.
    """
    cfg = _config(config)
    spec = LOSSES.get(cfg.loss)
    mean = spec is None or spec.reduction != "sum"
    step = textwrap.dedent(inspect.getsource(TapeSteps._train_one)).rstrip()
    if cfg.eager:
        how = ["# Run eagerly: the step runs op by op in Python, one batch per call."]
    else:
        how = ["# The step runs as tf.function(reduce_retracing=True): traced once into a graph;",
               "# on one device a graph loop trains several batches per call (_train_many)."]
    header = [
        "# The GradientTape loop of this run (tfcore/training/tape_loop.py, TapeSteps).",
        "import keras",
        "import tensorflow as tf",
        "",
        loss_line(cfg.loss),
        optimizer_line(cfg),
        f"mean_loss = {mean}  # {'divide' if mean else 'do not divide'} the batch's loss sum "
        "by the number of examples",
        "",
        *how,
        f"# batch size {cfg.batch_size}, {cfg.epochs} epoch(s); every step is one call of:",
        "",
    ]
    footer = [
        "",
        "",
        f"# for epoch in range({cfg.epochs}):",
        f"#     for x, y in batches of {cfg.batch_size} (one shuffled order per epoch, seed "
        f"{cfg.seed}):",
        "#         stats = self._train_one(x, y)   # the step above",
    ]
    return "\n".join(header) + step + "\n".join(footer)
