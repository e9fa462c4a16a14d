"""Look inside a Keras model's parameters: the variable table, tied variables, deferred
initialization, and saving/loading weights.

Statistics and histograms live in :mod:`tfcore.weights.stats`; initialization in
:mod:`tfcore.weights.init`; direct edits in :mod:`tfcore.weights.edit`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from tfcore.errors import WeightsError
from tfcore.messages import Names
from tfcore.weights.stats import TensorStats, tensor_stats
from tfcore.workspace import Workspace


@dataclass(frozen=True)
class VariableInfo:
    """One variable of a model, listed once even when several layers use it.

    Attributes:
        path: the full Keras path, e.g. ``mlp/dense/kernel``; unique in the model.
        name: the short name (``kernel``, ``bias``, ...).
        layer: the layer that owns it (path of nested blocks joined with ``/``).
        layers: every layer application that uses it, in model order (a shared layer
            applied twice appears twice).
        shape, dtype, trainable, params, device: as Keras reports them.
        stats: mean, std, min, max, share of zeros, NaN and Inf counts.
    """

    path: str
    name: str
    layer: str
    layers: tuple[str, ...]
    shape: tuple[int, ...]
    dtype: str
    trainable: bool
    params: int
    device: str
    stats: TensorStats

    @property
    def shared(self) -> bool:
        return len(self.layers) > 1

    def to_dict(self) -> dict:
        return {"path": self.path, "name": self.name, "layer": self.layer,
                "layers": list(self.layers), "shared": self.shared,
                "shape": list(self.shape), "dtype": self.dtype, "trainable": self.trainable,
                "params": self.params, "device": self.device, "stats": self.stats.to_dict()}


@dataclass(frozen=True)
class LayerEntry:
    """One application of a layer in the model's layer list."""

    name: str
    class_name: str
    params: int
    repeat: int  # how many times this same layer object appears in the list so far (1 = first)


@dataclass(frozen=True)
class WeightTable:
    """Every variable of a model once, plus the model's layer list (with repeats)."""

    model: str
    built: bool
    variables: tuple[VariableInfo, ...]
    layers: tuple[LayerEntry, ...]

    @property
    def total_params(self) -> int:
        return sum(v.params for v in self.variables)

    @property
    def trainable_params(self) -> int:
        return sum(v.params for v in self.variables if v.trainable)

    @property
    def shared_layers(self) -> tuple[str, ...]:
        """Names of layers that appear more than once in the layer list (tied weights)."""
        return tuple(dict.fromkeys(e.name for e in self.layers if e.repeat > 1))

    def variable(self, path: str) -> VariableInfo:
        for info in self.variables:
            if info.path == path:
                return info
        raise _unknown_variable(path, [v.path for v in self.variables])

    def to_dict(self) -> dict:
        return {"model": self.model, "built": self.built,
                "variables": [v.to_dict() for v in self.variables],
                "layers": [{"name": e.name, "class": e.class_name, "params": e.params,
                            "repeat": e.repeat} for e in self.layers],
                "shared_layers": list(self.shared_layers),
                "total_params": self.total_params,
                "trainable_params": self.trainable_params}


def _unknown_variable(path: str, known: Sequence[str]) -> WeightsError:
    shown = Names(list(known[:8]) + (["..."] if len(known) > 8 else []) or ["-"])
    return WeightsError(key="errors.weights_no_variable", params={"path": path, "known": shown})


def _sublayers(layer: Any) -> list[Any]:
    children = getattr(layer, "layers", None)
    if not isinstance(children, (list, tuple)):
        return []
    return [c for c in children if type(c).__name__ != "InputLayer"]


def layer_uses(model: Any) -> dict[int, list[tuple[str, Any]]]:
    """For each variable (by ``id``), the ``(layer path, layer)`` applications using it.

    Leaves of nested blocks are named ``block/child``; a layer listed twice counts twice.
    """
    uses: dict[int, list[tuple[str, Any]]] = {}

    def walk(layer: Any, prefix: str) -> None:
        children = _sublayers(layer)
        if not children:
            for variable in layer.weights:
                uses.setdefault(id(variable), []).append((prefix, layer))
            return
        for child in children:
            walk(child, f"{prefix}/{child.name}" if prefix else child.name)

    for layer in _sublayers(model):
        walk(layer, layer.name)
    return uses


