"""The tutorials' models as specs (scenarios M1-M9, B1-B9)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping

from tfcore.errors import SpecError
from tfcore.spec import InputSpec, LayerSpec, ModelSpec, SEQUENTIAL


def _mlp() -> ModelSpec:
    return ModelSpec(
        name="mlp", kind=SEQUENTIAL,
        inputs=(InputSpec("image", (28, 28, 1)),),
        layers=(LayerSpec("flatten", "Flatten"),
                LayerSpec("dense", "Dense", {"units": 100, "activation": "relu"}),
                LayerSpec("logits", "Dense", {"units": 10}),
                LayerSpec("softmax", "Softmax")),
        description="Scenario M3: Flatten -> Dense(100, relu) -> Dense(10) -> softmax.")


def _cnn() -> ModelSpec:
    return ModelSpec(
        name="cnn", kind=SEQUENTIAL,
        inputs=(InputSpec("image", (28, 28, 1)),),
        layers=(LayerSpec("conv1", "Conv2D", {"filters": 32, "kernel_size": [5, 5],
                                              "padding": "same", "activation": "relu"}),
                LayerSpec("pool1", "MaxPooling2D", {"pool_size": [2, 2], "strides": 2}),
                LayerSpec("conv2", "Conv2D", {"filters": 64, "kernel_size": [5, 5],
                                              "padding": "same", "activation": "relu"}),
                LayerSpec("pool2", "MaxPooling2D", {"pool_size": [2, 2], "strides": 2}),
                LayerSpec("flatten", "Reshape", {"target_shape": [7 * 7 * 64]}),
                LayerSpec("dense", "Dense", {"units": 1024, "activation": "relu"}),
                LayerSpec("logits", "Dense", {"units": 10}),
                LayerSpec("softmax", "Softmax")),
        description="Scenario M4: the tutorial's CNN for 28x28x1 digits.")


@dataclass(frozen=True)
class Preset:
    """A named model of the tutorials: its title in both languages and scenario id."""

    name: str
    title: Mapping[str, str]
    scenario: str
    make: Callable[[], ModelSpec]


PRESETS: dict[str, Preset] = {
    p.name: p for p in (
        Preset("mlp", {"en": "MLP for digits (M3)", "zh": "手写数字多层感知机（M3）"}, "M3", _mlp),
        Preset("cnn", {"en": "CNN for digits (M4)", "zh": "手写数字卷积神经网络（M4）"}, "M4", _cnn),
    )
}


def preset_names() -> list[str]:
    return list(PRESETS)


def preset_title(name: str) -> Mapping[str, str]:
    """The preset's title as ``{"en": ..., "zh": ...}`` (the name if unknown)."""
    preset = PRESETS.get(name)
    return preset.title if preset else {"en": name, "zh": name}


def get_preset(name: str) -> ModelSpec:
    """The spec of a named preset.

    Raises:
        SpecError: no preset has that name.
    """
    try:
        return PRESETS[name].make()
    except KeyError:
        raise SpecError(f"No preset named {name!r}; choose one of {sorted(PRESETS)}.",
                        key="spec.no_preset", params={"name": name}) from None
