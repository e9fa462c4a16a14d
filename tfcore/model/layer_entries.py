"""The catalog's entries: the hand-written types (labels, help and translations for the
tutorials' layers), merged with the generated entries of every other built-in Keras layer
(:mod:`tfcore.model.catalog_keras`) and the raw Keras type."""

from __future__ import annotations

from typing import Any

from tfcore.model.catalog_keras import activations, generated_types, merged, raw_type
from tfcore.model.params import (
    BOOL,
    CHOICE,
    FLOAT,
    INIT,
    INT,
    REG,
    SHAPE,
    SIZE,
    LayerType,
    ParamSpec,
)

ACTIVATIONS = activations()
PADDINGS = ("valid", "same")
MAX_UNITS = 1_000_000


def P(name: str, kind: str, default: Any, en: str, zh: str, **extra: Any) -> ParamSpec:
    return ParamSpec(name, kind, default, help={"en": en, "zh": zh}, **extra)


def _units(default: int) -> ParamSpec:
    return P("units", INT, default, "Number of output features (neurons).",
             "输出特征（神经元）的个数。", minimum=1, maximum=MAX_UNITS,
             required=True)


def _act(default: str = "linear", name: str = "activation") -> ParamSpec:
    return P(name, CHOICE, default, "Activation applied to the output ('linear' = none).",
             "作用在输出上的激活函数（linear 表示不用激活）。", choices=ACTIVATIONS)


_USE_BIAS = P("use_bias", BOOL, True, "Add a learned bias vector.", "是否加上可学习的偏置向量。")


def _init(name: str, default: str) -> ParamSpec:
    return P(name, INIT, default, "How these weights are filled before training.",
             "训练开始前如何初始化这些权重。")


def _reg(name: str) -> ParamSpec:
    return P(name, REG, None, "Penalty on these weights added to the loss (L1, L2 or both).",
             "加到损失上的权重惩罚项（L1、L2 或两者）。")


_WEIGHTED = (_init("kernel_initializer", "glorot_uniform"), _init("bias_initializer", "zeros"),
             _reg("kernel_regularizer"), _reg("bias_regularizer"))


def _conv(rank: int) -> tuple[ParamSpec, ...]:
    return (P("filters", INT, 32, "Number of filters (output channels).",
              "卷积核个数（输出通道数）。", minimum=1, maximum=65536, required=True),
            P("kernel_size", SIZE, 3, "Size of the convolution window.", "卷积窗口的大小。",
              length=rank, maximum=512, required=True),
            P("strides", SIZE, 1, "Step of the window.", "窗口移动的步长。", length=rank,
              maximum=512),
            P("padding", CHOICE, "valid", "'same' keeps the size, 'valid' does not pad.",
              "same 保持尺寸，valid 不填充。", choices=PADDINGS),
            _act(), _USE_BIAS, *_WEIGHTED)


def _pool(rank: int) -> tuple[ParamSpec, ...]:
    return (P("pool_size", SIZE, 2, "Size of the pooling window.", "池化窗口的大小。",
              length=rank, maximum=512),
            P("strides", SIZE, None, "Step of the window (empty = the pool size).",
              "窗口移动的步长（留空表示等于窗口大小）。", length=rank, nullable=True, maximum=512),
            P("padding", CHOICE, "valid", "'same' pads so that no input is dropped.",
              "same 会填充以保留所有输入。", choices=PADDINGS))


def _recurrent() -> tuple[ParamSpec, ...]:
    return (_units(32), _act("tanh"), _act("sigmoid", "recurrent_activation"), _USE_BIAS,
            P("return_sequences", BOOL, False, "Return the output of every time step.",
              "返回每个时间步的输出。"),
            P("dropout", FLOAT, 0.0, "Fraction of inputs dropped while training.",
              "训练时丢弃输入的比例。", minimum=0.0, maximum=0.99),
            _init("kernel_initializer", "glorot_uniform"),
            _init("recurrent_initializer", "orthogonal"), _init("bias_initializer", "zeros"),
            _reg("kernel_regularizer"))


