"""tf.data pipeline lab (T6): map -> shuffle -> batch -> cache -> prefetch, made visible.

A :class:`PipelineSpec` is the whole pipeline as data. From it the lab builds the
``tf.data.Dataset``, prints its Python code, shows the first batches, the label order and
batch composition (on the label-sorted data, so buffer 1 visibly keeps the order) and
measures throughput with and without cache and prefetch side by side.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

import numpy as np

from tfcore.errors import TFLabError
from tfcore.messages import Names

DATASETS = ("digits8", "digits28")   # image datasets of the training page, offline
MAX_RESIZE = 64


class PipelineLabError(TFLabError):
    """A pipeline setting is out of range."""

    default_key = "foundations.err.pipeline"


@dataclass(frozen=True)
class PipelineSpec:
    """The pipeline's steps and their settings, in the order they are applied."""

    dataset: str = "digits8"
    normalize: bool = True
    resize: int = 0              # 0 keeps the size; else a square side in pixels
    augment: bool = False        # random left-right flip + small noise
    shuffle_buffer: int = 1      # 1 keeps the order
    batch_size: int = 32
    cache: bool = False
    prefetch: bool = True
    sort_by_label: bool = True
    seed: int = 0
    limit: int = 0               # 0 = every example

    def check(self) -> None:
        """Raise :class:`PipelineLabError` for an out-of-range setting."""
        if self.dataset not in DATASETS:
            raise PipelineLabError(
                key="foundations.err.pipeline_dataset",
                params={"name": self.dataset, "allowed": Names(DATASETS)})
        for name, value, low, high in (("shuffle_buffer", self.shuffle_buffer, 1, 100_000),
                                       ("batch_size", self.batch_size, 1, 4096),
                                       ("resize", self.resize, 0, MAX_RESIZE),
                                       ("limit", self.limit, 0, 100_000)):
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise PipelineLabError(
                    key="foundations.err.pipeline_value",
                    params={"name": name, "value": repr(value), "low": low, "high": high})


@lru_cache(maxsize=4)
def _arrays(dataset: str, sort_by_label: bool) -> tuple[np.ndarray, np.ndarray]:
    try:
        from tfcore.data import DatasetRequest, load_dataset

        bundle = load_dataset(DatasetRequest(dataset))
        x, y = np.array(bundle.x_train), np.array(bundle.y_train)
    except ImportError:  # the data area is optional for this lab: 8x8 digits directly
        from sklearn.datasets import load_digits

        digits = load_digits()
        x = (digits.images / 16.0).astype(np.float32)[..., None]
        y = digits.target.astype(np.int32)
    x = np.round(x * 255.0).astype(np.float32)  # raw 0..255 pixels: "normalize" has work
    if sort_by_label:
        order = np.argsort(y, kind="stable")
        x, y = x[order], y[order]
    return x, y


def source_arrays(spec: PipelineSpec) -> tuple[np.ndarray, np.ndarray]:
    """The (possibly label-sorted, possibly limited) digits the pipeline reads."""
    spec.check()
    x, y = _arrays(spec.dataset, spec.sort_by_label)
    if spec.limit:
        x, y = x[: spec.limit], y[: spec.limit]
    return x, y


def _map_fn(spec: PipelineSpec):
    import tensorflow as tf

    def fn(image, label):
        if spec.normalize:
            image = image / 255.0
        if spec.resize:
            image = tf.image.resize(image, (spec.resize, spec.resize))
        if spec.augment:
            image = tf.image.random_flip_left_right(image)
            image = image + tf.random.normal(tf.shape(image), stddev=0.02)
        return image, label
    return fn


def build_pipeline(spec: PipelineSpec):
    """The ``tf.data.Dataset`` of ``(images, labels)`` batches described by ``spec``.

    Raises:
        PipelineLabError: a setting out of range.
    """
    import tensorflow as tf

    spec.check()
    x, y = source_arrays(spec)
    ds = tf.data.Dataset.from_tensor_slices((x, y))
    if spec.normalize or spec.resize or spec.augment:
        ds = ds.map(_map_fn(spec), num_parallel_calls=tf.data.AUTOTUNE, deterministic=True)
    if spec.shuffle_buffer > 1:
        ds = ds.shuffle(spec.shuffle_buffer, seed=spec.seed, reshuffle_each_iteration=True)
    ds = ds.batch(spec.batch_size)
    if spec.cache:
        ds = ds.cache()
    if spec.prefetch:
        ds = ds.prefetch(tf.data.AUTOTUNE)
    return ds


