"""Models of the weights scenarios (B4-B8) for the weights tests.

A scenario's preset is used when the builder has registered it; until then the same
model is written here as a ModelSpec, so the tests check the same numbers either way.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from tfcore.model.presets import get_preset, preset_names
from tfcore.model.spec import SEQUENTIAL, InputSpec, LayerSpec, ModelSpec


def _tied() -> ModelSpec:
    """B7: Flatten, one Dense(4, relu) applied twice, Dense(1) on a (2, 4) input."""
    return ModelSpec(name="tied", kind=SEQUENTIAL, inputs=(InputSpec("x", (4,)),), layers=(
        LayerSpec("flatten", "Flatten"),
        LayerSpec("shared", "Dense", {"units": 4, "activation": "relu"}),
        LayerSpec("shared_again", "Dense", {}, shares="shared"),
        LayerSpec("output", "Dense", {"units": 1})))


def _deferred() -> ModelSpec:
    """B8: Dense(256, relu), Dense(10) without an input shape."""
    return ModelSpec(name="deferred", kind=SEQUENTIAL, inputs=(), layers=(
        LayerSpec("hidden", "Dense", {"units": 256, "activation": "relu"}),
        LayerSpec("output", "Dense", {"units": 10})))


def _nested_blocks() -> ModelSpec:
    """B4: four blocks of Flatten -> Dense(4, relu) nested in one block, then Dense(1)."""
    blocks = tuple(LayerSpec(f"block{i}", "Block", layers=(
        LayerSpec(f"flatten{i}", "Flatten"),
        LayerSpec(f"dense{i}", "Dense", {"units": 4, "activation": "relu"})))
        for i in range(4))
    return ModelSpec(name="nested_blocks", kind=SEQUENTIAL, inputs=(InputSpec("x", (4,)),),
                     layers=(LayerSpec("blocks", "Block", layers=blocks),
                             LayerSpec("output", "Dense", {"units": 1})))


_FALLBACKS = {"tied": _tied, "deferred": _deferred, "nested_blocks": _nested_blocks}


def scenario_spec(name: str) -> ModelSpec:
    """The preset ``name`` if it exists, else the equivalent spec written above."""
    return get_preset(name) if name in preset_names() else _FALLBACKS[name]()


def scenario_model(name: str):
    from tfcore.model.build import build_model

    return build_model(scenario_spec(name))


def make_run(root: Path, *, steps: tuple[int, ...] = (), final: bool = False) -> Path:
    """A run directory as the training worker leaves it (run.json, ckpt/, model.keras).

    The dense kernel holds the step number, so a test can tell which step was restored.
    """
    import keras
    import tensorflow as tf

    from tfcore.model.build import build_model

    spec = get_preset("mlp")
    root.mkdir(parents=True)
    (root / "run.json").write_text(json.dumps({"name": root.name, "spec": spec.to_dict()}))
    model = build_model(spec)
    checkpoint = tf.train.Checkpoint(step=tf.Variable(0, dtype=tf.int64), model=model,
                                     optimizer=keras.optimizers.Adam())
    manager = tf.train.CheckpointManager(checkpoint, str(root / "ckpt"), max_to_keep=3,
                                         checkpoint_name="ckpt")
    for step in steps:
        model.get_layer("dense").kernel.assign(np.full((784, 100), step, "float32"))
        manager.save(checkpoint_number=step)
    if final:
        model.get_layer("dense").kernel.assign(np.full((784, 100), -1.0, "float32"))
        model.save(root / "model.keras")
    return root