def _device(variable: Any) -> str:
    value = getattr(variable, "value", variable)
    device = getattr(value, "device", "") or ""
    match = re.search(r"device:([A-Z]+:\d+)", device)
    return match.group(1) if match else device


def variable_table(model: Any) -> WeightTable:
    """The table of a model's variables (each once) with statistics and who uses them."""
    uses = layer_uses(model)
    variables = []
    for variable in model.weights:
        found = uses.get(id(variable), [])
        names = tuple(name for name, _ in found) or ("(model)",)
        values = np.asarray(variable.numpy())
        variables.append(VariableInfo(
            path=variable.path, name=variable.name, layer=names[0], layers=names,
            shape=tuple(int(d) for d in variable.shape), dtype=str(variable.dtype),
            trainable=bool(variable.trainable), params=int(values.size),
            device=_device(variable), stats=tensor_stats(values)))
    entries, seen = [], {}
    for layer in _sublayers(model):
        seen[id(layer)] = seen.get(id(layer), 0) + 1
        params = int(sum(np.prod(v.shape) for v in layer.weights))
        entries.append(LayerEntry(layer.name, type(layer).__name__, params, seen[id(layer)]))
    return WeightTable(model=model.name, built=bool(model.weights), variables=tuple(variables),
                       layers=tuple(entries))


def find_variable(model: Any, path: str) -> Any:
    """The variable with this full path.

    Raises:
        WeightsError: no such variable.
    """
    for variable in model.weights:
        if variable.path == path:
            return variable
    raise _unknown_variable(path, [v.path for v in model.weights])


def variable_values(model: Any, path: str) -> np.ndarray:
    """A copy of a variable's values as a numpy array."""
    return np.array(find_variable(model, path).numpy())


def layer_variables(model: Any, layer: str) -> list[Any]:
    """The variables a layer (name or nested path) uses, in model order.

    Raises:
        WeightsError: no layer with that name has variables.
    """
    uses = layer_uses(model)
    found = [v for v in model.weights
             if any(name == layer or name.endswith(f"/{layer}") for name, _ in
                    uses.get(id(v), []))]
    if not found:
        names = sorted({n for entries in uses.values() for n, _ in entries})
        raise WeightsError(key="errors.weights_no_layer",
                           params={"layer": layer, "names": Names(names or ["-"])})
    return found


def is_deferred(model: Any) -> bool:
    """True when the model has no variables yet because it does not know its input shape."""
    return not model.weights and not getattr(model, "built", False)


def parse_shape(text: str) -> tuple[int, ...]:
    """Parse ``"2, 20"`` into ``(2, 20)``.

    Raises:
        WeightsError: not a comma-separated list of positive integers.
    """
    parts = [p.strip() for p in str(text).strip().strip("()[]").split(",") if p.strip()]
    try:
        shape = tuple(int(p) for p in parts)
    except ValueError:
        shape = ()
    if not shape or any(d <= 0 for d in shape):
        raise WeightsError(key="errors.weights_bad_shape",
                           params={"shape": str(text)})
    return shape


def build_for_input(model: Any, shape: Sequence[int]) -> WeightTable:
    """Create a deferred model's variables by calling it on zeros of ``shape`` (batch first).

    Raises:
        WeightsError: the model rejects the shape (nothing is created).
    """
    shape = tuple(int(d) for d in shape)
    if len(shape) < 2:
        raise WeightsError(key="errors.weights_bad_shape",
                           params={"shape": str(shape)})
    try:
        model(np.zeros(shape, dtype="float32"))
    except Exception as exc:  # Keras explains which layer refused the shape
        message = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise WeightsError(key="errors.weights_build_failed",
                           params={"shape": str(shape), "message": message}) from exc
    return variable_table(model)


def _confined(workspace: Workspace, path: str, suffix: str) -> Path:
    target = workspace.confine(path)
    if not target.name.endswith(suffix):
        raise WeightsError(key="errors.weights_suffix", params={"path": str(path),
                                                                 "suffix": suffix})
    return target


def save_weights(model: Any, workspace: Workspace, path: str) -> Path:
    """Save all weights to a ``.weights.h5`` file inside the workspace; return its path."""
    target = _confined(workspace, path, ".weights.h5")
    target.parent.mkdir(parents=True, exist_ok=True)
    model.save_weights(str(target))
    return target