_MERGE_HELP = ("Takes two or more tensors of the same shape.", "接收两个或更多形状相同的张量。")


def _app(name: str, zh: str, extra: tuple[ParamSpec, ...] = ()) -> LayerType:
    params = (P("classes", INT, 1000, "Number of classes of the classifier on top.",
                "顶部分类器的类别数。", minimum=1, maximum=100_000),
              P("include_top", BOOL, True, "Include the classifier on top.", "包含顶部分类器。"),
              P("pooling", CHOICE, None, "Pooling of the last features without the top.",
                "不含顶部时最后特征的池化方式。", choices=("avg", "max"), nullable=True),
              P("classifier_activation", CHOICE, "softmax", "Activation of the classifier.",
                "分类器的激活函数。", choices=("softmax", "linear")), *extra)
    return LayerType(name, "application", {"en": f"{name} (random weights)",
                                           "zh": f"{name}（随机权重）"},
                     {"en": f"Keras Applications {name} built with weights=None; its input "
                            "shape comes from the layer before it.",
                      "zh": f"Keras Applications 中的 {zh}，weights=None（不下载预训练权重）；"
                            "输入形状取自前一层。"},
                     params, f"keras.applications.{name}", fixed={"weights": None},
                     wants_input_shape=True)


def _t(en: str, zh: str) -> dict[str, str]:
    return {"en": en, "zh": zh}


