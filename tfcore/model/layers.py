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

    Flatten, relu(x W + 1) with a constant random U(0, 1) W [features, units] that is
    never trained (a non-trainable weight, listed in ``constant_weights`` so the Weights
    lab never changes it), a Dense(units, relu) applied once, then halve the result while
    its absolute sum exceeds 1; returns the sum (one number per batch, shape (1,)).
    """

    constant_weights = ("rand_weight",)

    def __init__(self, units: int = 20, seed: int = 0, **kwargs):
        super().__init__(**kwargs)
        self.units = _check_units(units, "FixedHiddenMLP")
        self.seed = int(seed)
        self.dense = keras.layers.Dense(self.units, activation="relu", name="dense")

    def build(self, input_shape):
        flat = 1
        for dim in input_shape[1:]:
            flat *= int(dim)
        self.rand_weight = self.add_weight(
            name="rand_weight", shape=(flat, self.units), trainable=False,
            initializer=keras.initializers.RandomUniform(0.0, 1.0, seed=self.seed))
        self.dense.build((None, self.units))
        self._flat = flat

    def call(self, inputs):
        x = ops.reshape(inputs, (-1, self._flat))
        x = ops.relu(ops.matmul(x, self.rand_weight) + 1.0)
        x = self.dense(x)
        x = ops.while_loop(lambda v: ops.sum(ops.abs(v)) > 1.0, lambda v: (v / 2.0,),
                           (x,))[0]
        return ops.reshape(ops.sum(x), (1,))

    def compute_output_shape(self, input_shape):
        return (1,)

    def get_config(self):
        return {**super().get_config(), "units": self.units, "seed": self.seed}


CUSTOM_LAYERS = {cls.__name__: cls for cls in (Linear, MeanCenter, MyDense, FixedHiddenMLP)}
