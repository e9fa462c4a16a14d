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