_TYPES = (
    LayerType("Dense", "core", _t("Dense", "全连接层 Dense"),
              _t("Fully connected: activation(x W + b).", "全连接：activation(x W + b)。"),
              (_units(10), _act(), _USE_BIAS, *_WEIGHTED), "keras.layers.Dense"),
    LayerType("Flatten", "core", _t("Flatten", "展平 Flatten"),
              _t("Flattens each example into a vector.", "把每个样本展平成向量。"),
              (), "keras.layers.Flatten"),
    LayerType("Reshape", "core", _t("Reshape", "变形 Reshape"),
              _t("Reshapes each example; the sizes must multiply to the same number.",
                 "改变每个样本的形状；元素总数必须不变。"),
              (P("target_shape", SHAPE, [-1], "New shape without the batch axis.",
                 "新形状（不含批量维）。", required=True),), "keras.layers.Reshape"),
    LayerType("Dropout", "core", _t("Dropout", "丢弃 Dropout"),
              _t("Randomly zeroes a fraction of inputs while training.",
                 "训练时随机把一部分输入置零。"),
              (P("rate", FLOAT, 0.5, "Fraction of inputs to drop.", "丢弃的比例。",
                 minimum=0.0, maximum=0.99, required=True),), "keras.layers.Dropout"),
    LayerType("Activation", "core", _t("Activation", "激活 Activation"),
              _t("Applies an activation function.", "应用一个激活函数。"),
              (_act("relu"),), "keras.layers.Activation"),
    LayerType("Softmax", "core", _t("Softmax", "Softmax"),
              _t("Turns scores into probabilities along an axis.", "沿某个轴把分数变成概率。"),
              (P("axis", INT, -1, "Axis to normalize.", "归一化的轴。"),),
              "keras.layers.Softmax"),
    LayerType("Embedding", "core", _t("Embedding", "嵌入 Embedding"),
              _t("Maps integer ids to learned vectors.", "把整数编号映射为可学习的向量。"),
              (P("input_dim", INT, 1000, "Vocabulary size (largest id + 1).",
                 "词表大小（最大编号 + 1）。", minimum=1, maximum=10_000_000, required=True),
               P("output_dim", INT, 64, "Length of each vector.", "每个向量的长度。",
                 minimum=1, maximum=MAX_UNITS, required=True),
               _init("embeddings_initializer", "random_uniform"),
               P("mask_zero", BOOL, False, "Treat id 0 as padding.", "把编号 0 当作填充。")),
              "keras.layers.Embedding"),
    LayerType("Conv1D", "conv", _t("Conv1D", "一维卷积 Conv1D"),
              _t("1-D convolution over sequences (steps, channels).",
                 "在序列（步数，通道）上的一维卷积。"), _conv(1), "keras.layers.Conv1D"),
    LayerType("Conv2D", "conv", _t("Conv2D", "二维卷积 Conv2D"),
              _t("2-D convolution over images (height, width, channels).",
                 "在图像（高，宽，通道）上的二维卷积。"), _conv(2), "keras.layers.Conv2D"),
    LayerType("MaxPooling1D", "pool", _t("MaxPooling1D", "一维最大池化"),
              _t("Maximum over windows of a sequence.", "在序列窗口上取最大值。"), _pool(1),
              "keras.layers.MaxPooling1D"),
    LayerType("MaxPooling2D", "pool", _t("MaxPooling2D", "二维最大池化"),
              _t("Maximum over windows of an image.", "在图像窗口上取最大值。"), _pool(2),
              "keras.layers.MaxPooling2D"),
    LayerType("AveragePooling2D", "pool", _t("AveragePooling2D", "二维平均池化"),
              _t("Average over windows of an image.", "在图像窗口上取平均值。"), _pool(2),
              "keras.layers.AveragePooling2D"),
    LayerType("GlobalAveragePooling1D", "pool", _t("GlobalAveragePooling1D", "一维全局平均池化"),
              _t("Average over all steps: one value per channel.", "对所有步求平均：每个通道一个值。"),
              (), "keras.layers.GlobalAveragePooling1D"),
    LayerType("GlobalAveragePooling2D", "pool", _t("GlobalAveragePooling2D", "二维全局平均池化"),
              _t("Average over height and width: one value per channel.",
                 "对高和宽求平均：每个通道一个值。"), (), "keras.layers.GlobalAveragePooling2D"),
    LayerType("BatchNormalization", "norm", _t("BatchNormalization", "批量归一化"),
              _t("Normalizes each feature over the batch; keeps moving statistics.",
                 "在批量上归一化每个特征，并保留滑动统计量。"),
              (P("momentum", FLOAT, 0.99, "Momentum of the moving mean and variance.",
                 "滑动均值和方差的动量。", minimum=0.0, maximum=1.0),
               P("epsilon", FLOAT, 0.001, "Small number added to the variance.",
                 "加到方差上的小常数。", minimum=1e-12, maximum=1.0),
               P("center", BOOL, True, "Learn an offset (beta).", "学习偏移量 beta。"),
               P("scale", BOOL, True, "Learn a scale (gamma).", "学习缩放 gamma。")),
              "keras.layers.BatchNormalization"),
    LayerType("LayerNormalization", "norm", _t("LayerNormalization", "层归一化"),
              _t("Normalizes each example over its last axis.", "在每个样本的最后一个轴上归一化。"),
              (P("epsilon", FLOAT, 0.001, "Small number added to the variance.",
                 "加到方差上的小常数。", minimum=1e-12, maximum=1.0),
               P("center", BOOL, True, "Learn an offset (beta).", "学习偏移量 beta。"),
               P("scale", BOOL, True, "Learn a scale (gamma).", "学习缩放 gamma。")),
              "keras.layers.LayerNormalization"),
    LayerType("LSTM", "recurrent", _t("LSTM", "长短期记忆 LSTM"),
              _t("Long short-term memory over a sequence (steps, features).",
                 "在序列（步数，特征）上的长短期记忆网络。"), _recurrent(), "keras.layers.LSTM"),
    LayerType("GRU", "recurrent", _t("GRU", "门控循环单元 GRU"),
              _t("Gated recurrent unit over a sequence (steps, features).",
                 "在序列（步数，特征）上的门控循环单元。"), _recurrent(), "keras.layers.GRU"),
    LayerType("Add", "merge", _t("Add", "相加 Add"), _t(*_MERGE_HELP), (), "keras.layers.Add",
              min_inputs=2, max_inputs=16),
    LayerType("Multiply", "merge", _t("Multiply", "相乘 Multiply"), _t(*_MERGE_HELP), (),
              "keras.layers.Multiply", min_inputs=2, max_inputs=16),
    LayerType("Average", "merge", _t("Average", "平均 Average"), _t(*_MERGE_HELP), (),
              "keras.layers.Average", min_inputs=2, max_inputs=16),
    LayerType("Concatenate", "merge", _t("Concatenate", "拼接 Concatenate"),
              _t("Joins two or more tensors along an axis; other axes must match.",
                 "沿某个轴拼接两个或更多张量；其余轴必须相同。"),
              (P("axis", INT, -1, "Axis to join along.", "拼接的轴。"),),
              "keras.layers.Concatenate", min_inputs=2, max_inputs=16),
    _app("MobileNetV2", "MobileNetV2",
         (P("alpha", CHOICE, 1.0, "Width multiplier of the network.", "网络宽度系数。",
            choices=(0.35, 0.5, 0.75, 1.0, 1.3, 1.4)),)),
    _app("ResNet50", "ResNet50"),
    _app("VGG16", "VGG16"),
    _app("EfficientNetB0", "EfficientNetB0"),
    LayerType("Linear", "custom", _t("Linear (custom, M7)", "自定义线性层（M7）"),
              _t("The tutorial's custom layer: creates W [in, units] and b [units] in build().",
                 "教程中的自定义层：在 build() 中按输入形状创建 W [in, units] 和 b [units]。"),
              (_units(1), _init("kernel_initializer", "zeros"), _init("bias_initializer", "zeros")),
              "tfcore.model.layers.Linear"),
    LayerType("MeanCenter", "custom", _t("MeanCenter (custom, B9)", "去均值层（B9）"),
              _t("A layer without parameters that subtracts the mean of its input.",
                 "没有参数的层：减去输入的均值。"), (), "tfcore.model.layers.MeanCenter"),
    LayerType("MyDense", "custom", _t("MyDense (custom, B9)", "自定义全连接层（B9）"),
              _t("A dense layer written from scratch: relu(x W + b).",
                 "从零实现的全连接层：relu(x W + b)。"), (_units(8),), "tfcore.model.layers.MyDense"),
    LayerType("FixedHiddenMLP", "custom", _t("FixedHiddenMLP (custom, B2)", "固定隐藏层块（B2）"),
              _t("Runs code in its forward pass: a constant random weight, a Dense applied "
                 "once, a while loop; returns a sum.",
                 "前向传播中执行代码：常量随机权重、应用一次的全连接层、while 循环；返回一个和。"),
              (_units(20), P("seed", INT, 0, "Seed of the constant random weight.",
                             "常量随机权重的随机种子。", minimum=0)),
              "tfcore.model.layers.FixedHiddenMLP"),
    LayerType("Block", "structure", _t("Block (nested layers)", "块（嵌套层）"),
              _t("A nested block: its own layers applied in order (a Sequential inside).",
                 "嵌套块：按顺序应用其中的层（内部是一个 Sequential）。"),
              (), "keras.Sequential", container=True),
)


def _all_types() -> dict[str, LayerType]:
    generated = generated_types()
    out: dict[str, LayerType] = {}
    for entry in _TYPES:
        twin = generated.get(entry.class_name) if entry.keras_class else None
        out[entry.name] = merged(entry, twin) if twin else entry
    for name, entry in generated.items():
        out.setdefault(name, entry)
    raw = raw_type()
    out[raw.name] = raw
    return out


LAYER_TYPES: dict[str, LayerType] = _all_types()
