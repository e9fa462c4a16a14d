"""The hand-written GradientTape loop as text (scenario T1), for a training config.

The step is read with :func:`inspect.getsource` from the function the loop really runs
(:meth:`tfcore.training.tape_loop.TapeSteps._train_one`); the header above it names the
loss and optimizer the config creates, read from the same factories the run uses
(:data:`tfcore.training.config.LOSSES`, :data:`~tfcore.training.config.OPTIMIZERS`), so the
text cannot drift from what trains.
"""

from __future__ import annotations

import inspect
import re
import textwrap
from typing import Any, Mapping

from tfcore.training.config import LOSSES, OPTIMIZERS, SCHEDULES, TrainConfig
from tfcore.training.tape_loop import TapeSteps

_LOSS_CALL = re.compile(r"k\.losses\.\w+\([^()]*\)")
_OPT_CALL = re.compile(r"return (keras\.optimizers\.\w+\(.*\))")
_SCHEDULE_TEXT = {
    "constant": "{lr:g}",
    "exponential": "keras.optimizers.schedules.ExponentialDecay(\n"
                   "    {lr:g}, decay_steps=steps_per_epoch, decay_rate=0.9)",
    "cosine": "keras.optimizers.schedules.CosineDecay({lr:g}, decay_steps=total_steps)",
}


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
    if name == "half_sse":
        return "loss_obj = HalfSumSquaredError(reduction=None)  # 0.5 * sum of squared errors"
    found = _LOSS_CALL.search(inspect.getsource(spec.make))
    call = found.group(0) if found else f"make_loss({name!r})"
    call = call.replace("k.losses.", "keras.losses.").replace("reduction=r", "reduction=None")
    return f"loss_obj = {call}  # one value per example"


def optimizer_line(config: TrainConfig) -> str:
    """``optimizer = ...`` with the config's rate, schedule and momentum filled in."""
    factory = OPTIMIZERS.get(config.optimizer)
    found = _OPT_CALL.search(inspect.getsource(factory)) if factory else None
    call = found.group(1) if found else f"make_optimizer({config.optimizer!r})"
    schedule = _SCHEDULE_TEXT.get(config.schedule, "{lr:g}") \
        if config.schedule in SCHEDULES else "{lr:g}"
    call = call.replace("float(c.momentum)", f"{float(config.momentum):g}")
    call = re.sub(r"learning_rate=lr\b",
                  "learning_rate=" + schedule.format(lr=float(config.learning_rate)), call)
    return f"optimizer = {call}"


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
