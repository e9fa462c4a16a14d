"""The catalog's entries: the hand-written types (labels, help and translations for the
tutorials' layers), merged with the generated entries of every other built-in Keras layer
(:mod:`tfcore.model.catalog_keras`) and the raw Keras type."""

from __future__ import annotations

from typing import Any

from tfcore.messages import Text
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
FIXED_HIDDEN_MAX_UNITS = 4096   # its constant is units x units numbers, not parameters


def P(name: str, kind: str, default: Any, help_key: str, **extra: Any) -> ParamSpec:
    """A parameter whose help is the catalog text ``help_key`` (``locales/*/layers.json``)."""
    return ParamSpec(name, kind, default, help=Text(help_key), **extra)


def _units(default: int) -> ParamSpec:
    return P("units", INT, default, "layer.param.units", minimum=1, maximum=MAX_UNITS,
             required=True)


def _act(default: str = "linear", name: str = "activation") -> ParamSpec:
    return P(name, CHOICE, default, "layer.param.activation", choices=ACTIVATIONS)


_USE_BIAS = P("use_bias", BOOL, True, "layer.param.use_bias")


def _init(name: str, default: str) -> ParamSpec:
    return P(name, INIT, default, "layer.param.initializer")


def _reg(name: str) -> ParamSpec:
    return P(name, REG, None, "layer.param.regularizer")


_WEIGHTED = (_init("kernel_initializer", "glorot_uniform"), _init("bias_initializer", "zeros"),
             _reg("kernel_regularizer"), _reg("bias_regularizer"))


def _conv(rank: int) -> tuple[ParamSpec, ...]:
    return (P("filters", INT, 32, "layer.conv.filters", minimum=1, maximum=65536, required=True),
            P("kernel_size", SIZE, 3, "layer.conv.kernel_size",
              length=rank, maximum=512, required=True),
            P("strides", SIZE, 1, "layer.conv.strides", length=rank,
              maximum=512),
            P("padding", CHOICE, "valid", "layer.conv.padding", choices=PADDINGS),
            _act(), _USE_BIAS, *_WEIGHTED)


def _pool(rank: int) -> tuple[ParamSpec, ...]:
    return (P("pool_size", SIZE, 2, "layer.pool.pool_size",
              length=rank, maximum=512),
            P("strides", SIZE, None, "layer.pool.strides", length=rank, nullable=True, maximum=512),
            P("padding", CHOICE, "valid", "layer.pool.padding", choices=PADDINGS))


def _recurrent() -> tuple[ParamSpec, ...]:
    return (_units(32), _act("tanh"), _act("sigmoid", "recurrent_activation"), _USE_BIAS,
            P("return_sequences", BOOL, False, "layer.recurrent.return_sequences"),
            P("dropout", FLOAT, 0.0, "layer.recurrent.dropout", minimum=0.0, maximum=0.99),
            _init("kernel_initializer", "glorot_uniform"),
            _init("recurrent_initializer", "orthogonal"), _init("bias_initializer", "zeros"),
            _reg("kernel_regularizer"))


def _app(name: str, extra: tuple[ParamSpec, ...] = ()) -> LayerType:
    params = (P("classes", INT, 1000, "layer.param.classes", minimum=1, maximum=100_000),
              P("include_top", BOOL, True, "layer.param.include_top"),
              P("pooling", CHOICE, None, "layer.param.pooling", choices=("avg", "max"),
                nullable=True),
              P("classifier_activation", CHOICE, "softmax", "layer.param.classifier_activation",
                choices=("softmax", "linear")), *extra)
    return LayerType(name, "application", Text("layer.app.title", {"name": name}),
                     Text("layer.app.help", {"name": name}), params, f"keras.applications.{name}",
                     fixed={"weights": None},
                     wants_input_shape=True)