def pipeline_code(spec: PipelineSpec) -> str:
    """The pipeline as runnable Python (x, y: the images and labels)."""
    lines = ["import tensorflow as tf", "",
             f"# x: {spec.dataset} images as raw 0..255 pixels, y: their labels", ""]
    maps = []
    if spec.normalize:
        maps.append("    image = image / 255.0")
    if spec.resize:
        maps.append(f"    image = tf.image.resize(image, ({spec.resize}, {spec.resize}))")
    if spec.augment:
        maps += ["    image = tf.image.random_flip_left_right(image)",
                 "    image = image + tf.random.normal(tf.shape(image), stddev=0.02)"]
    if maps:
        lines += ["def preprocess(image, label):", *maps, "    return image, label", ""]
    lines.append("ds = tf.data.Dataset.from_tensor_slices((x, y))")
    if maps:
        lines.append("ds = ds.map(preprocess, num_parallel_calls=tf.data.AUTOTUNE)")
    if spec.shuffle_buffer > 1:
        lines.append(f"ds = ds.shuffle({spec.shuffle_buffer}, seed={spec.seed})")
    lines.append(f"ds = ds.batch({spec.batch_size})")
    if spec.cache:
        lines.append("ds = ds.cache()")
    if spec.prefetch:
        lines.append("ds = ds.prefetch(tf.data.AUTOTUNE)")
    return "\n".join(lines)


@dataclass(frozen=True)
class BatchView:
    """One batch: its images (N, H, W) and labels."""

    index: int
    images: np.ndarray
    labels: np.ndarray


def first_batches(spec: PipelineSpec, count: int = 2) -> list[BatchView]:
    """The first ``count`` batches of one pass, images without the channel axis."""
    out = []
    for i, (images, labels) in enumerate(build_pipeline(spec).take(count)):
        out.append(BatchView(i, images.numpy()[..., 0], labels.numpy()))
    return out


@dataclass(frozen=True)
class LabelOrder:
    """Labels in the order the pipeline yields them, and per-batch class counts."""

    positions: np.ndarray      # 0..n-1
    labels: np.ndarray
    batch: np.ndarray          # batch index of each position
    composition: np.ndarray    # (batches, classes) counts
    classes_per_batch: np.ndarray

    @property
    def first_batch_classes(self) -> int:
        return int(self.classes_per_batch[0]) if len(self.classes_per_batch) else 0


def label_order(spec: PipelineSpec, batches: int = 10, classes: int = 10) -> LabelOrder:
    """Label order and composition of the first ``batches`` batches of one pass."""
    labels = [b[1].numpy() for b in build_pipeline(spec).take(batches)]
    flat = np.concatenate(labels) if labels else np.zeros(0, np.int32)
    batch = np.concatenate([np.full(len(b), i) for i, b in enumerate(labels)]) \
        if labels else np.zeros(0, np.int64)
    comp = np.stack([np.bincount(b, minlength=classes)[:classes] for b in labels]) \
        if labels else np.zeros((0, classes), np.int64)
    return LabelOrder(np.arange(len(flat)), flat, batch, comp, (comp > 0).sum(axis=1))


@dataclass(frozen=True)
class ThroughputRow:
    """Elements per second of one pipeline variant over ``epochs`` passes."""

    variant: str
    cache: bool
    prefetch: bool
    elements: int
    seconds: float

    @property
    def per_second(self) -> float:
        return self.elements / self.seconds if self.seconds > 0 else float("inf")


VARIANTS = (("plain", False, False), ("prefetch", False, True), ("cache", True, False),
            ("cache_prefetch", True, True))


def _consume(ds, epochs: int, work_ms: float) -> tuple[int, float]:
    count, start = 0, time.perf_counter()
    for _ in range(epochs):
        for images, _labels in ds:
            count += int(images.shape[0])
            if work_ms:
                time.sleep(work_ms / 1000.0)  # stands in for a training step
    return count, time.perf_counter() - start


def throughput(spec: PipelineSpec, epochs: int = 2, work_ms: float = 0.0,
               slow_map_ms: float = 0.0) -> list[ThroughputRow]:
    """Measure the four cache/prefetch variants of ``spec`` one after another, same data.

    ``slow_map_ms`` adds a sleep per element in the map step (an expensive decode), which
    is what cache saves from the second epoch on; ``work_ms`` a sleep per batch (a
    training step), which is what prefetch overlaps.
    """
    import tensorflow as tf

    spec.check()
    rows = []
    for variant, cache, prefetch in VARIANTS:
        ds = build_pipeline(replace(spec, cache=False, prefetch=False))
        if slow_map_ms:
            ds = ds.unbatch().map(_sleeper(slow_map_ms)).batch(spec.batch_size)
        if cache:
            ds = ds.cache()
        if prefetch:
            ds = ds.prefetch(tf.data.AUTOTUNE)
        count, seconds = _consume(ds, epochs, work_ms)
        rows.append(ThroughputRow(variant, cache, prefetch, count, seconds))
    return rows


def _sleeper(ms: float):
    import tensorflow as tf

    def slow(image: Any, label: Any):
        def wait(x):
            time.sleep(ms / 1000.0)
            return x
        image = tf.numpy_function(wait, [image], tf.float32, stateful=True)
        return image, label
    return slow
