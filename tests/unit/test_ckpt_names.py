"""Checkpoint labels follow the run's prefix (T3: ``model.ckpt-N``); a damaged run.json
never reaches a label."""

from __future__ import annotations

from pathlib import Path

import pytest

from tfcore.runs import checkpoint_name, checkpoint_names, list_checkpoints, run_ckpt_prefix


@pytest.mark.parametrize("request_, prefix", [
    ({"training": {"ckpt_prefix": "model.ckpt"}}, "model.ckpt"),
    ({"training": {"ckpt_prefix": "ckpt"}}, "ckpt"),
    ({"training": {}}, "ckpt"),
    ({}, "ckpt"),
    (None, "ckpt"),
    ({"training": "oops"}, "ckpt"),
    ({"training": {"ckpt_prefix": 5}}, "ckpt"),
    ({"training": {"ckpt_prefix": "**bold**"}}, "ckpt"),
    ({"training": {"ckpt_prefix": "../up"}}, "ckpt"),
])
def test_run_ckpt_prefix(request_, prefix: str) -> None:
    assert run_ckpt_prefix(request_) == prefix


def test_names_come_from_the_files(tmp_path: Path) -> None:
    import tensorflow as tf

    folder = tmp_path / "ckpt"
    manager = tf.train.CheckpointManager(tf.train.Checkpoint(v=tf.Variable(1.0)), folder,
                                         max_to_keep=3, checkpoint_name="model.ckpt")
    for step in range(1, 6):
        manager.save(checkpoint_number=step)
    listing = list_checkpoints(folder)
    assert checkpoint_names(listing.entries) == {3: "model.ckpt-3", 4: "model.ckpt-4",
                                                 5: "model.ckpt-5"}
    assert checkpoint_name(5, "model.ckpt") == "model.ckpt-5"
    assert checkpoint_name(7) == "ckpt-7"
