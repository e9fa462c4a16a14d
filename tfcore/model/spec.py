"""ModelSpec: a versioned, JSON-serializable description of a Keras model.

A spec is Sequential (layers applied in order; the input may be omitted to show
deferred initialization) or Functional (each layer names its inputs; outputs are
listed). One entry of ``layers`` is one *application* of a layer; an entry with
``shares`` re-applies the layer of another entry, so both use the same weights
(tied parameters). A ``Block`` entry holds nested ``layers`` applied in order.

JSON shape (``format`` 1)::

    {"format": 1, "name": "mlp", "kind": "sequential",
     "inputs": [{"name": "image", "shape": [28, 28, 1], "dtype": "float32"}],
     "layers": [{"name": "flatten", "type": "Flatten", "config": {}},
                {"name": "dense", "type": "Dense", "config": {"units": 100}}],
     "outputs": []}

An optional ``layout`` maps input and layer names to canvas positions ``[x, y]`` (the
model canvas draws a saved model as it was drawn); bad entries are ignored on read.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace
from typing import Any, Mapping

from tfcore.errors import SpecError
from tfcore.messages import Names, render

FORMAT = 1
SEQUENTIAL, FUNCTIONAL = "sequential", "functional"
KINDS = (SEQUENTIAL, FUNCTIONAL)
DTYPES = ("float32", "float16", "bfloat16", "float64", "int32", "int64", "int8", "int16",
          "uint8", "bool", "string")
INPUT_REF = "__input__"
"""In a ``call`` template, ``{"__input__": k}`` stands for the k-th tensor of ``inputs``
(``{"__input__": k, "output": j}``: output j of a layer with several outputs)."""


@dataclass(frozen=True)
class Problem:
    """One located problem of a spec: where, which field, the bad value, what is allowed."""

    location: str
    field: str
    value: Any
    allowed: str
    key: str = "spec.problem"
    params: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def where(self) -> str:
        return f"{self.location}.{self.field}" if self.field else self.location

    @classmethod
    def of(cls, location: str, fld: str, value: Any, key: str, /, **params: Any) -> "Problem":
        """A problem whose English text (``allowed``) is the catalog text of ``key``."""
        problem = cls(location, fld, value, "", key, params)
        return replace(problem, allowed=problem.text())

    def __str__(self) -> str:
        return self.text()

    def text(self, lang: str = "en") -> str:
        """The catalog text of ``key`` in ``lang`` when its params fill it, else the old form."""
        value = repr(self.value)
        value = value if len(value) <= 300 else value[:300] + "..."
        shown = render(self.key, {"where": self.where, "value": value, **self.params}, lang)
        return shown or f"{self.where}: {self.allowed} Received: {self.value!r}"


@dataclass(frozen=True)
class InputSpec:
    """A model input: its name, shape without the batch axis, and dtype."""

    name: str
    shape: tuple[int | None, ...]
    dtype: str = "float32"

    def to_dict(self) -> dict:
        return {"name": self.name, "shape": list(self.shape), "dtype": self.dtype}


@dataclass(frozen=True)
class LayerSpec:
    """One application of a layer.

    Attributes:
        name: unique in the whole spec (nested blocks included).
        type: a catalog type (``Dense``, ``Conv2D``, ``Block``, ...).
        config: the layer's parameters, as the catalog schema names them.
        inputs: Functional only: names of inputs or layers feeding this one.
        shares: name of another entry whose layer (and weights) this entry re-applies.
        layers: children of a ``Block``, applied in order.
        call: Functional only, how the layer is called when it is not simply on its input
            (or the list of its inputs): ``{"args": [...], "kwargs": {...}}`` templates in
            which ``{"__input__": k}`` is the k-th input, e.g. an op ``add(x, 3.0)`` or a
            call with ``training=False`` (from an imported model).
    """

    name: str
    type: str
    config: Mapping[str, Any] = field(default_factory=dict)
    inputs: tuple[str, ...] = ()
    shares: str | None = None
    layers: tuple["LayerSpec", ...] = ()
    call: Mapping[str, Any] | None = field(default=None, compare=True, hash=False)

    def to_dict(self) -> dict:
        out: dict[str, Any] = {"name": self.name, "type": self.type,
                               "config": _plain(self.config)}
        if self.inputs:
            out["inputs"] = list(self.inputs)
        if self.call:
            out["call"] = _plain(self.call)
        if self.shares:
            out["shares"] = self.shares
        if self.layers:
            out["layers"] = [child.to_dict() for child in self.layers]
        return out


@dataclass(frozen=True)
class ModelSpec:
    """A whole model: kind, inputs, layer applications and (Functional) outputs."""

    name: str
    kind: str
    inputs: tuple[InputSpec, ...]
    layers: tuple[LayerSpec, ...]
    outputs: tuple[str, ...] = ()
    description: str = ""
    format: int = FORMAT
    layout: Mapping[str, tuple[float, float]] = field(default_factory=dict, hash=False)
    """Canvas positions by input or layer name (optional; the canvas lays out the rest)."""
    weights: str = ""
    """The model's initial weights (optional): a workspace-relative ``.weights.h5`` file,
    such as the weights an imported ``.keras`` file carried; empty: freshly drawn."""

    def to_dict(self) -> dict:
        out = {"format": self.format, "name": self.name, "kind": self.kind,
               "inputs": [i.to_dict() for i in self.inputs],
               "layers": [layer.to_dict() for layer in self.layers],
               "outputs": list(self.outputs)}
        if self.description:
            out["description"] = self.description
        if self.layout:
            out["layout"] = {k: [x, y] for k, (x, y) in self.layout.items()}
        if self.weights:
            out["weights"] = self.weights
        return out

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    def with_layers(self, layers: tuple[LayerSpec, ...] | list[LayerSpec]) -> "ModelSpec":
        return replace(self, layers=tuple(layers))

    def all_layers(self) -> list[LayerSpec]:
        """Every entry, nested blocks' children included, depth first."""
        found: list[LayerSpec] = []

        def walk(entries: tuple[LayerSpec, ...]) -> None:
            for entry in entries:
                found.append(entry)
                walk(entry.layers)

        walk(self.layers)
        return found

    def layer(self, name: str) -> LayerSpec:
        for entry in self.all_layers():
            if entry.name == name:
                return entry
        raise SpecError(key="spec.no_layer_in", params={"layer": name, "spec": self.name})


