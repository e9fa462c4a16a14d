"""Re-initialize a variable, a layer or a whole model with a catalog initializer and seed.

The same seed gives the same values again (rewind): variable number ``i`` of a request
draws with seed ``seed + i``, so two variables of one layer never get identical values.
All new values are computed before any is assigned, so a failing request changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np

from tfcore.errors import WeightsError
from tfcore.model import make_initializer
from tfcore.weights.stats import TensorStats, tensor_stats
from tfcore.weights.table import find_variable, layer_uses, layer_variables

BIAS_NAMES = ("bias", "beta", "moving_mean")


@dataclass(frozen=True)
class InitChoice:
    """A catalog initializer with its parameters and seed."""

    name: str
    params: Mapping[str, float] = field(default_factory=dict)
    seed: int = 0


@dataclass(frozen=True)
class VariableChange:
    """Statistics of one variable before and after an operation."""

    path: str
    before: TensorStats
    after: TensorStats


@dataclass(frozen=True)
class InitReport:
    """What an initialization changed: per variable, statistics before and after."""

    scope: str
    target: str
    changes: tuple[VariableChange, ...]


def _draw(initializer: Any, variable: Any, label: str) -> np.ndarray:
    shape = tuple(int(d) for d in variable.shape)
    try:
        values = np.asarray(initializer(shape, dtype=variable.dtype))
    except Exception as exc:  # e.g. Identity on a 1-D bias, Orthogonal on a vector
        message = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise WeightsError(key="errors.weights_init_shape",
                           params={"init": label, "path": variable.path,
                                   "shape": str(shape), "message": message}) from exc
    return values


def _apply(plan: Sequence[tuple[Any, np.ndarray]], scope: str, target: str) -> InitReport:
    changes = []
    for variable, values in plan:
        before = tensor_stats(np.asarray(variable.numpy()))
        variable.assign(values)
        changes.append(VariableChange(variable.path, before, tensor_stats(values)))
    return InitReport(scope=scope, target=target, changes=tuple(changes))


def _is_bias(variable: Any) -> bool:
    return variable.name in BIAS_NAMES or len(variable.shape) <= 1


def _plan(variables: Sequence[Any], choice: InitChoice,
          bias_choice: InitChoice | None) -> list[tuple[Any, np.ndarray]]:
    plan = []
    for index, variable in enumerate(variables):
        use = bias_choice if bias_choice is not None and _is_bias(variable) else choice
        init = make_initializer(use.name, use.params, seed=int(use.seed) + index)
        plan.append((variable, _draw(init, variable, use.name)))
    return plan


def initialize_variable(model: Any, path: str, choice: InitChoice) -> InitReport:
    """Fill one variable with ``choice``.

    Raises:
        WeightsError: unknown variable, unknown initializer or a shape it cannot fill.
    """
    variable = find_variable(model, path)
    return _apply(_plan([variable], choice, None), "variable", path)


def initialize_layer(model: Any, layer: str, choice: InitChoice,
                     bias_choice: InitChoice | None = None) -> InitReport:
    """Fill every trainable variable of a layer; biases get ``bias_choice`` when given."""
    variables = [v for v in layer_variables(model, layer) if v.trainable]
    return _apply(_plan(variables, choice, bias_choice), "layer", layer)


def initialize_model(model: Any, choice: InitChoice,
                     bias_choice: InitChoice | None = None) -> InitReport:
    """Fill every trainable variable of the model."""
    variables = [v for v in model.weights if v.trainable]
    return _apply(_plan(variables, choice, bias_choice), "model", model.name)


def _own_initializer(layer: Any, variable: Any, seed: int) -> Any:
    import keras

    configured = getattr(layer, f"{variable.name}_initializer", None)
    if configured is None:
        configured = keras.initializers.GlorotUniform() if len(variable.shape) >= 2 \
            else keras.initializers.Zeros()
    config = keras.initializers.serialize(configured)
    if isinstance(config, dict) and "seed" in config.get("config", {}):
        config = {**config, "config": {**config["config"], "seed": seed}}
    return keras.initializers.deserialize(config)


def rewind(model: Any, seed: int = 0) -> InitReport:
    """Re-draw every variable with its layer's own initializer at ``seed`` (fresh start).

    Two calls with the same seed give identical weights; this is how a model is put
    back to "initial weights at seed N".
    """
    from tfcore.model import zeroed_uniform_class

    zeroed_uniform_class()
    uses = layer_uses(model)
    plan = []
    for index, variable in enumerate(model.weights):
        found = uses.get(id(variable))
        layer = found[0][1] if found else None
        init = _own_initializer(layer, variable, int(seed) + index)
        plan.append((variable, _draw(init, variable, type(init).__name__)))
    return _apply(plan, "rewind", f"seed={seed}")
