"""The GradientTape loop's code (T1) is the engine's real train step plus a header built
from the same loss and optimizer factories the run uses."""

from __future__ import annotations

import inspect
import textwrap

from tfcore.training import TrainConfig, tape_loop_code
from tfcore.training.tape_loop import TapeSteps


def test_code_holds_the_real_step_source() -> None:
    code = tape_loop_code({"loop": "custom", "optimizer": "adam", "learning_rate": 0.001,
                           "loss": "sparse_categorical_crossentropy"})
    step = textwrap.dedent(inspect.getsource(TapeSteps._train_one)).rstrip()
    assert step in code
    assert "with tf.GradientTape() as tape:" in code
    assert "grads = tape.gradient(scaled, variables)" in code
    assert "variables = self.model.trainable_variables" in code
    assert "self.optimizer.apply_gradients(zip(grads, variables))" in code
    assert "loss_obj = keras.losses.SparseCategoricalCrossentropy(reduction=None)" in code
    assert "optimizer = keras.optimizers.Adam(learning_rate=0.001)" in code
    assert "mean_loss = True" in code and "tf.function(reduce_retracing=True)" in code
    compile(code, "<tape loop>", "exec")                 # the text is valid Python


def test_header_follows_the_config() -> None:
    code = tape_loop_code(TrainConfig(loop="custom", optimizer="sgd", learning_rate=0.01,
                                      momentum=0.9, loss="half_sse", eager=True, epochs=3,
                                      batch_size=5))
    assert "optimizer = keras.optimizers.SGD(learning_rate=0.01, momentum=0.9)" in code
    assert "HalfSumSquaredError(reduction=None)" in code and "mean_loss = False" in code
    assert "Run eagerly" in code and "for epoch in range(3):" in code
    code = tape_loop_code({"optimizer": "adamw", "schedule": "cosine", "loss": "mse",
                           "learning_rate": 0.5, "metrics": ["mae"]})
    assert ("keras.optimizers.AdamW(learning_rate=keras.optimizers.schedules.CosineDecay("
            "0.5, decay_steps=total_steps), weight_decay=0.004)") in code
    assert "keras.losses.MeanSquaredError(reduction=None)" in code
    assert "make_custom_loss('my_loss', reduction=None)" in tape_loop_code({"loss": "my_loss"})
