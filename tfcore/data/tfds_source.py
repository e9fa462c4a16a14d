"""TensorFlow Datasets by name (``tfds:mnist``): load what is on disk, download only on request.

Without ``{"download": True}`` nothing touches the network (``download=False``). With it,
a quick socket probe (host from ``TFLAB_NET_PROBE``, default storage.googleapis.com:443)
runs first in a thread with a short timeout, so an offline machine fails in seconds.
"""

from __future__ import annotations

import os
import re
import socket
import threading
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from tfcore.data import sources as registry
from tfcore.data.base import RawData
from tfcore.data.options import bool_option, check_known, int_option, str_option
from tfcore import settings
from tfcore.errors import DatasetError
from tfcore.messages import Names, Text

PREFIX = "tfds:"
SUGGESTED = ("mnist", "fashion_mnist", "cifar10", "tf_flowers")
OPTIONS = ("download", "data_dir", "image_size", "max_examples")
PROBE_TIMEOUT_S = 3.0
MAX_ARRAY_BYTES = 2 * 1024**3
_NAME = re.compile(r"^[a-z][a-z0-9_]*(/[A-Za-z0-9_.\-]+)?(:[0-9.*]+)?$")


def default_data_dir() -> Path:
    """Where TFDS keeps prepared datasets: ``TFDS_DATA_DIR`` or ~/tensorflow_datasets."""
    return Path(os.environ.get("TFDS_DATA_DIR") or Path.home() / "tensorflow_datasets")


def on_disk(data_dir: str | os.PathLike | None = None) -> list[str]:
    """Names of datasets already prepared in ``data_dir`` (no network, no tfds import)."""
    root = Path(data_dir) if data_dir else default_data_dir()
    if not root.is_dir():
        return []
    names = set()
    for info in list(root.glob("*/*/dataset_info.json")) + \
            list(root.glob("*/*/*/dataset_info.json")):
        parts = info.relative_to(root).parts[:-2]
        names.add("/".join(parts))
    return sorted(names)


def network_reachable(probe: str | None = None, timeout: float = PROBE_TIMEOUT_S) -> bool:
    """True when a verified TLS handshake with ``host:port`` completes within ``timeout``.

    A bare TCP connect is not enough (sandboxes and captive proxies accept any
    connection), and DNS lookups ignore socket timeouts, so the whole attempt runs in
    a daemon thread that is abandoned after ``timeout`` seconds.
    """
    target = probe or settings.net_probe()
    host, _, port = target.rpartition(":")
    result: list[bool] = []

    def attempt() -> None:
        import ssl

        try:
            context = ssl.create_default_context()
            with socket.create_connection((host, int(port)), timeout=timeout) as raw:
                with context.wrap_socket(raw, server_hostname=host):
                    result.append(True)
        except (OSError, ValueError, ssl.SSLError):
            result.append(False)

    thread = threading.Thread(target=attempt, daemon=True)
    thread.start()
    thread.join(timeout + 0.5)
    return bool(result and result[0])


def _builder(tfds_name: str, data_dir: str | None):
    import tensorflow_datasets as tfds

    try:
        return tfds.builder(tfds_name, data_dir=data_dir)
    except Exception as exc:  # DatasetNotFoundError, bad config names, ...
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise DatasetError(
            key="data.err.tfds_unknown",
            params={"name": tfds_name, "reason": first, "examples": Names(SUGGESTED)}) from exc


def _prepare(builder, tfds_name: str, data_dir: str, download: bool) -> None:
    if builder.is_prepared() if hasattr(builder, "is_prepared") else \
            Path(builder.data_dir).exists():
        return
    if not download:
        raise DatasetError(
            key="data.err.tfds_missing", params={"name": tfds_name, "dir": data_dir})
    if not network_reachable():
        raise DatasetError(
            key="data.err.tfds_offline", params={"name": tfds_name, "dir": data_dir})
    try:
        builder.download_and_prepare()
    except Exception as exc:  # network drops, disk full, manual-download datasets
        raise DatasetError(key="data.err.tfds_download",
                           params={"name": tfds_name, "error": str(exc)[:300]}) from exc


