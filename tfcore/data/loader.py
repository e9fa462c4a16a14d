"""Datasets for TF Lab: one request in, train/val/test arrays and their description out.

Public API (see docs/data.md): :class:`DatasetRequest`, :class:`DatasetInfo`,
:class:`DatasetBundle`, :func:`dataset_names`, :func:`dataset_title`,
:func:`load_dataset`, :class:`PipelineConfig`, :func:`make_pipeline`,
``DEFAULT_DATASET``. Sources live in :mod:`tfcore.datasets`.
"""

from __future__ import annotations

from functools import lru_cache

from tfcore.data import sources as _sources
from tfcore.data.base import (
    DEFAULT_DATASET,
    SPLITS,
    DatasetBundle,
    DatasetInfo,
    DatasetRequest,
    RawData,
    check_fractions,
    split_raw,
)
from tfcore.data.pipeline import PipelineConfig, make_pipeline, pipeline_steps
from tfcore.errors import DatasetError
from tfcore.messages import Names, Text

__all__ = [
    "DEFAULT_DATASET", "SPLITS", "DatasetBundle", "DatasetInfo", "DatasetRequest",
    "PipelineConfig", "dataset_names", "dataset_title", "dataset_kind", "load_dataset",
    "make_pipeline", "pipeline_steps", "clear_cache", "prefixes",
]

_PREFIXES_READY = False


def _ensure_prefixes() -> None:
    """Register the TFDS and upload sources (imported on first use)."""
    global _PREFIXES_READY
    if not _PREFIXES_READY:
        from tfcore.data import tfds_source, uploads  # noqa: F401 - register on import
        _PREFIXES_READY = True


def dataset_names() -> list[str]:
    """Names of the offline datasets, the default first."""
    return list(_sources.SOURCES)


def prefixes() -> list[str]:
    """Name prefixes of dataset families: ``tfds:``, ``upload:csv:`` ..."""
    _ensure_prefixes()
    return list(_sources.PREFIXES)


def dataset_title(name: str) -> Text:
    """The title of a dataset name (prefixed names included), a catalog text."""
    if name in _sources.SOURCES:
        return _sources.SOURCES[name].title
    _ensure_prefixes()
    found = _sources.find_prefix(name)
    if found:
        source, arg = found
        return Text("data.title.with_arg", {"source": source.title, "arg": arg})
    return Text("data.title.unknown", {"name": name})


def dataset_kind(name: str) -> str | None:
    """"image", "table" or "points" for an offline dataset; None when known only after loading."""
    source = _sources.SOURCES.get(name)
    return source.kind if source else None


def _resolve(request: DatasetRequest):
    """(loader(options, seed) -> RawData, fingerprint) for the request's name."""
    name = request.name
    if name in _sources.SOURCES:
        source = _sources.SOURCES[name]
        return (lambda options, seed: source.loader(name, options, seed)), ""
    _ensure_prefixes()
    found = _sources.find_prefix(name)
    if found is None:
        known = Names(dataset_names() + [p + "..." for p in _sources.PREFIXES])
        raise DatasetError(key="data.err.unknown", params={"name": name, "known": known})
    source, arg = found
    return ((lambda options, seed: source.loader(name, arg, options, seed)),
            source.fingerprint(arg, request.options))


def load_dataset(request: DatasetRequest | None = None) -> DatasetBundle:
    """Load and split a dataset; cached per request (and per upload file version).

    Raises:
        DatasetError: unknown name, bad option or fraction, unreadable or unusable data.
    """
    request = request or DatasetRequest()
    if not isinstance(request, DatasetRequest):
        raise DatasetError(key="data.err.request", params={"value": repr(request)[:200]})
    check_fractions(request.val_fraction, request.test_fraction)
    _, fingerprint = _resolve(request)
    return _load_cached(request.to_json(), fingerprint)


def fingerprint(request: DatasetRequest) -> str:
    """What changes when the data behind ``request`` changes (an upload's size and
    modification time); built-in sets have a fixed one.

    Raises:
        DatasetError: an unknown dataset name.
    """
    return _resolve(request)[1]


@lru_cache(maxsize=8)
def _load_cached(request_json: str, fingerprint: str) -> DatasetBundle:
    import json

    request = DatasetRequest.from_dict(json.loads(request_json))
    loader, _ = _resolve(request)
    raw: RawData = loader(request.options, request.seed)
    return split_raw(raw, request.name, dataset_title(request.name),
                     request.val_fraction, request.test_fraction, request.seed)


def clear_cache() -> None:
    """Forget every cached bundle (tests; after deleting uploads)."""
    _load_cached.cache_clear()
