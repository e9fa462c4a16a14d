"""What an insight snapshot measures of a model (the run directory's ``insight/``, see
:mod:`tfcore.rundir.insight_format`): its layers, the input plane of a 2-D data set, which
layers' units are drawn on that plane (or why none are), and per snapshot the weight histograms,
each layer's gradient norm on a fixed probe batch, the dead-ReLU shares and the plane grids.

Nothing here writes files or decides when to measure; the recorder
(:mod:`tfcore.training.insight`) does. Every measurement runs the model in inference mode
(``training=False``), so a probe never changes a BatchNormalization's moving statistics and
never draws a dropout mask.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from tfcore.training.insight_graph import gradient_pass, graph_gradients, tf_histograms

GRID, NEURON_GRID = 40, 16          # the boundary's and each neuron's picture side
MARGIN = 0.5                        # around the test points, as the end-of-run boundary
MAX_POINTS = 500                    # test points drawn on the plane
PROBE = 256                         # training examples of the gradient / dead-ReLU probe
MIN_PROBE = 32                      # ... at least (when the run's batch is smaller)
BINS = 30                           # histogram bins per variable
COMPILE_FROM = 200_000              # parameters from which a snapshot runs TensorFlow's ops
EAGER_PASSES = 3                    # ... and its pass eagerly, then compiled (a long run)
MAX_NEURON_UNITS = 400              # units in all drawn layers together
# Layers a "plain stack of Dense" may hold besides Dense: they have no units of their own.
PASS_THROUGH = frozenset({"InputLayer", "Dropout", "Activation", "Flatten", "Softmax",
                          "ReLU", "LeakyReLU", "ELU", "GaussianNoise", "GaussianDropout",
                          "AlphaDropout", "Identity"})
MIXED_SCALE = 1024.0                # loss scale of the probe's gradients under float16

# neurons_reason keys (texts: tfcore/locales/<lang>/insight.json)
REASON_NOT_2D = "insight.reason.not_2d"
REASON_NOT_DENSE = "insight.reason.not_dense"
REASON_TOO_MANY = "insight.reason.too_many"
REASON_NOT_STACK = "insight.reason.not_stack"


def activation_name(layer: Any) -> str | None:
    """``relu``, ``sigmoid``, ``linear`` ... of a layer's activation (None: it has none)."""
    kind = type(layer).__name__
    if kind == "ReLU":
        plain = (getattr(layer, "max_value", None) is None
                 and not float(getattr(layer, "negative_slope", 0.0) or 0.0)
                 and not float(getattr(layer, "threshold", 0.0) or 0.0))
        return "relu" if plain else "relu_variant"
    if kind in ("Softmax", "LeakyReLU", "ELU"):
        return kind.lower()
    function = getattr(layer, "activation", None)
    if function is None or not callable(function):
        return None
    return getattr(function, "__name__", None) or type(function).__name__


def is_relu(layer: Any) -> bool:
    return activation_name(layer) == "relu"


def _units(layer: Any) -> int | None:
    for name in ("units", "filters"):
        value = getattr(layer, name, None)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None


def model_layers(model: Any) -> list:
    """The model's own layers in order, without its input layers."""
    return [layer for layer in model.layers if type(layer).__name__ != "InputLayer"]


def layer_infos(model: Any) -> list[dict]:
    """meta.json's ``layers``: name, kind, units, activation, parameters, variable paths."""
    return [{"name": layer.name, "kind": type(layer).__name__, "units": _units(layer),
             "activation": activation_name(layer), "params": int(layer.count_params()),
             "variables": [v.path for v in layer.trainable_weights]}
            for layer in model_layers(model)]


def output_kind(task: str, width: int) -> str:
    """``classes`` (several outputs), ``binary`` (one probability) or ``value``."""
    if task != "classification":
        return "value"
    return "classes" if width > 1 else "binary"