def _plain(value: Any) -> Any:
    """Deep-copy config values into plain JSON types (tuples become lists)."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _frozen_config(value: Any) -> dict:
    return dict(_plain(value)) if isinstance(value, Mapping) else {}


def _parse_layer(data: Any, where: str, problems: list[Problem]) -> LayerSpec | None:
    if not isinstance(data, Mapping):
        problems.append(Problem.of(where, "", data, "spec.problem.layer_object"))
        return None
    name, kind = data.get("name"), data.get("type")
    if not isinstance(name, str) or not name:
        problems.append(Problem.of(where, "name", name, "spec.problem.layer_name"))
        name = name if isinstance(name, str) else ""
    if not isinstance(kind, str) or not kind:
        problems.append(Problem.of(name or where, "type", kind, "spec.problem.layer_type"))
        kind = ""
    config = data.get("config", {})
    if not isinstance(config, Mapping):
        problems.append(Problem.of(name or where, "config", config, "spec.problem.config_object"))
        config = {}
    inputs = data.get("inputs", [])
    if isinstance(inputs, str):
        inputs = [inputs]
    if not isinstance(inputs, list) or not all(isinstance(i, str) for i in inputs):
        problems.append(Problem.of(name or where, "inputs", inputs, "spec.problem.inputs_list"))
        inputs = []
    shares = data.get("shares")
    if shares is not None and not isinstance(shares, str):
        problems.append(Problem.of(name or where, "shares", shares, "spec.problem.shares_name"))
        shares = None
    call = data.get("call")
    if call is not None and not (isinstance(call, Mapping) and set(call) <= {"args", "kwargs"}
                                 and isinstance(call.get("args", []), list)
                                 and isinstance(call.get("kwargs", {}), Mapping)):
        problems.append(Problem.of(name or where, "call", call, "spec.problem.call_shape"))
        call = None
    children = []
    for index, child in enumerate(data.get("layers", []) or []):
        parsed = _parse_layer(child, f"{name or where}.layers[{index}]", problems)
        if parsed is not None:
            children.append(parsed)
    return LayerSpec(name=name, type=kind, config=_frozen_config(config),
                     inputs=tuple(inputs), shares=shares, layers=tuple(children),
                     call=_plain(call) if call else None)


WEIGHTS_SUFFIX = ".weights.h5"
LAYOUT_MAX = 100_000.0
"""Canvas coordinates beyond this (either sign) are ignored, like any other bad entry."""


def parse_layout(data: Any) -> dict[str, tuple[float, float]]:
    """The valid entries of a ``layout`` value: ``name: [x, y]`` with finite numbers within
    +-LAYOUT_MAX; anything else (not an object, a bad name or value) is left out."""
    if not isinstance(data, Mapping):
        return {}
    out: dict[str, tuple[float, float]] = {}
    for key, value in list(data.items())[:10_000]:
        if not isinstance(key, str) or not key or len(key) > 200:
            continue
        if not isinstance(value, (list, tuple)) or len(value) != 2 or not all(
                isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
                and abs(v) <= LAYOUT_MAX for v in value):
            continue
        out[key] = (round(float(value[0]), 1), round(float(value[1]), 1))
    return out


def _parse_input(data: Any, where: str, problems: list[Problem]) -> InputSpec | None:
    if not isinstance(data, Mapping):
        problems.append(Problem.of(where, "", data, "spec.problem.input_object"))
        return None
    name = data.get("name") or "input"
    shape = data.get("shape")
    if not isinstance(shape, (list, tuple)) or not all(
            s is None or (isinstance(s, int) and not isinstance(s, bool) and s > 0)
            for s in shape):
        problems.append(Problem.of(name, "shape", shape, "spec.problem.input_shape_list"))
        shape = ()
    dtype = data.get("dtype", "float32")
    if dtype not in DTYPES:
        problems.append(Problem.of(name, "dtype", dtype, "spec.problem.input_dtype",
                                   choices=Names(DTYPES)))
        dtype = "float32"
    return InputSpec(name=str(name), shape=tuple(shape), dtype=dtype)


def _check_format(fmt: Any, problems: list[Problem]) -> None:
    """A spec without ``format`` is format 1; a newer one is refused, located."""
    if isinstance(fmt, int) and not isinstance(fmt, bool) and fmt > FORMAT:
        problems.append(Problem("spec", "format", fmt, f"Format {fmt} is newer than this "
                                f"TF Lab understands ({FORMAT}).", "spec.problem.format_newer",
                                {"known": FORMAT}))
    elif fmt != FORMAT or isinstance(fmt, bool):
        problems.append(Problem("spec", "format", fmt, f"Only format {FORMAT} is known.",
                                "spec.problem.format", {"known": FORMAT}))


def from_dict(data: Any) -> ModelSpec:
    """Parse a spec document; every structural problem is reported at once.

    Raises:
        SpecError: with ``details`` listing each located :class:`Problem`.
    """
    problems: list[Problem] = []
    if not isinstance(data, Mapping):
        raise SpecError(key="spec.not_object",
                        details=[Problem("spec", "", type(data).__name__,
                                         "A model spec must be a JSON object.")])
    from tfcore.model.limits import check_data

    check_data(data)
    _check_format(data.get("format", FORMAT), problems)
    kind = data.get("kind", SEQUENTIAL)
    if kind not in KINDS:
        problems.append(Problem("spec", "kind", kind, f"kind must be one of {KINDS}."))
        kind = SEQUENTIAL
    raw_inputs = data.get("inputs", []) or []
    if not isinstance(raw_inputs, list):
        problems.append(Problem("spec", "inputs", raw_inputs, "inputs must be a list."))
        raw_inputs = []
    inputs = [i for n, raw in enumerate(raw_inputs)
              if (i := _parse_input(raw, f"inputs[{n}]", problems)) is not None]
    raw_layers = data.get("layers", [])
    if not isinstance(raw_layers, list):
        problems.append(Problem("spec", "layers", raw_layers, "layers must be a list."))
        raw_layers = []
    layers = [layer for n, raw in enumerate(raw_layers)
              if (layer := _parse_layer(raw, f"layers[{n}]", problems)) is not None]
    outputs = data.get("outputs", []) or []
    if isinstance(outputs, str):
        outputs = [outputs]
    if not isinstance(outputs, list) or not all(isinstance(o, str) for o in outputs):
        problems.append(Problem("spec", "outputs", outputs, "outputs must be a list of names."))
        outputs = []
    weights = data.get("weights") or ""
    if not (isinstance(weights, str) and (not weights or (
            weights.endswith(WEIGHTS_SUFFIX) and len(weights) <= 1024
            and not weights.startswith(("/", "\\")) and ".." not in weights.split("/")))):
        problems.append(Problem("spec", "weights", weights,
                                f"weights must be a workspace-relative {WEIGHTS_SUFFIX} file."))
        weights = ""
    if problems:
        raise SpecError(key="spec.invalid", params={"count": len(problems)},
                        details=problems)
    return ModelSpec(name=str(data.get("name") or "model"), kind=kind,
                     inputs=tuple(inputs), layers=tuple(layers), outputs=tuple(outputs),
                     description=str(data.get("description") or ""), format=FORMAT,
                     layout=parse_layout(data.get("layout")), weights=weights)


def from_json(text: str) -> ModelSpec:
    """Parse a spec from JSON text.

    Raises:
        SpecError: the text is not JSON, is too long or nested too deep, or the document
            is not a valid spec.
    """
    from tfcore.model.limits import MAX_JSON_DEPTH, check_json_text

    check_json_text(text)
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        if isinstance(exc, RecursionError):
            raise SpecError(key="spec.nested_too_deep",
                            params={"limit": MAX_JSON_DEPTH}) from None

        raise SpecError(key="spec.bad_json",
                        params={"msg": exc.msg, "line": exc.lineno, "col": exc.colno}) from exc
    return from_dict(data)
