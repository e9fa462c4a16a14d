"""Generate the catalog of every built-in Keras layer from the installed Keras.

Each public class of ``keras.layers`` (aliases once) is created with sample values for its
required arguments; its ``__init__`` signature and ``get_config()`` give the parameters,
their defaults (as JSON) and their kinds. The result is written to ``keras_layers.json``
beside this module, so importing the catalog never imports Keras::

    python -m tfcore.model.catalog_gen          # rewrite the file for the pinned Keras

A unit test regenerates it in memory and compares, so the file cannot drift from Keras.
"""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any

from tfcore.model.convert import init_value, plain
from tfcore.model.params import BOOL, CHOICE, FLOAT, INIT, INT, JSON, REG, SIZE, TEXT

OUT = Path(__file__).with_name("keras_layers.json")

SKIPPED = {
    "Layer": "the abstract base class of every layer",
    "Wrapper": "an abstract base class (Bidirectional and TimeDistributed are its uses)",
    "InputLayer": "the model's input, written as the spec's inputs",
    "Lambda": "runs arbitrary code, which safe mode refuses",
    "TFSMLayer": "loads a SavedModel from a path on the server",
    "JaxLayer": "wraps JAX functions (code)", "FlaxLayer": "wraps a Flax module (code)",
    "TorchModuleWrapper": "wraps a PyTorch module (code)",
    "GRUCell": "a cell goes inside RNN (its cell config), not on its own",
    "LSTMCell": "a cell goes inside RNN (its cell config), not on its own",
    "SimpleRNNCell": "a cell goes inside RNN (its cell config), not on its own",
    "StackedRNNCells": "a cell goes inside RNN (its cell config), not on its own",
}

FAMILIES = {"activations": "activation", "attention": "attention", "convolutional": "conv",
            "core": "core", "merging": "merge", "normalization": "norm", "pooling": "pool",
            "regularization": "regularization", "reshaping": "reshape", "rnn": "recurrent",
            "preprocessing": "preprocessing", "image_preprocessing": "image"}

CHOICES = {
    "padding": ("valid", "same", "causal"),
    "data_format": ("channels_last", "channels_first"),
    "interpolation": ("nearest", "bilinear", "bicubic", "area", "lanczos3", "lanczos5",
                      "gaussian", "mitchellcubic"),
    "fill_mode": ("reflect", "wrap", "constant", "nearest"),
}
SIZES = ("kernel_size", "strides", "pool_size", "dilation_rate", "size")
# Arguments whose default None says nothing of their type.
NONE_KINDS = {"seed": INT, "lora_rank": INT, "value_dim": INT, "num_tokens": INT,
              "max_tokens": INT, "output_sequence_length": INT, "frame_step": INT,
              "fft_length": INT, "sequence_length": INT, "num_bins": INT, "max_value": FLOAT,
              "lora_alpha": FLOAT, "max_freq": FLOAT, "logit_soft_cap": FLOAT,
              "data_format": CHOICE, "strides": SIZE}
POSITIONAL = {"MultiHeadAttention", "GroupedQueryAttention"}
INPUTS = {"Subtract": (2, 2), "Dot": (2, 2), "Attention": (2, 3), "AdditiveAttention": (2, 3),
          "MultiHeadAttention": (1, 3), "GroupedQueryAttention": (1, 3),
          "HashedCrossing": (2, 16)}


def _samples(keras: Any) -> dict[str, dict[str, Any]]:
    """Values for the arguments a class requires, so that a default layer can be made."""
    L = keras.layers
    rate = {"rate": 0.5}
    conv = {"filters": 8, "kernel_size": 3}
    crop = {"height": 8, "width": 8}
    out = {
        "Activation": {"activation": "relu"}, "AlphaDropout": rate, "Dropout": rate,
        "AveragePooling1D": {"pool_size": 2}, "AveragePooling2D": {"pool_size": 2},
        "AveragePooling3D": {"pool_size": 2},
        "Bidirectional": {"layer": L.LSTM(8, name="lstm")},
        "TimeDistributed": {"layer": L.Dense(8, name="dense")},
        "SpectralNormalization": {"layer": L.Dense(8, name="dense")},
        "RNN": {"cell": L.SimpleRNNCell(8, name="simple_rnn_cell")},
        "CenterCrop": crop, "RandomCrop": crop, "Resizing": crop,
        "Dense": {"units": 8}, "EinsumDense": {"equation": "ab,bc->ac", "output_shape": 8},
        "Embedding": {"input_dim": 100, "output_dim": 8},
        "ReversibleEmbedding": {"input_dim": 100, "output_dim": 8},
        "DepthwiseConv1D": {"kernel_size": 3}, "DepthwiseConv2D": {"kernel_size": 3},
        "Dot": {"axes": -1}, "GaussianDropout": {"rate": 0.1}, "GaussianNoise": {"stddev": 0.1},
        "GroupedQueryAttention": {"head_dim": 8, "num_query_heads": 4, "num_key_value_heads": 2},
        "MultiHeadAttention": {"num_heads": 2, "key_dim": 8},
        "HashedCrossing": {"num_bins": 16}, "Hashing": {"num_bins": 16},
        "MaxNumBoundingBoxes": {"max_number": 4}, "Permute": {"dims": (2, 1)},
        "Pipeline": {"layers": [L.Identity(name="identity")]}, "RepeatVector": {"n": 3},
        "Rescaling": {"scale": 1 / 255}, "Reshape": {"target_shape": (-1,)},
        "Discretization": {"bin_boundaries": [0.0, 1.0]}, "CategoryEncoding": {"num_tokens": 8},
        "RandomTranslation": {"height_factor": 0.1, "width_factor": 0.1},
        "RandomZoom": {"height_factor": 0.1},
        "SpatialDropout1D": rate, "SpatialDropout2D": rate, "SpatialDropout3D": rate,
    }
    for name in ("Conv1D", "Conv2D", "Conv3D", "Conv1DTranspose", "Conv2DTranspose",
                 "Conv3DTranspose", "SeparableConv1D", "SeparableConv2D", "ConvLSTM1D",
                 "ConvLSTM2D", "ConvLSTM3D"):
        out[name] = conv
    for name in ("GRU", "LSTM", "SimpleRNN"):
        out[name] = {"units": 8}
    for name in ("AdaptiveAveragePooling1D", "AdaptiveAveragePooling2D",
                 "AdaptiveAveragePooling3D", "AdaptiveMaxPooling1D", "AdaptiveMaxPooling2D",
                 "AdaptiveMaxPooling3D"):
        out[name] = {"output_size": 2}
    for name in ("RandomBrightness", "RandomColorDegeneration", "RandomContrast", "RandomHue",
                 "RandomRotation", "RandomSaturation", "RandomSharpness"):
        out[name] = {"factor": 0.1}
    out["RandomPosterization"] = {"factor": 4}
    return out


