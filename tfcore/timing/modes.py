"""Execution modes the timing lab compares, as a registry of step factories.

Each mode turns a :class:`Workbench` (one model with the shared initial weights, its own
optimizer, the loss) into a callable ``step(x, y) -> loss`` that runs one workload step:
``"step"`` (forward, loss, gradients, optimizer update) or ``"forward"`` (forward and loss).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from tfcore.errors import TimingError
from tfcore.messages import Names, Text

WORKLOADS = ("step", "forward")


@dataclass(frozen=True)
class LossSpec:
    """How the loss of a model's output is computed and which labels it needs."""

    kind: str  # "classification" or "regression"
    num_classes: int
    from_logits: bool
    output_shape: tuple[int, ...]

    def make(self) -> Any:
        import keras

        if self.kind == "classification":
            return keras.losses.SparseCategoricalCrossentropy(from_logits=self.from_logits)
        return keras.losses.MeanSquaredError()


@dataclass
class Workbench:
    """One mode's private copy of the model (shared initial weights) and optimizer."""

    model: Any
    optimizer: Any
    loss_fn: Any
    learning_rate: float


def make_workbench(spec: Any, initial_weights: Sequence[Any], loss: LossSpec,
                   learning_rate: float) -> Workbench:
    """Build a fresh model from ``spec`` and load the shared initial weights into it."""
    import keras

    from tfcore.model import build_model

    model = build_model(spec)
    model.set_weights(list(initial_weights))
    optimizer = keras.optimizers.Adam(learning_rate=learning_rate)
    optimizer.build(model.trainable_variables)
    return Workbench(model, optimizer, loss.make(), learning_rate)


def python_step(bench: Workbench, workload: str) -> Callable[[Any, Any], Any]:
    """The plain Python function of one workload step (eager unless wrapped)."""
    import tensorflow as tf

    model, optimizer, loss_fn = bench.model, bench.optimizer, bench.loss_fn

    def train_step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    def forward_step(x, y):
        return loss_fn(y, model(x, training=False))

    return train_step if workload == "step" else forward_step


def _eager(bench: Workbench, workload: str) -> Callable:
    return python_step(bench, workload)


def _graph(bench: Workbench, workload: str) -> Callable:
    import tensorflow as tf

    return tf.function(python_step(bench, workload))


def _xla(bench: Workbench, workload: str) -> Callable:
    import tensorflow as tf

    return tf.function(python_step(bench, workload), jit_compile=True)


def _fit(bench: Workbench, workload: str) -> Callable:
    """Keras's own train step (the function ``fit`` runs per batch), via train_on_batch."""
    model = bench.model
    model.compile(optimizer=bench.optimizer, loss=bench.loss_fn, jit_compile=False)

    def step(x, y):
        return model.train_on_batch(x, y)

    return step


@dataclass(frozen=True)
class ModeDef:
    """One execution mode: its name, title in both languages and step factory."""

    name: str
    title: Mapping[str, str]
    workloads: tuple[str, ...]
    make: Callable[[Workbench, str], Callable]


MODES: dict[str, ModeDef] = {m.name: m for m in (
    ModeDef("eager", Text("timing.mode.eager"), WORKLOADS, _eager),
    ModeDef("graph", Text("timing.mode.graph"), WORKLOADS, _graph),
    ModeDef("xla", Text("timing.mode.xla"), WORKLOADS, _xla),
    ModeDef("fit", Text("timing.mode.fit"), ("step",), _fit),
)}


def mode_names() -> list[str]:
    return list(MODES)


def mode_title(name: str) -> Mapping[str, str]:
    mode = MODES.get(name)
    return mode.title if mode else Text("timing.mode.unknown", {"name": name})


def check_modes(modes: Sequence[str], workload: str) -> None:
    """Raise TimingError for an unknown workload, an unknown mode or a mode/workload clash."""
    if workload not in WORKLOADS:
        raise TimingError(key="timing.error.workload",
                          params={"workload": workload, "choices": Names(WORKLOADS)})
    if not modes:
        raise TimingError(key="timing.error.no_modes")
    for name in modes:
        if name not in MODES:
            raise TimingError(key="timing.error.mode",
                              params={"mode": name, "choices": Names(MODES)})
        if workload not in MODES[name].workloads:
            raise TimingError(key="timing.error.mode_workload",
                              params={"mode": name, "workload": workload})


def infer_loss(model: Any) -> LossSpec:
    """Classification (sparse labels) when the output has several units, else regression."""
    shape = tuple(int(d) if d is not None else 1 for d in model.outputs[0].shape[1:])
    units = shape[-1] if shape else 1
    if units <= 1:
        return LossSpec("regression", 0, False, shape)
    last = model.layers[-1] if model.layers else None
    activation = getattr(getattr(last, "activation", None), "__name__", "")
    is_softmax = type(last).__name__ == "Softmax" or activation == "softmax"
    return LossSpec("classification", units, not is_softmax, shape)
