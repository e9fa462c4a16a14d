"""Import -> spec -> build, checked: the rebuilt model has the same Keras config and the
same parameter count as the original (used by the tests and ``bench/bench_import_apps.py``).

Names Keras makes up by itself (``input_layer_7`` inside a nested Sequential) differ between
two builds in one process, so they are compared as "an automatic input name".
"""

from __future__ import annotations

import inspect
import json
import re
from dataclasses import dataclass
from typing import Any, Callable

_AUTO_INPUT = re.compile(r"^input_layer(_\d+)?$")


def app_constructors() -> dict[str, Callable[..., Any]]:
    """Every model constructor of ``keras.applications`` by name (``ResNet50`` ...)."""
    import keras

    found: dict[str, Callable[..., Any]] = {}
    for attr in dir(keras.applications):
        obj = getattr(keras.applications, attr)
        candidates = [(attr, obj)] if inspect.isfunction(obj) else (
            [(n, getattr(obj, n)) for n in dir(obj)] if inspect.ismodule(obj) else [])
        for name, func in candidates:
            if inspect.isfunction(func) and name[:1].isupper():
                found.setdefault(name, func)
    return dict(sorted(found.items()))


def _normal(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: ("<auto input>" if k == "name" and isinstance(v, str)
                    and _AUTO_INPUT.match(v) else _normal(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [_normal(v) for v in value]
    return value


def config_diff(original: Any, rebuilt: Any, limit: int = 10) -> list[str]:
    """Where two Keras configs differ (JSON paths), at most ``limit`` lines."""
    out: list[str] = []
    stack = [("", _normal(json.loads(json.dumps(original, default=str))),
              _normal(json.loads(json.dumps(rebuilt, default=str))))]
    while stack and len(out) < limit:
        path, a, b = stack.pop()
        if isinstance(a, dict) and isinstance(b, dict):
            for key in sorted(set(a) | set(b), reverse=True):
                if key not in a or key not in b:
                    out.append(f"{path}.{key}: only in the "
                               f"{'original' if key in a else 'rebuilt model'}")
                else:
                    stack.append((f"{path}.{key}", a[key], b[key]))
        elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
            stack.extend((f"{path}[{i}]", x, y) for i, (x, y) in reversed(list(enumerate(
                zip(a, b)))))
        elif a != b:
            out.append(f"{path}: {str(a)[:120]} != {str(b)[:120]}")
    return out


@dataclass(frozen=True)
class RoundTrip:
    """Parameters before and after, the config differences, and the spec."""

    original: int
    rebuilt: int
    diffs: tuple[str, ...]
    spec: Any

    @property
    def ok(self) -> bool:
        return self.original == self.rebuilt and not self.diffs


def round_trip(model: Any) -> RoundTrip:
    """Spec of ``model`` (through its JSON text), built again and compared."""
    from tfcore.model.build import build_model
    from tfcore.model.import_graph import model_to_spec
    from tfcore.model.spec import from_json

    spec = from_json(model_to_spec(model).to_json())
    rebuilt = build_model(spec)
    return RoundTrip(model.count_params(), rebuilt.count_params(),
                     tuple(config_diff(model.get_config(), rebuilt.get_config())), spec)


@dataclass(frozen=True)
class CodeTrip:
    """A model against the one its generated code builds, given the original's weights:
    both parameter counts and the largest absolute difference of their outputs."""

    style: str
    original: int
    rebuilt: int
    max_diff: float

    @property
    def ok(self) -> bool:
        return self.original == self.rebuilt and self.max_diff == 0.0


def run_generated(source: str, **kwargs: Any) -> Any:
    """The model a generated file's ``build_model(**kwargs)`` returns, run in a fresh
    namespace (``weights=...``: where the code of a spec with initial weights finds them)."""
    namespace: dict[str, Any] = {"__name__": "generated"}
    exec(compile(source, "<generated>", "exec"), namespace)  # noqa: S102 - our own code
    return namespace["build_model"](**kwargs)


def copy_weights(source: Any, target: Any) -> None:
    """Give ``target`` the weights of ``source``, layer by layer name (a subclass's layers
    are tracked in another order than a Functional model's)."""
    for layer in source.layers:
        if layer.weights:
            target.get_layer(layer.name).set_weights(layer.get_weights())


def fixed_inputs(model: Any, batch: int = 2, seed: int = 0) -> list[Any]:
    """One fixed input per model input (integers below 10 for an integer input)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    out = []
    for tensor in model.inputs:
        shape = (batch, *[d or 8 for d in tensor.shape[1:]])
        dtype = str(tensor.dtype)
        out.append(rng.integers(0, 10, shape).astype(dtype) if "int" in dtype
                   else rng.standard_normal(shape).astype(dtype))
    return out


def max_output_diff(a: Any, b: Any, inputs: list[Any]) -> float:
    """The largest absolute difference between two models' outputs on ``inputs``."""
    import numpy as np

    feed = inputs[0] if len(inputs) == 1 else inputs
    first, second = a(feed, training=False), b(feed, training=False)
    pairs = zip(first, second) if isinstance(first, (list, tuple)) else [(first, second)]
    return max(float(np.max(np.abs(np.asarray(x) - np.asarray(y)), initial=0.0))
               for x, y in pairs)


def code_round_trip(model: Any, spec: Any, style: str) -> CodeTrip:
    """Run the ``style`` code of ``spec`` (imported from ``model``), load the model's
    weights into what it builds and compare parameter counts and outputs."""
    from tfcore.model.codegen import generate

    rebuilt = run_generated(generate(spec, style))
    copy_weights(model, rebuilt)
    diff = max_output_diff(model, rebuilt, fixed_inputs(model))
    return CodeTrip(style, model.count_params(), rebuilt.count_params(), diff)