def _to_numpy(builder, split: str, label_key: str, image_key: str | None,
              image_size: int | None, limit: int) -> tuple[np.ndarray, np.ndarray]:
    import tensorflow as tf

    ds = builder.as_dataset(split=split, shuffle_files=False)
    if limit:
        ds = ds.take(limit)
    x_key = image_key or builder.info.supervised_keys[0]

    def convert(example):
        x = example[x_key]
        if image_key:
            x = tf.image.convert_image_dtype(x, tf.float32)      # uint8 -> [0, 1]
            if image_size:
                x = tf.image.resize(x, (image_size, image_size))
        else:
            x = tf.cast(x, tf.float32)
        return x, example[label_key]

    xs, ys = [], []
    for xb, yb in ds.map(convert, num_parallel_calls=tf.data.AUTOTUNE).batch(1024):
        xs.append(xb.numpy())
        ys.append(yb.numpy())
    if not xs:
        raise DatasetError(key="data.err.empty",
                           params={"name": split})
    return np.concatenate(xs).astype(np.float32), np.concatenate(ys)


def load_tfds(name: str, tfds_name: str, options: Mapping[str, Any], seed: int) -> RawData:
    """Load a prepared TFDS dataset with (input, label) pairs into arrays.

    Raises:
        DatasetError: bad name, not on disk, offline download, no labels, too large.
    """
    check_known(name, options, OPTIONS)
    tfds_name = tfds_name.strip()
    if not _NAME.match(tfds_name):
        raise DatasetError(
            key="data.err.tfds_name", params={"name": tfds_name})
    download = bool_option(name, options, "download", False)
    data_dir = str_option(name, options, "data_dir", None) or str(default_data_dir())
    image_size = options.get("image_size")
    if image_size is not None:
        image_size = int_option(name, options, "image_size", 28, 8, 512)
    limit = int_option(name, options, "max_examples", 0, 0, 10_000_000)
    builder = _builder(tfds_name, data_dir)
    _prepare(builder, tfds_name, data_dir, download)
    info = builder.info
    keys = info.supervised_keys
    if not keys or not isinstance(keys, tuple) or len(keys) != 2 \
            or not all(isinstance(k, str) for k in keys):
        raise DatasetError(key="data.err.tfds_unsupervised", params={"name": tfds_name})
    x_key, label_key = keys
    import tensorflow_datasets as tfds

    feature = info.features[x_key]
    is_image = isinstance(feature, tfds.features.Image)
    if is_image and (None in feature.shape[:2]) and not image_size:
        raise DatasetError(
            key="data.err.tfds_image_size", params={"name": tfds_name})
    label = info.features[label_key]
    classification = isinstance(label, tfds.features.ClassLabel)
    _check_size(tfds_name, info, feature, image_size, limit)
    splits = set(info.splits)
    args = (label_key, x_key if is_image else None, image_size, limit)
    x, y = _to_numpy(builder, "train" if "train" in splits else sorted(splits)[0], *args)
    x_val = y_val = x_test = y_test = None
    if "test" in splits:
        x_test, y_test = _to_numpy(builder, "test", *args)
    if "validation" in splits and "test" in splits:
        x_val, y_val = _to_numpy(builder, "validation", *args)
    cast = np.int32 if classification else np.float32
    y, y_val, y_test = (None if a is None else a.astype(cast) for a in (y, y_val, y_test))
    if not classification and y.ndim == 1:
        y, y_val, y_test = (None if a is None else a[:, None] for a in (y, y_val, y_test))
    return RawData(
        x, y, "classification" if classification else "regression",
        "image" if is_image else "table",
        class_names=tuple(label.names) if classification else (),
        feature_names=() if is_image else tuple(f"x{i}" for i in range(int(np.prod(x.shape[1:])))),
        x_val=x_val, y_val=y_val, x_test=x_test, y_test=y_test)


def _check_size(tfds_name: str, info, feature, image_size: int | None, limit: int) -> None:
    """Refuse a dataset whose float32 arrays would not fit comfortably in memory."""
    n = sum(int(s.num_examples) for s in info.splits.values())
    if limit:
        n = min(n, limit * len(info.splits))
    shape = list(feature.shape)
    if image_size:
        shape[0:2] = [image_size, image_size]
    per = int(np.prod([d or 1 for d in shape])) * 4
    if n * per > MAX_ARRAY_BYTES:
        gib = n * per / 1024**3
        raise DatasetError(
            key="data.err.tfds_too_big", params={"name": tfds_name, "gib": round(gib, 1)})


registry.register_prefix(registry.PrefixSource(
    PREFIX, Text("data.title.tfds"), load_tfds))
