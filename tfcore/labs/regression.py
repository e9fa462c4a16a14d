"""Gradient descent live: M1 (y = a·x + b on house prices) and M2 (Dense(1), zero init).

A :class:`GradientDescentLab` holds the variables and optimizer of one problem and runs
``n`` full-batch steps at a time inside one ``tf.function`` loop, so a page can keep the
lab in its session and step it on demand. :meth:`GradientDescentLab.snapshot` returns the
plain data a page draws: parameters, loss history, fitted values.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np

from tfcore.errors import TFLabError
from tfcore.messages import Names

MAX_STEPS_PER_CALL = 20_000
HOUSE_YEARS = (2013, 2014, 2015, 2016, 2017)
HOUSE_PRICES = (12000, 14000, 15000, 16500, 17500)


class RegressionLabError(TFLabError):
    """Unknown problem or optimizer, or a bad learning rate or step count."""

    default_key = "foundations.err.regression"


def house_prices() -> tuple[np.ndarray, np.ndarray]:
    """M1's years and prices, both min-max normalized, as (5,) float32 arrays."""
    try:
        from tfcore.data import house_prices_arrays

        x, y = house_prices_arrays()
        return x.ravel(), y.ravel()
    except ImportError:  # the data area is optional for this lab
        years = np.array(HOUSE_YEARS, dtype=np.float64)
        prices = np.array(HOUSE_PRICES, dtype=np.float64)
        norm = [(v - v.min()) / (v.max() - v.min()) for v in (years, prices)]
        return norm[0].astype(np.float32), norm[1].astype(np.float32)


@dataclass(frozen=True)
class Problem:
    """A regression problem: data, how to make its variables, predict and the loss."""

    name: str
    optimizer: str
    learning_rate: float
    steps: int                          # the scenario's number of steps
    target: Mapping[str, tuple[float, ...]]  # the scenario's final parameters
    data: Callable[[], tuple[np.ndarray, np.ndarray]]
    build: Callable[[], tuple[Any, dict[str, Any]]]  # -> (predict fn, {param: variable})
    loss: str                           # "half_sse" | "mse"
    code: str


def _build_m1():
    import tensorflow as tf

    a, b = tf.Variable(0.0, name="a"), tf.Variable(0.0, name="b")
    return (lambda x: a * x + b), {"a": a, "b": b}


def _build_m2():
    import keras

    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(
        1, kernel_initializer="zeros", bias_initializer="zeros", name="dense")])
    layer = model.layers[0]
    return model, {"kernel": layer.kernel, "bias": layer.bias}


def _m2_data():
    return (np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float32),
            np.array([[10], [20]], dtype=np.float32))


PROBLEMS: dict[str, Problem] = {p.name: p for p in (
    Problem("m1", "sgd", 1e-3, 10_000, {"a": (0.9764,), "b": (0.0576,)}, house_prices,
            _build_m1, "half_sse",
            "a, b = tf.Variable(0.), tf.Variable(0.)\n"
            "optimizer = keras.optimizers.SGD(learning_rate=1e-3)\n"
            "for step in range(10_000):\n    with tf.GradientTape() as tape:\n"
            "        loss = 0.5 * tf.reduce_sum(tf.square(a * X + b - y))\n"
            "    grads = tape.gradient(loss, [a, b])\n"
            "    optimizer.apply_gradients(zip(grads, [a, b]))"),
    Problem("m2", "sgd", 0.01, 100, {"kernel": (0.408, 1.191, 1.974), "bias": (0.783,)},
            _m2_data, _build_m2, "mse",
            "model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1,\n"
            "    kernel_initializer='zeros', bias_initializer='zeros')])\n"
            "optimizer = keras.optimizers.SGD(learning_rate=0.01)\n"
            "for step in range(100):\n    with tf.GradientTape() as tape:\n"
            "        loss = tf.reduce_mean(tf.square(model(X) - y))\n"
            "    grads = tape.gradient(loss, model.trainable_variables)\n"
            "    optimizer.apply_gradients(zip(grads, model.trainable_variables))"),
)}

OPTIMIZERS: dict[str, Callable[[float], Any]] = {
    "sgd": lambda lr: __import__("keras").optimizers.SGD(learning_rate=lr),
    "momentum": lambda lr: __import__("keras").optimizers.SGD(learning_rate=lr, momentum=0.9),
    "adam": lambda lr: __import__("keras").optimizers.Adam(learning_rate=lr),
    "rmsprop": lambda lr: __import__("keras").optimizers.RMSprop(learning_rate=lr),
    "adagrad": lambda lr: __import__("keras").optimizers.Adagrad(learning_rate=lr),
}


@dataclass(frozen=True)
class LabSnapshot:
    """Where a lab stands: step, loss, parameters, their history and the fitted values."""

    problem: str
    step: int
    loss: float
    params: Mapping[str, np.ndarray]
    loss_history: np.ndarray                  # loss before each step taken so far
    param_history: Mapping[str, np.ndarray]   # (steps, n) values after each step
    x: np.ndarray
    y: np.ndarray
    prediction: np.ndarray
    optimizer: str
    learning_rate: float
    target: Mapping[str, tuple[float, ...]] = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"problem": self.problem, "step": self.step, "loss": self.loss,
                "optimizer": self.optimizer, "learning_rate": self.learning_rate,
                "params": {k: np.asarray(v).ravel().tolist() for k, v in self.params.items()},
                "target": {k: list(v) for k, v in self.target.items()}}


