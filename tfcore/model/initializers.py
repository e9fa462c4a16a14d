"""The initializer catalog: typed parameters per initializer, plus the tutorials' own.

``make_initializer(name, params, seed)`` returns a Keras initializer; the custom ones are
registered Keras serializables so that models using them save and load.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from tfcore.errors import WeightsError
from tfcore.messages import Names, Text

CUSTOM_PACKAGE = "tflab"


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
    registered_name: str | None = None  # custom classes: "tflab>ClassName"

    @property
    def title(self) -> Text:
        """Its label, catalog key ``initializer.<name>``."""
        return Text(f"initializer.{self.name}")


_MEAN = InitParam("mean", 0.0)
_STD = InitParam("stddev", 0.05, 0.0)
_SCALE = InitParam("gain", 1.0, 0.0)

INITIALIZERS: dict[str, InitializerType] = {i.name: i for i in (
    InitializerType("zeros", "Zeros"),
    InitializerType("ones", "Ones"),
    InitializerType("constant", "Constant", (InitParam("value", 1.0),)),
    InitializerType("random_normal", "RandomNormal", (_MEAN, _STD), True),
    InitializerType("random_uniform", "RandomUniform",
                    (InitParam("minval", -0.05), InitParam("maxval", 0.05)), True),
    InitializerType("truncated_normal", "TruncatedNormal", (_MEAN, _STD), True),
    InitializerType("glorot_uniform", "GlorotUniform", (), True),
    InitializerType("glorot_normal", "GlorotNormal", (), True),
    InitializerType("he_uniform", "HeUniform", (), True),
    InitializerType("he_normal", "HeNormal", (), True),
    InitializerType("lecun_uniform", "LecunUniform", (), True),
    InitializerType("lecun_normal", "LecunNormal", (), True),
    InitializerType("orthogonal", "Orthogonal", (_SCALE,), True),
    InitializerType("identity", "Identity", (_SCALE,), False),
    InitializerType("tutorial_custom", "ZeroedUniform",
                    (InitParam("minval", -10.0), InitParam("maxval", 10.0),
                     InitParam("threshold", 5.0, 0.0)), True,
                    registered_name=f"{CUSTOM_PACKAGE}>ZeroedUniform"),
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
        raise WeightsError(key="errors.unknown_initializer",
                           params={"name": name, "choices": Names(initializer_names())})
    params = dict(params or {})
    known = {p.name: p for p in kind.params}
    for key, value in params.items():
        spec = known.get(key)
        if spec is None:
            raise WeightsError(key="errors.initializer_param",
                               params={"name": name, "param": key, "choices": Names(sorted(known))})
        if spec.minimum is not None and value < spec.minimum:
            raise WeightsError(key="errors.initializer_range",
                               params={"name": name, "param": key, "low": spec.minimum,
                                       "value": value})
    config = {p.name: float(params.get(p.name, p.default)) for p in kind.params}
    if config.get("minval", 0.0) > config.get("maxval", 0.0):
        raise WeightsError(key="errors.initializer_bounds",
                           params={"name": name, "minval": config["minval"],
                                   "maxval": config["maxval"]})
    if kind.seeded:
        config["seed"] = seed
    identifier: dict[str, Any] = {"class_name": kind.keras_class, "config": config}
    if kind.registered_name:
        zeroed_uniform_class()  # registers the custom class before deserializing
        identifier["registered_name"] = kind.registered_name
    return keras.initializers.get(identifier)


_ZEROED_UNIFORM: list[type] = []


def zeroed_uniform_class() -> type:
    """The tutorials' custom initializer class, registered as ``tflab>ZeroedUniform``.

    It draws U(minval, maxval) and sets every value with ``|w| < threshold`` to zero
    (the tutorial: U(-10, 10), threshold 5). Defined lazily so importing the catalog
    does not import Keras.
    """
    if _ZEROED_UNIFORM:
        return _ZEROED_UNIFORM[0]
    import keras

    @keras.saving.register_keras_serializable(package=CUSTOM_PACKAGE)
    class ZeroedUniform(keras.initializers.RandomUniform):
        """U(minval, maxval) with every value of magnitude below ``threshold`` zeroed."""

        def __init__(self, minval: float = -10.0, maxval: float = 10.0,
                     threshold: float = 5.0, seed: Any = None) -> None:
            if threshold < 0:
                raise ValueError(f"threshold must be >= 0. Received: threshold={threshold}")
            self.threshold = threshold
            super().__init__(minval=minval, maxval=maxval, seed=seed)

        def __call__(self, shape: Any, dtype: Any = None) -> Any:
            values = super().__call__(shape, dtype=dtype)
            keep = keras.ops.cast(keras.ops.abs(values) >= self.threshold, values.dtype)
            return values * keep

        def get_config(self) -> dict:
            return {**super().get_config(), "threshold": self.threshold}

    _ZEROED_UNIFORM.append(ZeroedUniform)
    return ZeroedUniform
