"""Try a loaded class on the page: a layer on a random input, a loss and a metric on a
small worked example (scenarios M7, M8, B2, B9 with their numbers)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tfcore.custom.loader import current, load_workspace
from tfcore.custom.store import CustomCodeError, read_all, trusted_code_enabled

MAX_TRIAL_ELEMENTS = 100_000
# M8's worked examples: a regression pair for the loss, four labels for the metric.
LOSS_TRUE = [[1.0], [2.0]]
LOSS_PRED = [[1.5], [2.5]]
METRIC_TRUE = [0, 1, 2, 1]
METRIC_PRED = [[0.9, 0.05, 0.05], [0.1, 0.8, 0.1], [0.2, 0.7, 0.1], [0.3, 0.6, 0.1]]


@dataclass
class TrialResult:
    """What one try produced: the output, and for a layer its weights and its constants
    (arrays it holds outside its weights, such as B2's fixed matrix: not parameters)."""

    name: str
    kind: str
    output: np.ndarray
    inputs: dict[str, Any] = field(default_factory=dict)
    weights: list[tuple[str, tuple, bool, np.ndarray]] = field(default_factory=list)
    state: dict[str, Any] = field(default_factory=dict)
    constants: list[tuple[str, tuple]] = field(default_factory=list)

    @property
    def trainable_params(self) -> int:
        return int(sum(v.size for _, _, trainable, v in self.weights if trainable))

    @property
    def non_trainable_params(self) -> int:
        return int(sum(v.size for _, _, trainable, v in self.weights if not trainable))


def ensure_loaded(workspace_root: str | Path) -> bool:
    """Load the workspace's code when it changed since the last load (trusted servers
    only); whether any code is loaded now."""
    if not trusted_code_enabled():
        return False
    sources = read_all(workspace_root)
    loaded = current()
    if sources != loaded.read:
        loaded = load_workspace(workspace_root)
    return bool(loaded.classes)


def parse_shape(text: str) -> tuple[int, ...]:
    """``"2, 5"`` -> (2, 5): positive integers, batch first, at most 100,000 numbers."""
    try:
        shape = tuple(int(part) for part in str(text).replace("x", ",").split(",") if part.strip())
    except ValueError:
        shape = ()
    if not shape or any(d < 1 for d in shape) or int(np.prod(shape)) > MAX_TRIAL_ELEMENTS:
        raise CustomCodeError(key="custom.err.shape",
                              params={"shape": str(text)[:40], "limit": f"{MAX_TRIAL_ELEMENTS:,}"})
    return shape


def try_class(name: str, shape: tuple[int, ...] = (2, 5), seed: int = 0,
              options: dict | None = None) -> TrialResult:
    """Run one loaded class: a layer (made with ``options``) on U(0, 1) input of ``shape``;
    a loss on M8's regression pair; a metric on M8's four labels.

    Raises:
        CustomCodeError: no such class, or the class fails (its message, located).
    """
    item = current().classes.get(name)
    if item is None:
        raise CustomCodeError(key="custom.err.no_such_class", params={"cls": name})
    try:
        if item.kind == "layer":
            return _try_layer(item, shape, seed, options or {})
        if item.kind == "loss":
            value = item.cls()(np.array(LOSS_TRUE, "float32"), np.array(LOSS_PRED, "float32"))
            return TrialResult(name, "loss", np.asarray(value),
                               {"y_true": LOSS_TRUE, "y_pred": LOSS_PRED})
        metric = item.cls()
        metric.update_state(np.array(METRIC_TRUE, "int32"), np.array(METRIC_PRED, "float32"))
        state = {v.name: np.asarray(v.numpy()).tolist() for v in metric.variables}
        return TrialResult(name, "metric", np.asarray(metric.result()),
                           {"y_true": METRIC_TRUE, "y_pred": METRIC_PRED}, state=state)
    except CustomCodeError:
        raise
    except Exception as exc:  # noqa: BLE001 - the person's code: any error is a message
        text = f"{type(exc).__name__}: {exc}".strip().splitlines()[0][:300]
        raise CustomCodeError(key="custom.err.trial",
                              params={"cls": name, "msg": text}) from exc


def _try_layer(item: Any, shape: tuple[int, ...], seed: int, options: dict) -> TrialResult:
    import keras

    keras.utils.set_random_seed(int(seed))
    x = np.random.default_rng(int(seed)).uniform(size=shape).astype("float32")
    layer = item.cls(**options)
    out = np.asarray(layer(x))
    weights = [(v.path, tuple(v.shape), bool(v.trainable), np.asarray(v.numpy()))
               for v in layer.weights]
    return TrialResult(item.name, "layer", out, {"shape": list(shape)}, weights,
                       constants=_constants(layer))


def _constants(layer: Any) -> list[tuple[str, tuple]]:
    """The arrays and tensors a layer keeps as plain attributes (never variables)."""
    import keras

    found = []
    for name, value in sorted(vars(layer).items()):
        if name.startswith("_") or isinstance(value, keras.Variable):
            continue
        if isinstance(value, np.ndarray) or keras.ops.is_tensor(value):
            found.append((name, tuple(int(d) for d in value.shape)))
    return found
