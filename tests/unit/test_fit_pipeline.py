"""The fit loop's input pipeline (tfcore.training.loops.fit_dataset): the batches of exactly
the steps asked for, in the run's batch order, and no tf.data autotuning thread (an
iterator's teardown waited for it: model.fit returned seconds after its last step)."""

from __future__ import annotations

import numpy as np

from tfcore.training.callbacks import TrainState
from tfcore.training.config import TrainConfig
from tfcore.training.loops import fit_dataset
from tfcore.training.plan import batch_indices


def _pipeline(start: int, end: int):
    import tensorflow as tf

    n, bs = 23, 5                       # 5 steps an epoch, the last batch of 3
    config = TrainConfig(epochs=3, batch_size=bs, shuffle=True, seed=7)
    state = TrainState(total_steps=15, steps_per_epoch=5, batch_size=bs, step=start)
    x = np.arange(n, dtype=np.float32).reshape(n, 1) * 10.0
    y = np.arange(n, dtype=np.int64)
    ds = fit_dataset((tf.constant(x), tf.constant(y)), config, state, end)
    return ds, config, n


def test_the_pipeline_runs_without_the_autotuning_thread_and_keeps_its_prefetch() -> None:
    ds, _, _ = _pipeline(0, 15)
    options = ds.options()
    assert options.autotune.enabled is False
    assert options.experimental_optimization.apply_default_optimizations is False
    # prefetch(AUTOTUNE) is kept: its buffer still grows while the training waits (tf.data's
    # legacy prefetch tuning, a counter in the op, no thread)
    import tensorflow as tf

    graph = tf.compat.v1.GraphDef()
    graph.ParseFromString(tf.raw_ops.DatasetToGraphV2(
        input_dataset=ds._variant_tensor).numpy())
    prefetch = [node for node in graph.node if node.op == "PrefetchDataset"]
    assert len(prefetch) == 1 and prefetch[0].attr["legacy_autotune"].b is True


def test_the_pipeline_gives_the_batches_of_exactly_the_steps_asked_for() -> None:
    ds, config, n = _pipeline(7, 13)    # from mid-epoch 2 into epoch 3
    got = [(xb.numpy()[:, 0] / 10.0).astype(np.int64).tolist() for xb, _ in ds]
    want = [idx.tolist() for piece in batch_indices(7, 13, 5, config, n)
            for idx in np.array_split(piece, range(5, len(piece), 5))]
    assert len(got) == 6
    assert got == want
    labels = [yb.numpy().tolist() for _, yb in ds]
    assert labels == got                  # x and y gathered with the same indices
    assert [len(b) for b in got] == [5, 5, 3, 5, 5, 5]