def plane_of(bundle: Any, width: int) -> dict | None:
    """meta.json's ``plane`` of a data set with two input columns (None otherwise): the
    axes around the test points (``MARGIN`` beyond them), grid sizes, up to
    ``MAX_POINTS`` test points with their labels, the output kind and class names (and,
    for a built-in 2-D set, their texts: ``class_texts``, each a catalog key and params)."""
    from tfcore.data import class_texts

    info = bundle.info
    if tuple(info.input_shape) != (2,):
        return None
    x, y = np.asarray(bundle.x_test, np.float32), np.asarray(bundle.y_test)
    if not len(x):
        x, y = np.asarray(bundle.x_train, np.float32), np.asarray(bundle.y_train)
    finite = np.isfinite(x).all(axis=1)
    x, y = x[finite], y[finite]
    lo = (x.min(axis=0) - MARGIN) if len(x) else np.array([-1.0, -1.0])
    hi = (x.max(axis=0) + MARGIN) if len(x) else np.array([1.0, 1.0])
    labels = y.reshape(len(y), -1)[:, 0] if len(y) else y
    return {"lo": [float(lo[0]), float(lo[1])], "hi": [float(hi[0]), float(hi[1])],
            "size": GRID, "neuron_size": NEURON_GRID,
            "points": [[float(a), float(b)] for a, b in x[:MAX_POINTS]],
            "labels": [float(v) for v in labels[:MAX_POINTS]],
            "output": output_kind(info.task, width),
            "class_names": [str(n) for n in info.class_names],
            "class_texts": [{"key": text.key, "params": dict(text.params)}
                            for text in class_texts(info.name, info.class_names) or ()]}


def mesh(plane: dict, size: int) -> np.ndarray:
    """The plane's grid points, ``(size * size, 2)``: row ``i`` of a grid is ``y[i]``,
    column ``j`` is ``x[j]`` (``np.meshgrid``'s ``xy`` order)."""
    gx = np.linspace(plane["lo"][0], plane["hi"][0], size, dtype=np.float32)
    gy = np.linspace(plane["lo"][1], plane["hi"][1], size, dtype=np.float32)
    return np.stack(np.meshgrid(gx, gy), axis=-1).reshape(-1, 2).astype(np.float32)


def stack_outputs(model: Any, x: Any) -> list[tuple[str, Any]]:
    """Apply the model's layers one after the other to ``x``; each Dense layer's output
    after the layers without units that follow it (its activation, a dropout): the
    ``(name, output)`` of the units drawn on the plane."""
    out, h, current = [], x, None
    for layer in model_layers(model):
        if type(layer).__name__ == "Dense":
            if current is not None:
                out.append((current, h))
            current = layer.name
        h = layer(h, training=False)
    if current is not None:
        out.append((current, h))
    return out


def neuron_layers(model: Any, plane: dict | None) -> tuple[list[str], dict | None]:
    """The Dense layers whose units are drawn on the plane, or ``[]`` and the reason:
    not 2-D data, a layer that is not Dense (or without units), more than
    ``MAX_NEURON_UNITS`` units, or a model that is not a plain stack of its layers."""
    if plane is None:
        shape = list(model.inputs[0].shape[1:]) if getattr(model, "inputs", None) else []
        return [], {"key": REASON_NOT_2D, "params": {"shape": str(tuple(shape))}}
    layers = model_layers(model)
    for layer in layers:
        kind = type(layer).__name__
        if kind != "Dense" and kind not in PASS_THROUGH:
            return [], {"key": REASON_NOT_DENSE, "params": {"layer": layer.name, "kind": kind}}
    dense = [layer for layer in layers if type(layer).__name__ == "Dense"]
    units = sum(int(layer.units) for layer in dense)
    if units > MAX_NEURON_UNITS:
        return [], {"key": REASON_TOO_MANY,
                    "params": {"units": units, "limit": MAX_NEURON_UNITS}}
    x = mesh(plane, 3)
    try:
        stacked = np.asarray(stack_outputs(model, x)[-1][1], np.float32)
        same = np.allclose(stacked, np.asarray(model(x, training=False), np.float32),
                           atol=1e-4)
    except Exception:  # noqa: BLE001 - a layer that refuses to be called alone
        same = False
    if not dense or not same:
        return [], {"key": REASON_NOT_STACK, "params": {}}
    return [layer.name for layer in dense], None


