"""tf.data input pipelines with visible settings: cache, shuffle buffer, batch, prefetch."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Mapping

import numpy as np

from tfcore.errors import DatasetError


@dataclass(frozen=True)
class PipelineConfig:
    """How ``make_pipeline`` feeds arrays to a model.

    ``shuffle_buffer``: 0 or 1 keeps the order; a buffer at least as large as the
    split gives a full shuffle (sorted labels need one). ``cache`` keeps the elements
    after the first pass; ``prefetch`` overlaps input and training (AUTOTUNE).
    """

    batch_size: int = 32
    shuffle_buffer: int = 1024
    cache: bool = False
    prefetch: bool = True
    seed: int = 0
    drop_remainder: bool = False

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "PipelineConfig":
        known = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        return cls(**known)

    def check(self) -> None:
        """Raise DatasetError for a batch size below 1 or a negative buffer."""
        if isinstance(self.batch_size, bool) or not isinstance(self.batch_size, int) \
                or self.batch_size < 1:
            raise DatasetError(
                key="data.err.batch_size", params={"value": repr(self.batch_size)})
        if not isinstance(self.shuffle_buffer, int) or self.shuffle_buffer < 0:
            raise DatasetError(
                key="data.err.shuffle_buffer", params={"value": repr(self.shuffle_buffer)})


def pipeline_steps(config: PipelineConfig, training: bool) -> list[str]:
    """The tf.data calls ``make_pipeline`` chains, as code text (for pages and docs)."""
    steps = ["tf.data.Dataset.from_tensor_slices((x, y))"]
    if config.cache:
        steps.append(".cache()")
    if training and config.shuffle_buffer > 1:
        steps.append(f".shuffle({config.shuffle_buffer}, seed={config.seed}, "
                     "reshuffle_each_iteration=True)")
    steps.append(f".batch({config.batch_size}"
                 + (", drop_remainder=True)" if config.drop_remainder else ")"))
    if config.prefetch:
        steps.append(".prefetch(tf.data.AUTOTUNE)")
    return steps


def make_pipeline(x: np.ndarray, y: np.ndarray, config: PipelineConfig,
                  training: bool):
    """A ``tf.data.Dataset`` of ``(x_batch, y_batch)``.

    Shuffles (each epoch anew, seeded) only when ``training``; evaluation keeps order.

    Raises:
        DatasetError: bad config or x and y of different lengths.
    """
    import tensorflow as tf

    config.check()
    if len(x) != len(y):
        raise DatasetError(
            key="data.err.lengths", params={"nx": len(x), "ny": len(y)})
    ds = tf.data.Dataset.from_tensor_slices((np.asarray(x), np.asarray(y)))
    if config.cache:
        ds = ds.cache()
    if training and config.shuffle_buffer > 1:
        ds = ds.shuffle(config.shuffle_buffer, seed=config.seed,
                        reshuffle_each_iteration=True)
    ds = ds.batch(config.batch_size, drop_remainder=config.drop_remainder)
    if config.prefetch:
        ds = ds.prefetch(tf.data.AUTOTUNE)
    return ds
