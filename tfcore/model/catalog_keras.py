"""The generated part of the catalog: every built-in Keras layer, read from
``keras_layers.json`` (written by :mod:`tfcore.model.catalog_gen`; no Keras import here).

Generated entries get the class name as label and a generic help line in both languages;
their parameters get help from a table of common argument names, else a generic line.
A hand-written entry keeps its own fields first and gains the generated ones it lacks as
``advanced`` parameters ("more Keras options").
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

from tfcore.model.params import JSON, LayerType, ParamSpec

DATA = Path(__file__).with_name("keras_layers.json")
RAW_TYPE = "KerasRaw"
TUTORIAL_ACTIVATIONS = ("linear", "relu", "sigmoid", "tanh", "softmax", "gelu", "elu", "selu",
                        "softplus", "swish", "leaky_relu", "relu6")

_HELP: dict[str, tuple[str, str]] = {
    "trainable": ("Train this layer's weights (off: frozen).", "训练这一层的权重（关闭即冻结）。"),
    "dtype": ("Data type policy of the layer (null: the default float32).",
              "层的数据类型策略（null 表示默认的 float32）。"),
    "units": ("Number of output features.", "输出特征的个数。"),
    "filters": ("Number of filters (output channels).", "卷积核个数（输出通道数）。"),
    "kernel_size": ("Size of the window.", "窗口的大小。"),
    "pool_size": ("Size of the pooling window.", "池化窗口的大小。"),
    "strides": ("Step of the window.", "窗口移动的步长。"),
    "padding": ("Padding: 'valid' none, 'same' keeps the size.", "填充：valid 不填充，same 保持尺寸。"),
    "data_format": ("Where the channels axis is.", "通道轴的位置。"),
    "dilation_rate": ("Spacing between the window's taps.", "窗口采样点之间的间隔（空洞率）。"),
    "activation": ("Activation applied to the output.", "作用在输出上的激活函数。"),
    "recurrent_activation": ("Activation of the recurrent gates.", "循环门的激活函数。"),
    "use_bias": ("Add a learned bias vector.", "是否加上可学习的偏置向量。"),
    "rate": ("Fraction of inputs dropped while training.", "训练时丢弃输入的比例。"),
    "dropout": ("Fraction dropped while training.", "训练时丢弃的比例。"),
    "seed": ("Random seed (null: a different draw each time).", "随机种子（null 表示每次不同）。"),
    "axis": ("Axis (or axes) the layer works along.", "层作用的轴。"),
    "epsilon": ("Small number added to avoid dividing by zero.", "防止除以零而加上的小常数。"),
    "momentum": ("Momentum of the moving statistics.", "滑动统计量的动量。"),
    "return_sequences": ("Return the output of every time step.", "返回每个时间步的输出。"),
    "return_state": ("Also return the last state.", "同时返回最后的状态。"),
    "factor": ("Strength of the random change.", "随机变换的强度。"),
    "value_range": ("Range of the input values, e.g. [0, 255].", "输入值的范围，例如 [0, 255]。"),
    "interpolation": ("How new pixel values are computed.", "新像素值的插值方式。"),
    "fill_mode": ("How points outside the input are filled.", "输入范围之外的点如何填充。"),
    "layer": ("The wrapped layer, as a Keras layer config.", "被包装的层（Keras 层配置）。"),
}
_SUFFIX_HELP: dict[str, tuple[str, str]] = {
    "_initializer": ("How these weights are filled before training.", "训练开始前如何初始化这些权重。"),
    "_regularizer": ("Penalty added to the loss (L1, L2 or a Keras config).",
                     "加到损失上的惩罚项（L1、L2 或 Keras 配置）。"),
    "_constraint": ("Constraint applied to these weights after each update (Keras config).",
                    "每次更新后作用在这些权重上的约束（Keras 配置）。"),
}


def param_help(name: str, cls: str) -> dict[str, str]:
    """Help for a generated parameter: the table, a suffix rule, or a generic line."""
    found = _HELP.get(name) or next((v for k, v in _SUFFIX_HELP.items() if name.endswith(k)),
                                    None)
    if found:
        return {"en": found[0], "zh": found[1]}
    return {"en": f"The Keras argument {name} of {cls}.", "zh": f"{cls} 的 Keras 参数 {name}。"}


def layer_help(cls: str) -> dict[str, str]:
    return {"en": f"The Keras layer keras.layers.{cls}; its fields come from the Keras "
                  "signature (see the Keras documentation for what it does).",
            "zh": f"Keras 层 keras.layers.{cls}；表单字段由其 Keras 构造函数生成"
                  "（用途见 Keras 文档）。"}


@lru_cache(maxsize=1)
def data() -> Mapping[str, Any]:
    return json.loads(DATA.read_text(encoding="utf-8"))


def activations() -> tuple[str, ...]:
    """The tutorials' activations first, then every other Keras activation."""
    rest = [a for a in data()["activations"] if a not in TUTORIAL_ACTIVATIONS]
    return TUTORIAL_ACTIVATIONS + tuple(rest)


def skipped() -> dict[str, str]:
    """Classes of ``keras.layers`` left out of the catalog, with the reason."""
    return dict(data()["skipped"])


def _param(raw: Mapping[str, Any], cls: str, advanced: bool) -> ParamSpec:
    choices = raw.get("choices", ())
    if choices == "activations":
        choices = activations()
    return ParamSpec(raw["name"], raw["kind"], raw["default"], choices=tuple(choices),
                     help=param_help(raw["name"], cls), nullable=bool(raw.get("nullable")),
                     length=int(raw.get("length", 2)), required=bool(raw.get("required")),
                     advanced=advanced or bool(raw.get("advanced")))


def generated_types() -> dict[str, LayerType]:
    """Every generated entry by class name."""
    out = {}
    for raw in data()["layers"]:
        cls = raw["name"]
        low, high = raw["inputs"]
        out[cls] = LayerType(cls, raw["category"], {"en": cls, "zh": cls}, layer_help(cls),
                             tuple(_param(p, cls, False) for p in raw["params"]),
                             f"keras.layers.{raw.get('attr', cls)}", min_inputs=low,
                             max_inputs=high,
                             positional=bool(raw.get("positional")), generated=True)
    return out


def merged(hand: LayerType, generated: LayerType) -> LayerType:
    """A hand-written entry plus the generated parameters it does not have (advanced)."""
    from dataclasses import replace

    names = {p.name for p in hand.params}
    extra = tuple(replace(p, advanced=True, required=False) for p in generated.params
                  if p.name not in names)
    return replace(hand, params=hand.params + extra, positional=generated.positional)


def raw_type() -> LayerType:
    """Any Keras object kept as its serialized config (a class outside ``keras.layers``
    such as an op or an application's own layer, a nested Functional model)."""
    default = {"module": "keras.layers", "class_name": "Identity", "config": {},
               "registered_name": None}
    return LayerType(
        RAW_TYPE, "structure", {"en": "Keras layer (config kept as is)",
                                "zh": "Keras 层（配置原样保留）"},
        {"en": "A built-in Keras layer or operation kept as its Keras config (from an import: "
               "a nested model, an op such as add, an application's own layer).",
         "zh": "以 Keras 配置原样保留的内置 Keras 层或运算（来自导入：嵌套模型、add 等运算、"
               "应用模型自带的层）。"},
        (ParamSpec("keras", JSON, default, required=True,
                   help={"en": "The Keras config: module, class_name, config.",
                         "zh": "Keras 配置：module、class_name、config。"}),),
        "keras.saving.deserialize_keras_object", min_inputs=1, max_inputs=64,
        positional=True)