_TYPES = (
    LayerType("Dense", "core", Text("layer.Dense.title"),
              Text("layer.Dense.help"),
              (_units(10), _act(), _USE_BIAS, *_WEIGHTED), "keras.layers.Dense"),
    LayerType("Flatten", "core", Text("layer.Flatten.title"),
              Text("layer.Flatten.help"),
              (), "keras.layers.Flatten"),
    LayerType("Reshape", "core", Text("layer.Reshape.title"),
              Text("layer.Reshape.help"),
              (P("target_shape", SHAPE, [-1], "layer.Reshape.target_shape", required=True),),
              "keras.layers.Reshape"),
    LayerType("Dropout", "core", Text("layer.Dropout.title"),
              Text("layer.Dropout.help"),
              (P("rate", FLOAT, 0.5, "layer.Dropout.rate",
                 minimum=0.0, maximum=0.99, required=True),), "keras.layers.Dropout"),
    LayerType("Activation", "core", Text("layer.Activation.title"),
              Text("layer.Activation.help"),
              (_act("relu"),), "keras.layers.Activation"),
    LayerType("Softmax", "core", Text("layer.Softmax.title"),
              Text("layer.Softmax.help"),
              (P("axis", INT, -1, "layer.Softmax.axis"),),
              "keras.layers.Softmax"),
    LayerType("Embedding", "core", Text("layer.Embedding.title"),
              Text("layer.Embedding.help"),
              (P("input_dim", INT, 1000, "layer.Embedding.input_dim", minimum=1,
                 maximum=10_000_000, required=True),
               P("output_dim", INT, 64, "layer.Embedding.output_dim",
                 minimum=1, maximum=MAX_UNITS, required=True),
               _init("embeddings_initializer", "random_uniform"),
               P("mask_zero", BOOL, False, "layer.Embedding.mask_zero")),
              "keras.layers.Embedding"),
    LayerType("Conv1D", "conv", Text("layer.Conv1D.title"),
              Text("layer.Conv1D.help"), _conv(1), "keras.layers.Conv1D"),
    LayerType("Conv2D", "conv", Text("layer.Conv2D.title"),
              Text("layer.Conv2D.help"), _conv(2), "keras.layers.Conv2D"),
    LayerType("MaxPooling1D", "pool", Text("layer.MaxPooling1D.title"),
              Text("layer.MaxPooling1D.help"), _pool(1),
              "keras.layers.MaxPooling1D"),
    LayerType("MaxPooling2D", "pool", Text("layer.MaxPooling2D.title"),
              Text("layer.MaxPooling2D.help"), _pool(2),
              "keras.layers.MaxPooling2D"),
    LayerType("AveragePooling2D", "pool", Text("layer.AveragePooling2D.title"),
              Text("layer.AveragePooling2D.help"), _pool(2),
              "keras.layers.AveragePooling2D"),
    LayerType("GlobalAveragePooling1D", "pool", Text("layer.GlobalAveragePooling1D.title"),
              Text("layer.GlobalAveragePooling1D.help"),
              (), "keras.layers.GlobalAveragePooling1D"),
    LayerType("GlobalAveragePooling2D", "pool", Text("layer.GlobalAveragePooling2D.title"),
              Text("layer.GlobalAveragePooling2D.help"), (), "keras.layers.GlobalAveragePooling2D"),
    LayerType("BatchNormalization", "norm", Text("layer.BatchNormalization.title"),
              Text("layer.BatchNormalization.help"),
              (P("momentum", FLOAT, 0.99, "layer.BatchNormalization.momentum", minimum=0.0,
                 maximum=1.0),
               P("epsilon", FLOAT, 0.001, "layer.BatchNormalization.epsilon", minimum=1e-12,
                 maximum=1.0),
               P("center", BOOL, True, "layer.BatchNormalization.center"),
               P("scale", BOOL, True, "layer.BatchNormalization.scale")),
              "keras.layers.BatchNormalization"),
    LayerType("LayerNormalization", "norm", Text("layer.LayerNormalization.title"),
              Text("layer.LayerNormalization.help"),
              (P("epsilon", FLOAT, 0.001, "layer.LayerNormalization.epsilon", minimum=1e-12,
                 maximum=1.0),
               P("center", BOOL, True, "layer.LayerNormalization.center"),
               P("scale", BOOL, True, "layer.LayerNormalization.scale")),
              "keras.layers.LayerNormalization"),
    LayerType("LSTM", "recurrent", Text("layer.LSTM.title"),
              Text("layer.LSTM.help"), _recurrent(), "keras.layers.LSTM"),
    LayerType("GRU", "recurrent", Text("layer.GRU.title"),
              Text("layer.GRU.help"), _recurrent(), "keras.layers.GRU"),
    LayerType("Add", "merge", Text("layer.Add.title"), Text("layer.merge.help"), (),
              "keras.layers.Add",
              min_inputs=2, max_inputs=16),
    LayerType("Multiply", "merge", Text("layer.Multiply.title"), Text("layer.merge.help"), (),
              "keras.layers.Multiply", min_inputs=2, max_inputs=16),
    LayerType("Average", "merge", Text("layer.Average.title"), Text("layer.merge.help"), (),
              "keras.layers.Average", min_inputs=2, max_inputs=16),
    LayerType("Concatenate", "merge", Text("layer.Concatenate.title"),
              Text("layer.Concatenate.help"),
              (P("axis", INT, -1, "layer.Concatenate.axis"),),
              "keras.layers.Concatenate", min_inputs=2, max_inputs=16),
    _app("MobileNetV2",
         (P("alpha", CHOICE, 1.0, "layer.MobileNetV2.alpha",
            choices=(0.35, 0.5, 0.75, 1.0, 1.3, 1.4)),)),
    _app("ResNet50"),
    _app("VGG16"),
    _app("EfficientNetB0"),
    LayerType("Linear", "custom", Text("layer.Linear.title"),
              Text("layer.Linear.help"),
              (_units(1), _init("kernel_initializer", "zeros"), _init("bias_initializer", "zeros")),
              "tfcore.model.layers.Linear"),
    LayerType("MeanCenter", "custom", Text("layer.MeanCenter.title"),
              Text("layer.MeanCenter.help"), (), "tfcore.model.layers.MeanCenter"),
    LayerType("MyDense", "custom", Text("layer.MyDense.title"),
              Text("layer.MyDense.help"), (_units(8),), "tfcore.model.layers.MyDense"),
    LayerType("FixedHiddenMLP", "custom", Text("layer.FixedHiddenMLP.title"),
              Text("layer.FixedHiddenMLP.help"),
              (P("units", INT, 20, "layer.FixedHiddenMLP.units", minimum=1,
                 maximum=FIXED_HIDDEN_MAX_UNITS, required=True),
               P("seed", INT, 0, "layer.FixedHiddenMLP.seed", minimum=0, maximum=2 ** 32 - 1),
               P("batch_axis", BOOL, False, "layer.FixedHiddenMLP.batch_axis")),
              "tfcore.model.layers.FixedHiddenMLP"),
    LayerType("Block", "structure", Text("layer.Block.title"),
              Text("layer.Block.help"),
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
