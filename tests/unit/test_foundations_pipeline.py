"""tf.data lab (T6): shuffle buffer 1 keeps order, a full buffer mixes classes; code; speed."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from tfcore.labs.pipeline import (
    PipelineLabError,
    PipelineSpec,
    first_batches,
    label_order,
    pipeline_code,
    source_arrays,
    throughput,
)

SORTED = PipelineSpec(shuffle_buffer=1, batch_size=32, sort_by_label=True)


def test_source_is_label_sorted_digits() -> None:
    x, y = source_arrays(SORTED)
    assert x.shape[1:] == (8, 8, 1) and len(x) == len(y) > 1000
    assert (np.diff(y) >= 0).all()


def test_buffer_one_keeps_order() -> None:
    order = label_order(SORTED, batches=8)
    _, y = source_arrays(SORTED)
    assert order.labels.tolist() == y[: len(order.labels)].tolist()
    assert order.first_batch_classes == 1


def test_buffer_as_large_as_data_mixes_first_batch() -> None:
    n = len(source_arrays(SORTED)[1])
    order = label_order(replace(SORTED, shuffle_buffer=n), batches=2)
    assert order.first_batch_classes >= 7
    small = label_order(replace(SORTED, shuffle_buffer=4), batches=2)
    assert small.first_batch_classes <= 2


def test_map_steps_and_first_batches() -> None:
    batches = first_batches(replace(SORTED, resize=16, batch_size=8), 2)
    assert [b.images.shape for b in batches] == [(8, 16, 16), (8, 16, 16)]
    assert 0.0 <= batches[0].images.min() and batches[0].images.max() <= 1.0 + 1e-6
    raw = first_batches(replace(SORTED, normalize=False, batch_size=4), 1)[0]
    assert raw.images.max() > 1.0   # without normalize the raw 0..255 values stay
    assert float(raw.images.max()) == float(np.round(raw.images.max()))


def test_code_lists_steps_in_order() -> None:
    code = pipeline_code(replace(SORTED, resize=16, shuffle_buffer=64, cache=True))
    calls = [line.split("(")[0] for line in code.splitlines() if line.startswith("ds = ")]
    assert calls == ["ds = tf.data.Dataset.from_tensor_slices", "ds = ds.map",
                     "ds = ds.shuffle", "ds = ds.batch", "ds = ds.cache", "ds = ds.prefetch"]
    assert "shuffle" not in pipeline_code(SORTED)


def test_throughput_measures_four_variants_on_the_same_data() -> None:
    rows = throughput(replace(SORTED, limit=256), epochs=2)
    assert [r.variant for r in rows] == ["plain", "prefetch", "cache", "cache_prefetch"]
    assert all(r.elements == 512 and r.per_second > 0 for r in rows)


def test_the_28x28_digits_of_the_training_page() -> None:
    spec = replace(SORTED, dataset="digits28", batch_size=8)
    batch = first_batches(spec, 1)[0]
    assert batch.images.shape == (8, 28, 28) and batch.labels.tolist() == [0] * 8
    assert "digits28" in pipeline_code(spec)


def test_bad_settings_refused() -> None:
    with pytest.raises(PipelineLabError, match="digits8"):
        label_order(replace(SORTED, dataset="cifar"))
    with pytest.raises(PipelineLabError, match="batch_size"):
        label_order(replace(SORTED, batch_size=0))
    with pytest.raises(PipelineLabError, match="resize"):
        first_batches(replace(SORTED, resize=500))
