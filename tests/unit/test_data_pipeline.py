"""make_pipeline: batch sizes, shuffling semantics, cache and prefetch in the graph."""

from __future__ import annotations

import numpy as np
import pytest

from tfcore.data.loader import PipelineConfig, make_pipeline, pipeline_steps
from tfcore.errors import DatasetError


def _data(n: int = 10):
    return np.arange(n, dtype=np.float32)[:, None], np.arange(n, dtype=np.int32)


def _labels(ds) -> list[list[int]]:
    return [y.numpy().tolist() for _, y in ds]


def test_batches_and_remainder() -> None:
    x, y = _data(10)
    ds = make_pipeline(x, y, PipelineConfig(batch_size=4, shuffle_buffer=0), training=True)
    assert [len(b) for b in _labels(ds)] == [4, 4, 2]
    ds = make_pipeline(x, y, PipelineConfig(batch_size=4, drop_remainder=True), True)
    assert [len(b) for b in _labels(ds)] == [4, 4]


def test_buffer_one_keeps_order_and_evaluation_never_shuffles() -> None:
    x, y = _data(10)
    ordered = _labels(make_pipeline(x, y, PipelineConfig(batch_size=10, shuffle_buffer=1), True))
    assert ordered == [list(range(10))]
    evaluation = _labels(make_pipeline(x, y, PipelineConfig(batch_size=10), training=False))
    assert evaluation == [list(range(10))]


def test_small_buffer_shuffles_locally_large_buffer_globally() -> None:
    """With sorted labels a buffer of 2 can only move an element a little forward."""
    x, y = _data(200)
    small = _labels(make_pipeline(x, y, PipelineConfig(batch_size=200, shuffle_buffer=2,
                                                       seed=1), True))[0]
    assert sorted(small) == list(range(200)) and small != list(range(200))
    assert small[0] in (0, 1)          # the first element comes from the first two
    full = _labels(make_pipeline(x, y, PipelineConfig(batch_size=200, shuffle_buffer=200,
                                                      seed=1), True))[0]
    assert max(full[:10]) > 50          # a full buffer can draw from anywhere


def test_seeded_shuffle_repeats_and_reshuffles_each_epoch() -> None:
    x, y = _data(50)
    cfg = PipelineConfig(batch_size=50, shuffle_buffer=50, seed=3)
    ds = make_pipeline(x, y, cfg, True)
    first, second = _labels(ds)[0], _labels(ds)[0]
    assert first != second
    assert _labels(make_pipeline(x, y, cfg, True))[0] == first


def test_cache_and_prefetch_are_in_the_graph() -> None:
    x, y = _data(8)
    ds = make_pipeline(x, y, PipelineConfig(cache=True, prefetch=True), True)
    names = _dataset_chain(ds)
    assert names[-1] == "PrefetchDataset" and "CacheDataset" in names
    assert "ShuffleDataset" in names
    plain = _dataset_chain(make_pipeline(x, y, PipelineConfig(prefetch=False), False))
    assert "PrefetchDataset" not in plain and "CacheDataset" not in plain
    assert "ShuffleDataset" not in plain
    steps = pipeline_steps(PipelineConfig(cache=True, shuffle_buffer=64), True)
    assert steps[1] == ".cache()" and steps[2].startswith(".shuffle(64")
    assert steps[-1] == ".prefetch(tf.data.AUTOTUNE)"


def _dataset_chain(ds) -> list[str]:
    names = []
    while ds is not None:
        names.append(type(ds).__name__.lstrip("_"))
        ds = getattr(ds, "_input_dataset", None)
    return list(reversed(names))


@pytest.mark.parametrize("cfg,fragment", [
    (PipelineConfig(batch_size=0), "batch_size=0"),
    (PipelineConfig(shuffle_buffer=-1), "shuffle_buffer=-1"),
])
def test_bad_config_is_refused(cfg, fragment) -> None:
    x, y = _data(4)
    with pytest.raises(DatasetError, match=fragment):
        make_pipeline(x, y, cfg, True)


def test_length_mismatch_is_refused() -> None:
    with pytest.raises(DatasetError, match="len\\(x\\)=3, len\\(y\\)=2"):
        make_pipeline(np.zeros((3, 1)), np.zeros(2), PipelineConfig(), True)


def test_read_only_cached_arrays_feed_a_pipeline() -> None:
    from tfcore.data.loader import DatasetRequest, load_dataset
    bundle = load_dataset(DatasetRequest("digits8"))
    ds = make_pipeline(*bundle.split("train"), PipelineConfig(batch_size=50), True)
    xb, yb = next(iter(ds))
    assert tuple(xb.shape) == (50, 8, 8, 1) and yb.dtype.name == "int32"
