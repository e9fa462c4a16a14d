"""The initializer catalog: typed parameters per initializer, plus the tutorials' own.

``make_initializer(name, params, seed)`` returns a Keras initializer; the custom ones are
registered Keras serializables so that models using them save and load.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from tfcore.errors import WeightsError


@dataclass(frozen=True)
class InitParam:
    """One parameter of an initializer."""

    name: str
    default: float
    minimum: float | None = None
    maximum: float | None = None
    help: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class InitializerType:
    """A catalog entry: the Keras identifier, its parameters, whether it takes a seed."""

    name: str
    keras_class: str
    params: tuple[InitParam, ...] = ()
    seeded: bool = False
    title: Mapping[str, str] = field(default_factory=dict)


_MEAN = InitParam("mean", 0.0)
_STD = InitParam("stddev", 0.05, 0.0)
_SCALE = InitParam("gain", 1.0, 0.0)

INITIALIZERS: dict[str, InitializerType] = {i.name: i for i in (
    InitializerType("zeros", "Zeros", title={"en": "Zeros", "zh": "全零"}),
    InitializerType("ones", "Ones", title={"en": "Ones", "zh": "全一"}),
    InitializerType("constant", "Constant", (InitParam("value", 1.0),),
                    title={"en": "Constant", "zh": "常数"}),
    InitializerType("random_normal", "RandomNormal", (_MEAN, _STD), True,
                    {"en": "Random normal", "zh": "正态分布随机"}),
    InitializerType("random_uniform", "RandomUniform",
                    (InitParam("minval", -0.05), InitParam("maxval", 0.05)), True,
                    {"en": "Random uniform", "zh": "均匀分布随机"}),
    InitializerType("truncated_normal", "TruncatedNormal", (_MEAN, _STD), True,
                    {"en": "Truncated normal", "zh": "截断正态分布"}),
    InitializerType("glorot_uniform", "GlorotUniform", (), True,
                    {"en": "Glorot (Xavier) uniform", "zh": "Glorot（Xavier）均匀"}),
    InitializerType("glorot_normal", "GlorotNormal", (), True,
                    {"en": "Glorot (Xavier) normal", "zh": "Glorot（Xavier）正态"}),
    InitializerType("he_uniform", "HeUniform", (), True, {"en": "He uniform", "zh": "He 均匀"}),
    InitializerType("he_normal", "HeNormal", (), True, {"en": "He normal", "zh": "He 正态"}),
    InitializerType("lecun_uniform", "LecunUniform", (), True,
                    {"en": "LeCun uniform", "zh": "LeCun 均匀"}),
    InitializerType("lecun_normal", "LecunNormal", (), True,
                    {"en": "LeCun normal", "zh": "LeCun 正态"}),
    InitializerType("orthogonal", "Orthogonal", (_SCALE,), True,
                    {"en": "Orthogonal", "zh": "正交"}),
    InitializerType("identity", "Identity", (_SCALE,), False,
                    {"en": "Identity (2-D square-compatible)", "zh": "单位矩阵（二维）"}),
)}


def initializer_names() -> list[str]:
    return list(INITIALIZERS)


def make_initializer(name: str, params: Mapping[str, Any] | None = None,
                     seed: int | None = None) -> Any:
    """A Keras initializer from the catalog.

    Raises:
        WeightsError: unknown name or parameter, or a value out of range.
    """
    import keras

    kind = INITIALIZERS.get(name)
    if kind is None:
        raise WeightsError(f"Unknown initializer {name!r}; choose one of "
                           f"{initializer_names()}.", key="errors.unknown_initializer",
                           params={"name": name})
    params = dict(params or {})
    known = {p.name: p for p in kind.params}
    for key, value in params.items():
        spec = known.get(key)
        if spec is None:
            raise WeightsError(f"Initializer {name!r} has no parameter {key!r}. "
                               f"Allowed: {sorted(known)}.", key="errors.initializer_param",
                               params={"name": name, "param": key})
        if spec.minimum is not None and value < spec.minimum:
            raise WeightsError(f"{name}.{key} must be >= {spec.minimum}. Received: {value}",
                               key="errors.initializer_range",
                               params={"name": name, "param": key, "value": value})
    config = {p.name: float(params.get(p.name, p.default)) for p in kind.params}
    if kind.seeded:
        config["seed"] = seed
    return keras.initializers.get({"class_name": kind.keras_class, "config": config})