def histogram(values: np.ndarray, bins: int = BINS) -> dict:
    """``lo``, ``hi`` and ``counts`` (``bins`` equal-width bins, the last one closed, as
    ``np.histogram``'s) of the finite values; ``nonfinite`` counts the others (the counts
    and it sum to the size). One pass of ``np.bincount``: a few ms for millions of
    weights."""
    flat = np.asarray(values).ravel()
    if flat.dtype.kind != "f":
        flat = flat.astype(np.float32)
    finite = flat if np.isfinite(flat).all() else flat[np.isfinite(flat)]
    if not len(finite):
        return {"lo": 0.0, "hi": 0.0, "counts": [0] * bins, "nonfinite": int(flat.size)}
    lo, hi = float(finite.min()), float(finite.max())
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    index = ((finite - np.asarray(lo, finite.dtype)) * np.asarray(bins / (hi - lo),
                                                                    finite.dtype))
    index = np.clip(index.astype(np.int64), 0, bins - 1)
    counts = np.bincount(index, minlength=bins)
    out = {"lo": lo, "hi": hi, "counts": [int(c) for c in counts]}
    if len(finite) < flat.size:
        out["nonfinite"] = int(flat.size - len(finite))
    return out


@dataclass
class Probe:
    """The snapshot measurements of one model: ``model`` (the one to read; for a cluster
    run a plain copy the recorder refreshes), the probe batch, the run's loss, which
    variables belong to which layer, and the ReLU layers it reads activations of."""

    model: Any
    x: np.ndarray
    y: np.ndarray
    loss_name: str
    plane: dict | None
    neurons: list[str]

    def __post_init__(self) -> None:
        import keras

        from tfcore.training.losses import LOSSES, make_loss

        self.loss = make_loss(self.loss_name)
        fixed = dict(LOSSES[self.loss_name].fixed) if self.loss_name in LOSSES else {}
        self.from_logits = bool(fixed.get("from_logits"))
        variables = list(self.model.trainable_variables)
        index = {id(v): i for i, v in enumerate(variables)}
        self.variables = variables
        self.groups = [(layer.name, [index[id(v)] for v in layer.trainable_weights
                                     if id(v) in index])
                       for layer in model_layers(self.model)]
        self.groups = [(name, idx) for name, idx in self.groups if idx]
        self.relus = [layer for layer in model_layers(self.model) if is_relu(layer)]
        self.extractor = None
        if self.relus:
            try:
                self.extractor = keras.Model(self.model.inputs,
                                             [self.model.outputs[0]]
                                             + [layer.output for layer in self.relus])
            except Exception:  # noqa: BLE001 - a subclassed or shared-layer model
                self.extractor, self.relus = None, []
        self.scale = MIXED_SCALE if "float16" in str(
            getattr(self.model, "dtype_policy", "")).lower() else 1.0
        # A large model's histograms are TensorFlow ops, its pass compiled once the run has
        # shown it is long (its first EAGER_PASSES passes eager: a trace costs 0.3 s to
        # 0.5 s once, more than a short run's budget); a small one's are eager and numpy,
        # a few ms with no tracing (a trace: 10 % of a 1.5 s MLP run). ``compiled`` None:
        # compile when due; False: eagerly.
        large = is_large(self.model)
        self.compiled: Any = None if large else False
        self.tf_hist = large
        self.passes = 0                # forward and backward passes so far (the warm-up's too)

    def weights(self) -> dict:
        """Per trainable variable (by path) its histogram (:func:`histogram`'s), computed
        by TensorFlow's ops for a large model: in numpy, a 3.2-million-weight kernel took
        0.5 s per snapshot in the middle of a run (its copies and temporaries, beside
        TensorFlow's busy threads), 90 % of a CNN snapshot's cost."""
        found = tf_histograms(self, BINS)
        if found is not None:
            return found
        return {v.path: histogram(np.asarray(v.numpy())) for v in self.variables}

    def _measured(self) -> tuple[list, list]:
        """The snapshot's forward and backward pass (:func:`gradient_pass`): as one
        compiled graph for a large model from its ``EAGER_PASSES + 1``-th pass on
        (:func:`graph_gradients`), else eagerly; a model the graph cannot trace is
        measured eagerly."""
        import tensorflow as tf

        x, y = tf.convert_to_tensor(self.x), tf.convert_to_tensor(self.y)
        self.passes += 1
        graph = graph_gradients(self, x, y) if self.passes > EAGER_PASSES else None
        return graph if graph is not None else gradient_pass(self, x, y)

    def gradients(self) -> tuple[dict, dict]:
        """``grad_norm`` per layer (None when not finite) and ``dead`` per ReLU layer: the
        share of its units (channels) that output 0 for every probe example."""
        squares, alive = self._measured()
        norms = {}
        for name, idx in self.groups:
            parts = [float(squares[i]) for i in idx if squares[i] is not None]
            total = math.fsum(parts)
            norms[name] = (math.sqrt(total) if math.isfinite(total) else None) \
                if parts else None
        dead = {}
        for layer, units in zip(self.relus, alive):
            units = np.asarray(units, bool)
            dead[layer.name] = float(1.0 - units.mean()) if units.size else 0.0
        return norms, dead

    def predictions(self, points: np.ndarray) -> np.ndarray:
        out = np.asarray(self.model(points, training=False), np.float32)
        return out.reshape(len(points), -1)

    def grid(self) -> dict:
        """The plane arrays of this moment: ``conf`` and ``cls`` over the ``GRID`` grid,
        each drawn layer's units over the ``NEURON_GRID`` grid and its kernel."""
        plane = self.plane
        out = self.predictions(mesh(plane, GRID))
        if plane["output"] == "value":
            conf, cls = out[:, 0], None
        elif plane["output"] == "binary":
            p = 1.0 / (1.0 + np.exp(-out[:, 0])) if self.from_logits else out[:, 0]
            cls = (p > 0.5).astype(np.int16)
            conf = np.where(cls == 1, p, 1.0 - p)
        else:
            probs = out
            if self.from_logits:
                shifted = np.exp(out - out.max(axis=1, keepdims=True))
                probs = shifted / shifted.sum(axis=1, keepdims=True)
            cls, conf = probs.argmax(axis=1).astype(np.int16), probs.max(axis=1)
        size = GRID
        arrays = {"conf": conf.reshape(size, size),
                  "cls": None if cls is None else cls.reshape(size, size)}
        neurons, kernels = [], []
        if self.neurons:
            small = NEURON_GRID
            outputs = dict(stack_outputs(self.model, mesh(plane, small)))
            for name in self.neurons:
                values = np.asarray(outputs[name], np.float32)
                neurons.append(values.T.reshape(-1, small, small))
                kernels.append(np.asarray(self.model.get_layer(name).kernel.numpy()))
        arrays["neurons"], arrays["kernels"] = neurons, kernels
        return arrays