def layer_classes() -> dict[str, tuple[str, type]]:
    """Every public layer class of ``keras.layers`` by class name (aliases once), with the
    name ``keras.layers`` exports it under (the class name when it is exported so)."""
    import keras

    found: dict[str, tuple[str, type]] = {}
    for attr in sorted(dir(keras.layers)):
        obj = getattr(keras.layers, attr)
        if inspect.isclass(obj) and issubclass(obj, keras.layers.Layer) and (
                obj.__name__ not in found or attr == obj.__name__):
            found[obj.__name__] = (attr, obj)
    return found


def _family(cls: type) -> str:
    parts = cls.__module__.split(".")
    for part in reversed(parts[:-1]):
        if part in FAMILIES:
            return FAMILIES[part]
    return "core"


def _param(name: str, value: Any, signature: inspect.Parameter | None,
           required: bool) -> dict[str, Any]:
    """The kind of one get_config entry, from its JSON default and the signature."""
    out: dict[str, Any] = {"name": name, "default": value}
    if required:
        out["required"] = True
    if name in ("strides", "seed") and signature is not None and signature.default is None:
        value = out["default"] = None   # get_config says the pool size / a drawn seed
    if name == "dtype":
        policy = (value or {}).get("config", {}).get("name") if isinstance(value, dict) else value
        return {**out, "kind": JSON, "default": None if policy == "float32" else value,
                "nullable": True, "advanced": True}
    if name.endswith("_initializer"):
        short = init_value(value)
        if short is not None:
            return {**out, "kind": INIT, "default": short}
        return {**out, "kind": JSON}
    if name.endswith("_regularizer") and value is None:
        return {**out, "kind": REG}
    if name in ("activation", "recurrent_activation") and isinstance(value, str):
        return {**out, "kind": CHOICE, "choices": "activations"}
    if isinstance(value, bool):
        return {**out, "kind": BOOL}
    if isinstance(value, int):
        return {**out, "kind": INT}
    if isinstance(value, float):
        return {**out, "kind": FLOAT}
    if isinstance(value, str):
        if name in CHOICES and value in CHOICES[name]:
            return {**out, "kind": CHOICE, "choices": list(CHOICES[name])}
        return {**out, "kind": TEXT}
    if (name in SIZES and isinstance(value, list) and value
            and all(isinstance(v, int) and v >= 1 for v in value)):
        return {**out, "kind": SIZE, "length": len(value)}
    if value is None:
        kind = NONE_KINDS.get(name, JSON)
        extra: dict[str, Any] = {"kind": kind, "nullable": True}
        if kind == CHOICE:
            extra["choices"] = list(CHOICES[name])
        if kind == SIZE:
            extra["length"] = 1
        return {**out, **extra}
    return {**out, "kind": JSON}


def describe(cls: type, sample: dict[str, Any], attr: str | None = None) -> dict[str, Any]:
    """One class as catalog data (``attr``: the name keras.layers exports it under)."""
    layer = cls(**sample)
    config = plain(layer.get_config())
    signature = inspect.signature(cls.__init__).parameters
    params = []
    for name, value in config.items():
        if name == "name":
            continue
        sig = signature.get(name)
        required = name in sample or (sig is not None and sig.default is inspect.Parameter.empty)
        params.append(_param(name, value, sig, required))
    low, high = INPUTS.get(cls.__name__, (2, 16) if _family(cls) == "merge" else (1, 1))
    entry = {"name": cls.__name__, "category": _family(cls), "params": params,
             "inputs": [low, high]}
    if attr and attr != cls.__name__:
        entry["attr"] = attr
    if cls.__name__ in POSITIONAL:
        entry["positional"] = True
    return entry


def generate() -> dict[str, Any]:
    """The catalog data of the installed Keras."""
    import keras

    samples = _samples(keras)
    layers = [describe(cls, samples.get(name, {}), attr)
              for name, (attr, cls) in layer_classes().items() if name not in SKIPPED]
    activations = sorted(n for n in dir(keras.activations)
                         if not n.startswith("_") and n not in ("get", "serialize",
                                                                 "deserialize")
                         and callable(getattr(keras.activations, n)))
    return {"keras_version": keras.__version__, "skipped": SKIPPED,
            "activations": activations, "layers": layers}


def main() -> None:
    from tfcore.tfenv import quiet_tensorflow

    quiet_tensorflow()
    OUT.write_text(json.dumps(generate(), indent=1, sort_keys=False) + "\n", encoding="utf-8")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
