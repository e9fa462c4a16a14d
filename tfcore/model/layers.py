"""The tutorials' own Keras layers (scenarios M7, B2, B9), registered as ``tflab>Name``.

Each layer creates its weights in ``build`` from the input shape, so a model that uses
one without an input shape shows deferred initialization, and each round-trips through
``get_config`` so models using them save to and load from ``.keras`` files.
"""

from __future__ import annotations

import keras
from keras import ops

PACKAGE = "tflab"


def _check_units(units: object, layer: str) -> int:
    if not isinstance(units, int) or isinstance(units, bool) or units < 1:
        raise ValueError(f"{layer}: units must be a positive integer. Received: units={units!r}")
    return units


@keras.saving.register_keras_serializable(package=PACKAGE)
class Linear(keras.layers.Layer):
    """y = x W + b with W [in, units] and b [units] created in ``build`` (scenario M7)."""

    def __init__(self, units: int = 1, kernel_initializer="zeros", bias_initializer="zeros",
                 **kwargs):
        super().__init__(**kwargs)
        self.units = _check_units(units, "Linear")
        self.kernel_initializer = keras.initializers.get(kernel_initializer)
        self.bias_initializer = keras.initializers.get(bias_initializer)

    def build(self, input_shape):
        self.kernel = self.add_weight(name="kernel", shape=(input_shape[-1], self.units),
                                      initializer=self.kernel_initializer)
        self.bias = self.add_weight(name="bias", shape=(self.units,),
                                    initializer=self.bias_initializer)

    def call(self, inputs):
        return ops.matmul(inputs, self.kernel) + self.bias

    def compute_output_shape(self, input_shape):
        return tuple(input_shape[:-1]) + (self.units,)

    def get_config(self):
        return {**super().get_config(), "units": self.units,
                "kernel_initializer": keras.initializers.serialize(self.kernel_initializer),
                "bias_initializer": keras.initializers.serialize(self.bias_initializer)}


@keras.saving.register_keras_serializable(package=PACKAGE)
class MeanCenter(keras.layers.Layer):
    """Subtracts the mean of its whole input: no parameters, output mean 0 (scenario B9)."""

    def call(self, inputs):
        return inputs - ops.mean(inputs)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)


@keras.saving.register_keras_serializable(package=PACKAGE)
class MyDense(keras.layers.Layer):
    """A dense layer written from scratch: relu(x W + b), W random normal, b zeros (B9)."""

    def __init__(self, units: int = 8, **kwargs):
        super().__init__(**kwargs)
        self.units = _check_units(units, "MyDense")

    def build(self, input_shape):
        self.weight = self.add_weight(name="weight", shape=(input_shape[-1], self.units),
                                      initializer=keras.initializers.RandomNormal())
        self.bias = self.add_weight(name="bias", shape=(self.units,), initializer="zeros")

    def call(self, inputs):
        return ops.relu(ops.matmul(inputs, self.weight) + self.bias)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape[:-1]) + (self.units,)

    def get_config(self):
        return {**super().get_config(), "units": self.units}


@keras.saving.register_keras_serializable(package=PACKAGE)
class FixedHiddenMLP(keras.layers.Layer):
    """A block whose forward pass runs code (scenario B2, as in the seed).

    Flatten, relu(x W + 1) with a constant random U(0, 1) W [units, units] that is not a
    model parameter (a NumPy array drawn from ``seed`` in ``__init__``, like the seed's
    ``tf.constant``: no variable, so it is neither trained, counted nor saved among the
    weights; ``get_config`` keeps ``seed``, and loading draws the same matrix again), a
    Dense(units, relu) applied once, then halve the result while its absolute sum exceeds
    1; returns the sum: one scalar for the whole batch, shape ``()``, as the seed prints.
    ``batch_axis=True`` returns it as shape ``(1,)`` instead: Keras merge layers (``Add``)
    index a batch axis, so only then can the sum be combined with other layers.
    """

    def __init__(self, units: int = 20, seed: int = 0, batch_axis: bool = False, **kwargs):
        super().__init__(**kwargs)
        self.units = _check_units(units, "FixedHiddenMLP")
        self.seed = seed
        self.batch_axis = bool(batch_axis)
        self.rand_weight = self.constant(seed, self.units)
        self.dense = keras.layers.Dense(self.units, activation="relu", name="dense")

    @staticmethod
    def constant(seed: int, units: int):
        """The fixed [units, units] U(0, 1) matrix of ``seed``, drawn by NumPy's legacy
        generator, whose stream NumPy keeps unchanged across releases: a seed gives the same
        matrix on every machine and backend, so a loaded model rebuilds the one it ran with."""
        import numpy as np

        if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2 ** 32:
            raise ValueError("FixedHiddenMLP: seed must be an integer from 0 to "
                             f"{2 ** 32 - 1}. Received: seed={seed!r}")
        return np.random.RandomState(seed).uniform(0.0, 1.0, (units, units)).astype("float32")

    def build(self, input_shape):
        flat = 1
        for dim in input_shape[1:]:
            flat = None if dim is None or flat is None else flat * int(dim)
        if flat is not None and flat != self.units:
            raise ValueError(
                f"FixedHiddenMLP: the constant weight is {self.units}x{self.units}, so each "
                f"example must flatten to {self.units} numbers. Received: input_shape="
                f"{tuple(input_shape)} ({flat} numbers per example)")
        self.dense.build((None, self.units))

    def call(self, inputs):
        x = ops.reshape(inputs, (-1, self.units))
        x = ops.relu(ops.matmul(x, self.rand_weight) + 1.0)
        x = self.dense(x)
        x = ops.while_loop(lambda v: ops.sum(ops.abs(v)) > 1.0, lambda v: (v / 2.0,),
                           (x,))[0]
        total = ops.sum(x)
        return ops.reshape(total, (1,)) if self.batch_axis else total

    def compute_output_shape(self, input_shape):
        return (1,) if self.batch_axis else ()

    def get_config(self):
        return {**super().get_config(), "units": self.units, "seed": self.seed,
                "batch_axis": self.batch_axis}


CUSTOM_LAYERS = {cls.__name__: cls for cls in (Linear, MeanCenter, MyDense, FixedHiddenMLP)}