def _check_problem(name: str) -> Problem:
    if name not in PROBLEMS:
        raise RegressionLabError(key="foundations.err.problem",
                                 params={"name": name, "allowed": Names(PROBLEMS)})
    return PROBLEMS[name]


def make_optimizer(name: str, learning_rate: float):
    """A fresh Keras optimizer from :data:`OPTIMIZERS`.

    Raises:
        RegressionLabError: unknown name or a learning rate that is not above 0.
    """
    if name not in OPTIMIZERS:
        raise RegressionLabError(key="foundations.err.optimizer",
                                 params={"name": name, "allowed": Names(OPTIMIZERS)})
    lr = float(learning_rate)
    if not (lr > 0 and np.isfinite(lr)):
        raise RegressionLabError(key="foundations.err.lr",
                                 params={"value": learning_rate})
    return OPTIMIZERS[name](lr)


class GradientDescentLab:
    """The live state of one problem: variables, optimizer and history."""

    def __init__(self, problem: str, optimizer: str | None = None,
                 learning_rate: float | None = None) -> None:
        self.problem = _check_problem(problem)
        self.optimizer_name = optimizer or self.problem.optimizer
        self.learning_rate = float(learning_rate or self.problem.learning_rate)
        make_optimizer(self.optimizer_name, self.learning_rate)  # validate first
        self.reset()

    def reset(self) -> None:
        """Back to the initial (zero) parameters and step 0, keeping the optimizer choice."""
        import tensorflow as tf

        x, y = self.problem.data()
        self._x, self._y = tf.constant(x), tf.constant(y)
        self._predict, self._vars = self.problem.build()
        self._losses: list[np.ndarray] = []
        self._history: dict[str, list[np.ndarray]] = {k: [] for k in self._vars}
        self.step = 0
        self.set_optimizer(self.optimizer_name, self.learning_rate)

    def set_optimizer(self, name: str, learning_rate: float) -> None:
        """Switch optimizer or learning rate; parameters and history stay.

        Raises:
            RegressionLabError: unknown optimizer or bad learning rate.
        """
        self._optimizer = make_optimizer(name, learning_rate)
        self.optimizer_name, self.learning_rate = name, float(learning_rate)
        self._run = self._make_run()

    def _loss(self):
        import tensorflow as tf

        err = self._predict(self._x) - self._y
        if self.problem.loss == "half_sse":
            return 0.5 * tf.reduce_sum(tf.square(err))
        return tf.reduce_mean(tf.square(err))

    def _make_run(self):
        import tensorflow as tf

        variables = list(self._vars.values())
        optimizer = self._optimizer

        @tf.function
        def run(n):
            losses = tf.TensorArray(tf.float32, size=n)
            params = [tf.TensorArray(tf.float32, size=n) for _ in variables]
            for i in tf.range(n):
                with tf.GradientTape() as tape:
                    loss = self._loss()
                grads = tape.gradient(loss, variables)
                optimizer.apply_gradients(zip(grads, variables))
                losses = losses.write(i, loss)
                params = [p.write(i, tf.reshape(v, [-1])) for p, v in zip(params, variables)]
            return losses.stack(), [p.stack() for p in params]
        return run

    def run(self, steps: int) -> LabSnapshot:
        """Take ``steps`` full-batch optimizer steps and return the new snapshot.

        Raises:
            RegressionLabError: steps below 1 or above :data:`MAX_STEPS_PER_CALL`.
        """
        import tensorflow as tf

        if isinstance(steps, bool) or int(steps) != steps or not 1 <= steps <= MAX_STEPS_PER_CALL:
            raise RegressionLabError(key="foundations.err.steps",
                                     params={"value": steps, "max": MAX_STEPS_PER_CALL})
        losses, params = self._run(tf.constant(int(steps)))
        self._losses.append(losses.numpy())
        for key, values in zip(self._vars, params):
            self._history[key].append(values.numpy())
        self.step += int(steps)
        return self.snapshot()

    def snapshot(self) -> LabSnapshot:
        """The current parameters, loss, history and fitted values as plain arrays."""
        prediction = np.asarray(self._predict(self._x)).astype(np.float32)
        n = {k: int(np.prod(v.shape)) for k, v in self._vars.items()}
        return LabSnapshot(
            problem=self.problem.name, step=self.step, loss=float(self._loss().numpy()),
            params={k: np.asarray(v.numpy()).ravel() for k, v in self._vars.items()},
            loss_history=(np.concatenate(self._losses) if self._losses
                          else np.zeros(0, np.float32)),
            param_history={k: (np.concatenate(h) if h else np.zeros((0, n[k]), np.float32))
                           for k, h in self._history.items()},
            x=self._x.numpy(), y=self._y.numpy(), prediction=prediction,
            optimizer=self.optimizer_name, learning_rate=self.learning_rate,
            target=dict(self.problem.target))

    def line(self, points: int = 50) -> tuple[np.ndarray, np.ndarray]:
        """For M1: the fitted line a·x + b on a grid over [0, 1]."""
        xs = np.linspace(0.0, 1.0, points, dtype=np.float32)
        return xs, np.asarray(self._predict(xs)).astype(np.float32)


def problem_names() -> list[str]:
    return list(PROBLEMS)


def solve(problem: str, steps: int | None = None, optimizer: str | None = None,
          learning_rate: float | None = None) -> LabSnapshot:
    """Run a problem from zero for ``steps`` (the scenario's count by default)."""
    lab = GradientDescentLab(problem, optimizer, learning_rate)
    return lab.run(steps or lab.problem.steps)
