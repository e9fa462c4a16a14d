"""The tutorials' models as specs (scenarios M1-M9, B1-B9)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping

from tfcore.errors import SpecError
from tfcore.messages import Names, Text
from tfcore.model.spec import FUNCTIONAL, SEQUENTIAL, InputSpec, LayerSpec, ModelSpec

L = LayerSpec


def _seq(name: str, shape: tuple | None, layers: tuple, description: str,
         input_name: str = "x") -> ModelSpec:
    inputs = (InputSpec(input_name, shape),) if shape is not None else ()
    return ModelSpec(name=name, kind=SEQUENTIAL, inputs=inputs, layers=layers,
                     description=description)


_MLP_LAYERS = (L("flatten", "Flatten"),
               L("dense", "Dense", {"units": 100, "activation": "relu"}),
               L("logits", "Dense", {"units": 10}),
               L("softmax", "Softmax"))


def _mlp() -> ModelSpec:
    return _seq("mlp", (28, 28, 1), _MLP_LAYERS,
                "Scenario M3: Flatten -> Dense(100, relu) -> Dense(10) -> softmax.", "image")


def _mlp_functional() -> ModelSpec:
    names = ("image",) + tuple(layer.name for layer in _MLP_LAYERS)
    layers = tuple(L(layer.name, layer.type, layer.config, inputs=(names[i],))
                   for i, layer in enumerate(_MLP_LAYERS))
    return ModelSpec(name="mlp_functional", kind=FUNCTIONAL,
                     inputs=(InputSpec("image", (28, 28, 1)),), layers=layers,
                     outputs=("softmax",),
                     description="Scenario M6: the MLP of M3 written as a Functional model.")


def _conv(name: str, filters: int, size: int, **extra) -> LayerSpec:
    return L(name, "Conv2D", {"filters": filters, "kernel_size": [size, size],
                              "activation": "relu", **extra})


def _cnn() -> ModelSpec:
    pool = {"pool_size": [2, 2], "strides": 2}
    return _seq("cnn", (28, 28, 1), (
        _conv("conv1", 32, 5, padding="same"), L("pool1", "MaxPooling2D", pool),
        _conv("conv2", 64, 5, padding="same"), L("pool2", "MaxPooling2D", pool),
        L("flatten", "Reshape", {"target_shape": [7 * 7 * 64]}),
        L("dense", "Dense", {"units": 1024, "activation": "relu"}),
        L("logits", "Dense", {"units": 10}), L("softmax", "Softmax")),
        "Scenario M4: the tutorial's CNN for 28x28x1 digits.", "image")


def _mobilenet() -> ModelSpec:
    return _seq("mobilenet_v2", (224, 224, 3),
                (L("mobilenet_v2", "MobileNetV2", {"classes": 5}),),
                "Scenario M5: MobileNetV2(weights=None, classes=5) for 224x224 flowers.",
                "image")


def _cats_dogs() -> ModelSpec:
    return _seq("cats_dogs_cnn", (256, 256, 3), (
        _conv("conv1", 32, 3), L("pool1", "MaxPooling2D"),
        _conv("conv2", 32, 5), L("pool2", "MaxPooling2D"), L("flatten", "Flatten"),
        L("dense", "Dense", {"units": 64, "activation": "relu"}),
        L("output", "Dense", {"units": 2, "activation": "softmax"})),
        "Scenario M9: cats vs dogs CNN on 256x256 RGB images.", "image")


def _house() -> ModelSpec:
    return _seq("house_linear", (1,), (L("linear", "Dense", {"units": 1,
                                                             "kernel_initializer": "zeros",
                                                             "bias_initializer": "zeros"}),),
                "Scenario M1: y = a*x + b as one Dense(1) on one input, a = b = 0 at the "
                "start.", "year")


def _dense1_zero() -> ModelSpec:
    return _seq("dense1_zero", (3,), (
        L("dense", "Dense", {"units": 1, "kernel_initializer": "zeros",
                             "bias_initializer": "zeros"}),),
        "Scenario M2: one Dense(1) with zero initializers on 3 features.")


def _linear_custom() -> ModelSpec:
    return _seq("linear_custom", (3,), (L("linear", "Linear", {"units": 1}),),
                "Scenario M7: the custom Linear layer that creates its weights in build().")


def _b1() -> ModelSpec:
    return _seq("b1_mlp", (20,), (L("hidden", "Dense", {"units": 256, "activation": "relu"}),
                                  L("output", "Dense", {"units": 10})),
                "Scenario B1: Dense(256, relu) -> Dense(10) on 20 features.")


def _fixed_hidden() -> ModelSpec:
    return _seq("fixed_hidden", (20,), (L("fixed_hidden_mlp", "FixedHiddenMLP", {"units": 20}),),
                "Scenario B2: a block whose forward pass runs code (constant weight, "
                "Dense applied once, while loop).")


def _nested_mlp() -> ModelSpec:
    nest = L("nest_mlp", "Block", layers=(
        L("net", "Block", layers=(L("net_dense1", "Dense", {"units": 64, "activation": "relu"}),
                                  L("net_dense2", "Dense", {"units": 32, "activation": "relu"}))),
        L("nest_dense", "Dense", {"units": 16, "activation": "relu"})))
    return _seq("nested_mlp", (20,), (nest, L("dense", "Dense", {"units": 20}),
                                      L("fixed_hidden_mlp", "FixedHiddenMLP", {"units": 20})),
                "Scenario B3: nested blocks chained with Dense(20) and the block of B2.")


def _nested_blocks() -> ModelSpec:
    blocks = tuple(L(f"block_{i}", "Block", layers=(
        L(f"flatten_{i}", "Flatten"), L(f"dense_{i}", "Dense", {"units": 4, "activation": "relu"})))
        for i in range(4))
    return _seq("nested_blocks", (4,), (L("block2", "Block", layers=blocks),
                                        L("output", "Dense", {"units": 1})),
                "Scenario B4: four nested Flatten -> Dense(4, relu) blocks, then Dense(1).")


def _tied() -> ModelSpec:
    return _seq("tied", (4,), (
        L("flatten", "Flatten"),
        L("shared", "Dense", {"units": 4, "activation": "relu"}),
        L("shared_again", "Dense", shares="shared"),
        L("output", "Dense", {"units": 1})),
        "Scenario B7: one Dense(4, relu) applied twice: tied parameters.")


def _deferred() -> ModelSpec:
    return _seq("deferred", None, (L("hidden", "Dense", {"units": 256, "activation": "relu"}),
                                   L("output", "Dense", {"units": 10})),
                "Scenario B8: no input shape, so no weights until the first call.")


def _playground() -> ModelSpec:
    return _seq("playground", (2,), (L("hidden", "Dense", {"units": 8, "activation": "tanh"}),
                                     L("hidden_2", "Dense", {"units": 8, "activation": "tanh"}),
                                     L("out", "Dense", {"units": 2, "activation": "softmax"})),
                "A small net for the 2-D data sets (circles, moons, XOR, spirals): watch its "
                "decision boundary and every neuron while it learns.")


def _mean_center() -> ModelSpec:
    return _seq("mean_center", (8,), (L("dense", "Dense", {"units": 128}),
                                      L("mean_center", "MeanCenter")),
                "Scenario B9: Dense(128) then a parameter-free mean-centering layer.")


def _my_dense() -> ModelSpec:
    return _seq("my_dense", (64,), (L("my_dense1", "MyDense", {"units": 8}),
                                    L("my_dense2", "MyDense", {"units": 1})),
                "Scenario B9: two from-scratch dense layers with relu.")


@dataclass(frozen=True)
class Preset:
    """A named model of the tutorials: its title (catalog key ``preset.<name>``) and scenario id."""

    name: str
    title: Mapping[str, str]
    scenario: str
    make: Callable[[], ModelSpec]


def _p(name: str, scenario: str, make: Callable[[], ModelSpec]) -> Preset:
    return Preset(name, Text(f"preset.{name}", {"scenario": scenario}), scenario, make)


PRESETS: dict[str, Preset] = {p.name: p for p in (
    _p("mlp", "M3", _mlp),
    _p("cnn", "M4", _cnn),
    _p("mobilenet_v2", "M5", _mobilenet),
    _p("mlp_functional", "M6", _mlp_functional),
    _p("linear_custom", "M7", _linear_custom),
    _p("cats_dogs_cnn", "M9", _cats_dogs),
    _p("house_linear", "M1", _house),
    _p("dense1_zero", "M2", _dense1_zero),
    _p("b1_mlp", "B1", _b1),
    _p("fixed_hidden", "B2",
       _fixed_hidden),
    _p("nested_mlp", "B3", _nested_mlp),
    _p("nested_blocks", "B4",
       _nested_blocks),
    _p("tied", "B7", _tied),
    _p("deferred", "B8", _deferred),
    _p("mean_center", "B9", _mean_center),
    _p("my_dense", "B9", _my_dense),
    _p("playground", "2-D", _playground),
)}


def preset_names() -> list[str]:
    return list(PRESETS)


def preset_title(name: str) -> Mapping[str, str]:
    """The preset's title, a :class:`~tfcore.messages.Text` (``preset.unknown`` with the name
    if there is no such preset)."""
    preset = PRESETS.get(name)
    return preset.title if preset else Text("preset.unknown", {"name": name})


def get_preset(name: str) -> ModelSpec:
    """The spec of a named preset.

    Raises:
        SpecError: no preset has that name.
    """
    try:
        return PRESETS[name].make()
    except KeyError:
        raise SpecError(key="spec.no_preset",
                        params={"name": name, "choices": Names(sorted(PRESETS))}) from None
