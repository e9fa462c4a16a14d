"""An optimizer added as one registry entry (``tfcore/training/registry.py``; a label in the
two catalogs is optional: Adamax has none and shows its class name) is everywhere at once: the Train form, the CLI's choices, a link, the
GradientTape loop's code view, and a run that trains with it."""

from __future__ import annotations

import argparse

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from tests.app.apptest_helpers import APP, assert_clean
from tfcore.cli import build_parser
from tfcore.training import OPTIMIZERS, TrainConfig
from ui.common.i18n import catalog

# (name, keras.optimizers class) of the entries added last
ADDED = [("nadam", "Nadam"), ("lion", "Lion"), ("adamax", "Adamax")]


def _cli_choices() -> list[str]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    train = sub.choices["train"]
    return next(a for a in train._actions if a.dest == "optimizer" and a.choices).choices


def _train_steps(name: str, loop: str, steps: int = 5) -> tuple[object, list[float], bool]:
    """``steps`` steps of ``loop`` with the optimizer ``name`` on digits8."""
    import keras
    import tensorflow as tf

    from tests.unit.fixtures_runs import tiny_spec
    from tfcore.data import DatasetRequest, load_dataset
    from tfcore.model import build_model, from_dict
    from tfcore.training.callbacks import Listener, Listeners, TrainState
    from tfcore.training.config import make_optimizer, steps_per_epoch
    from tfcore.training.loops import LOOPS, TrainData

    bundle = load_dataset(DatasetRequest(name="digits8"))
    data = TrainData(bundle.x_train, bundle.y_train, bundle.x_val, bundle.y_val)
    config = TrainConfig.from_dict({"optimizer": name, "steps": steps, "batch_size": 32,
                                    "loop": loop, "learning_rate": 0.01})
    keras.utils.set_random_seed(0)
    model = build_model(from_dict(tiny_spec()))
    before = [w.copy() for w in model.get_weights()]
    spe = steps_per_epoch(data.n_train, 32)
    optimizer = make_optimizer(config, steps, spe)
    state = TrainState(total_steps=steps, steps_per_epoch=spe, batch_size=32)
    losses: list[float] = []

    class Losses(Listener):
        def on_batch_end(self, state, logs) -> None:
            losses.append(float(logs["loss"]))

    LOOPS[loop](model, data, config, tf.distribute.get_strategy(), state,
                Listeners([Losses()]), optimizer)
    moved = any(not np.allclose(a, b) for a, b in zip(before, model.get_weights()))
    return optimizer, losses, moved


@pytest.mark.parametrize("name,keras_class", ADDED)
def test_an_added_optimizer_is_in_form_cli_link_code_view_and_trains(name: str,
                                                                     keras_class: str) -> None:
    import keras

    en = catalog("en")
    assert name in OPTIMIZERS and name in _cli_choices()
    at = AppTest.from_file(APP, default_timeout=120)        # a link names it
    at.query_params.update(lang="en", optimizer=name, loop="custom", lr="0.01")
    at.run()
    at.switch_page("app_pages/train.py").run()
    assert_clean(at, "en")
    box = at.selectbox(key="train.optimizer")
    label = OPTIMIZERS[name].label
    assert box.value == name and (en[label] if label else keras_class) in box.options
    assert at.query_params["optimizer"] == name
    code = [c.value for e in at.expander if e.label == en["train.loop_code.title"]
            for c in e.code]
    assert code and f"optimizer = keras.optimizers.{keras_class}(learning_rate=0.01)" in code[0]
    for loop in ("fit", "custom"):
        optimizer, losses, moved = _train_steps(name, loop)
        assert type(optimizer) is getattr(keras.optimizers, keras_class)
        assert int(optimizer.iterations.numpy()) == 5 and len(losses) == 5, loop
        assert all(np.isfinite(losses)) and moved, loop