def is_large(model: Any) -> bool:
    """Whether ``model`` has ``COMPILE_FROM`` trainable weights or more: its histograms are
    TensorFlow ops, its pass compiled once the run is long, its probe ``MIN_PROBE``
    examples (:func:`probe_size`)."""
    return sum(int(np.prod(v.shape)) for v in model.trainable_variables) >= COMPILE_FROM


def probe_size(batch_size: int, large: bool = False) -> int:
    """Examples in the probe batch: the run's batch size within ``MIN_PROBE`` to ``PROBE``,
    so a snapshot's forward and backward pass costs about one training step's; for a
    large model (:func:`is_large`), ``MIN_PROBE``: its pass runs eagerly
    (a compiled pass's trace costs more than a short run's budget), three times a
    compiled training step on as many examples (the CNN preset: 70 ms for 50 examples, a
    training step 24 ms), and a short run's start and last snapshots, always taken, spent
    its whole budget (32 examples: 45 ms)."""
    if large:
        return MIN_PROBE
    return max(MIN_PROBE, min(PROBE, int(batch_size)))


def probe_batch(x: np.ndarray, y: np.ndarray, size: int = PROBE
                ) -> tuple[np.ndarray, np.ndarray]:
    """The fixed probe batch: the first ``size`` training examples."""
    return np.asarray(x[:size]), np.asarray(y[:size])