def load_weights(model: Any, workspace: Workspace, path: str) -> WeightTable:
    """Load a ``.weights.h5`` file from the workspace into the model.

    Raises:
        WeightsError: missing file, or weights that do not fit the model (then the
            model keeps its previous values).
    """
    source = _confined(workspace, path, ".weights.h5")
    if not source.is_file():
        raise WeightsError(key="errors.weights_no_file", params={"path": str(path)})
    backup = [np.array(v.numpy()) for v in model.weights]
    try:
        model.load_weights(str(source))
    except Exception as exc:
        for variable, value in zip(model.weights, backup):
            variable.assign(value)
        message = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise WeightsError(key="errors.weights_not_fit",
                           params={"path": str(path), "message": message}) from exc
    return variable_table(model)


def export_tensor(model: Any, variable_path: str, workspace: Workspace, path: str) -> Path:
    """Write one variable as a ``.npy`` file (never pickled) inside the workspace."""
    values = variable_values(model, variable_path)
    target = _confined(workspace, path, ".npy")
    target.parent.mkdir(parents=True, exist_ok=True)
    np.save(target, values, allow_pickle=False)
    return target


def safe_file_stem(text: str, default: str | None = None) -> str:
    """A readable file-name stem: letters of any script, digits, ``_``, ``-`` and ``.``;
    other characters become ``_``; at most 64 characters.

    Args:
        default: returned when nothing usable is left (``""``, ``..``); without it such a
            name is refused, so two different names never land in one file.

    Raises:
        WeightsError: ``errors.weights_file_name`` when the name has no usable character.
    """
    stem = re.sub(r"[^\w.-]+", "_", str(text).replace("\x00", "_")).strip("._-")[:64]
    stem = stem.rstrip("._-")
    if stem:
        return stem
    if default is not None:
        return default
    shown = str(text)[:60]
    raise WeightsError(key="errors.weights_file_name",
                       params={"name": shown})


def load_model_file(path: str | Path) -> Any:
    """A model from a spec JSON file (built fresh) or a ``.keras`` file (safe mode).

    Raises:
        WeightsError: the file is missing or of another kind; SpecError: bad spec.
    """
    from tfcore.model import check_keras_file, zeroed_uniform_class

    source = Path(path)
    shown = shown_path(source)
    if not source.is_file():
        raise WeightsError(key="errors.weights_missing_file",
                           params={"path": shown})
    if source.suffix == ".json":
        from tfcore.model import build_model, from_json

        return build_model(from_json(source.read_text(encoding="utf-8")))
    if source.suffix == ".keras":
        import keras

        zeroed_uniform_class()
        check_keras_file(source, shown)
        try:
            return keras.saving.load_model(str(source), safe_mode=True, compile=False)
        except Exception as exc:
            message = str(exc).strip().splitlines()[0] if str(exc).strip() else repr(exc)
            message = message.replace(str(source.resolve()), shown).replace(str(path), shown)
            raise WeightsError(key="errors.weights_load_failed",
                               params={"path": shown, "message": message[:300]}) from exc
    raise WeightsError(key="errors.weights_file_kind", params={"path": shown})


def shown_path(path: str | Path) -> str:
    """How messages name a file: relative to the workspace when inside it, else its name
    when absolute (a server path is never shown), else as typed."""
    from tfcore.workspace import default_workspace

    source = Path(path)
    try:
        return source.resolve().relative_to(default_workspace().root.resolve()).as_posix()
    except (ValueError, OSError):
        return source.name if source.is_absolute() else str(path)


def spec_with_built_input(spec: Any, model: Any) -> Any:
    """The spec, with the input shape a deferred model was built for filled in.

    A spec without inputs (deferred initialization) cannot be trained as is; once the
    model has been built for an input, that shape (batch axis dropped) becomes its input.
    """
    from dataclasses import replace

    from tfcore.model import InputSpec

    if spec.inputs:
        return spec
    try:
        shape = tuple(model.inputs[0].shape[1:])
    except (AttributeError, IndexError, TypeError, ValueError):
        return spec
    return replace(spec, inputs=(InputSpec("input", tuple(int(d) for d in shape)),))
