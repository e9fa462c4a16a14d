"""T5: a checkpoint's weights saved to a file and loaded into a fresh copy of the model
give the same outputs for the same input (and the fresh copy differed before loading)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.unit.fixtures_runs import make_run
from tfcore.errors import CheckpointError
from tfcore.runs import fresh_copy_outputs, predict_run


def test_fresh_copy_outputs_equal_the_restored_model(tmp_path) -> None:
    run_id = make_run(tmp_path, steps=8, ckpt_every=4)
    copy = fresh_copy_outputs(tmp_path / run_id, 4, count=3)
    assert copy.checkpoint == "ckpt-4"
    assert copy.restored.shape == copy.fresh.shape == (3, 10)          # 3 examples, 10 classes
    assert copy.equal and copy.max_abs_diff == 0.0
    np.testing.assert_array_equal(copy.restored, copy.fresh)
    assert not np.allclose(copy.fresh_before, copy.restored)           # loading changed it
    np.testing.assert_allclose(copy.restored.sum(axis=1), 1.0, rtol=1e-5)   # softmax rows
    predicted = predict_run(tmp_path / run_id, 4, count=3).y_pred       # the same checkpoint
    assert list(copy.restored.argmax(axis=1)) == list(predicted)
    latest = fresh_copy_outputs(tmp_path / run_id, None, count=1)
    assert latest.checkpoint == "ckpt-8" and latest.equal
    assert copy.to_dict()["equal"] is True


def test_bad_count_and_missing_checkpoint_are_clear_errors(tmp_path) -> None:
    run_id = make_run(tmp_path, steps=4, ckpt_every=4)
    with pytest.raises(CheckpointError) as info:
        fresh_copy_outputs(tmp_path / run_id, 4, count=0)
    assert info.value.key == "freshcopy.err.count"
    with pytest.raises(CheckpointError) as info:
        fresh_copy_outputs(tmp_path / run_id, 99)
    assert info.value.key == "runs.err.no_ckpt"
