"""Starting points for user-written code: the tutorials' own classes (M7, M8, B2, B9).

Each template is a whole file a person can save as is and then change. Every class keeps
its configuration in ``get_config`` so models using it save to and load from ``.keras``.
"""

from __future__ import annotations

from dataclasses import dataclass

_HEADER = "import keras\nfrom keras import ops\n\n\n"


@dataclass(frozen=True)
class Template:
    """A named starting file: its scenario, suggested file name and source."""

    name: str
    scenario: str
    source: str


LINEAR = _HEADER + '''class Linear(keras.layers.Layer):
    """y = x W + b; W [in, units] and b [units] are created in build(), both zeros (M7)."""

    def __init__(self, units=1, **kwargs):
        super().__init__(**kwargs)
        self.units = units

    def build(self, input_shape):
        self.kernel = self.add_weight(name="kernel", shape=(input_shape[-1], self.units),
                                      initializer="zeros")
        self.bias = self.add_weight(name="bias", shape=(self.units,), initializer="zeros")

    def call(self, inputs):
        return ops.matmul(inputs, self.kernel) + self.bias

    def get_config(self):
        return {**super().get_config(), "units": self.units}
'''

MEAN_CENTER = _HEADER + '''class MeanCenter(keras.layers.Layer):
    """A layer without parameters: subtracts the mean of its input (B9)."""

    def call(self, inputs):
        return inputs - ops.mean(inputs)
'''

MY_DENSE = _HEADER + '''class MyDense(keras.layers.Layer):
    """A dense layer written from scratch: relu(x W + b) (B9)."""

    def __init__(self, units=8, **kwargs):
        super().__init__(**kwargs)
        self.units = units

    def build(self, input_shape):
        self.weight = self.add_weight(name="weight", shape=(input_shape[-1], self.units),
                                      initializer=keras.initializers.RandomNormal())
        self.bias = self.add_weight(name="bias", shape=(self.units,), initializer="zeros")

    def call(self, inputs):
        return ops.relu(ops.matmul(inputs, self.weight) + self.bias)

    def get_config(self):
        return {**super().get_config(), "units": self.units}
'''

FIXED_HIDDEN = _HEADER.replace("import keras\n", "import keras\nimport numpy as np\n") + \
    '''class FixedHiddenMLP(keras.layers.Layer):
    """Code in the forward pass (B2): flatten, relu(X W + 1) with a constant random
    U(0, 1) 20x20 weight that is not a model parameter, Dense(20, relu) once, then halve X
    while its absolute sum is above 1; returns the sum, one scalar as in the tutorial.

    The constant is a NumPy array made in __init__, not a weight: it is never trained,
    not counted among the parameters and not stored with the weights. get_config keeps
    its seed, so a loaded model draws the same matrix again."""

    def __init__(self, units=20, seed=0, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.seed = seed
        self.rand_weight = np.random.RandomState(seed).uniform(
            0.0, 1.0, (units, units)).astype("float32")
        self.dense = keras.layers.Dense(units, activation="relu")

    def build(self, input_shape):
        self.dense.build((None, self.units))

    def call(self, inputs):
        x = ops.reshape(inputs, (-1, self.units))        # flatten: 20 numbers per example
        x = ops.relu(ops.matmul(x, self.rand_weight) + 1.0)
        x = self.dense(x)
        x = ops.while_loop(lambda v: ops.sum(ops.abs(v)) > 1.0, lambda v: (v / 2.0,), (x,))[0]
        return ops.sum(x)

    def compute_output_shape(self, input_shape):
        return ()

    def get_config(self):
        return {**super().get_config(), "units": self.units, "seed": self.seed}
'''

MSE_LOSS = _HEADER + '''class MeanSquaredError(keras.losses.Loss):
    """Mean squared error written as a Loss subclass (M8)."""

    def call(self, y_true, y_pred):
        y_true = ops.cast(y_true, y_pred.dtype)
        return ops.mean(ops.square(y_pred - y_true), axis=-1)
'''

SPARSE_ACCURACY = _HEADER + '''class SparseCategoricalAccuracy(keras.metrics.Metric):
    """Sparse categorical accuracy that keeps its own total and count (M8)."""

    def __init__(self, name="my_accuracy", **kwargs):
        super().__init__(name=name, **kwargs)
        self.total = self.add_variable(shape=(), initializer="zeros", dtype="int32",
                                       name="total")
        self.count = self.add_variable(shape=(), initializer="zeros", dtype="int32",
                                       name="count")

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true = ops.cast(ops.reshape(y_true, (-1,)), "int32")
        guess = ops.cast(ops.argmax(y_pred, axis=-1), "int32")
        hits = ops.cast(ops.equal(y_true, guess), "int32")
        self.total.assign_add(ops.cast(ops.sum(ops.ones_like(hits)), "int32"))
        self.count.assign_add(ops.sum(hits))

    def result(self):
        return ops.cast(self.count, "float32") / ops.maximum(ops.cast(self.total, "float32"), 1.0)
'''

TEMPLATES: dict[str, Template] = {t.name: t for t in (
    Template("linear", "M7", LINEAR),
    Template("mean_center", "B9", MEAN_CENTER),
    Template("my_dense", "B9", MY_DENSE),
    Template("fixed_hidden_mlp", "B2", FIXED_HIDDEN),
    Template("mse_loss", "M8", MSE_LOSS),
    Template("sparse_accuracy", "M8", SPARSE_ACCURACY),
)}
