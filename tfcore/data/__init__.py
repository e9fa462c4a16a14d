"""Datasets by name: built-in offline sets, TFDS on disk and uploads (CSV, NPZ, image zips),
turned into splits, metadata and tf.data pipelines.

Code outside this package imports only the names below (``__all__``).
"""

from __future__ import annotations

from tfcore.data.base import DatasetInfo
from tfcore.data.builtin import class_texts, house_prices_arrays
from tfcore.data.loader import (
    DEFAULT_DATASET,
    DatasetBundle,
    DatasetRequest,
    PipelineConfig,
    dataset_names,
    dataset_title,
    load_dataset,
    pipeline_steps,
)
from tfcore.data.loader import prefixes as dataset_prefixes
from tfcore.data.offload import DecodeJob, JobState, decoded_apart
from tfcore.data.sources import SOURCES
from tfcore.data.tfds_source import SUGGESTED, default_data_dir, on_disk
from tfcore.data.uploads import csv_columns, list_uploads, save_upload

__all__ = [
    "class_texts", "csv_columns", "dataset_names", "dataset_prefixes", "dataset_title", "DatasetBundle",
    "DatasetInfo", "DatasetRequest", "DecodeJob", "decoded_apart", "JobState",
    "default_data_dir", "DEFAULT_DATASET", "house_prices_arrays", "list_uploads", "load_dataset",
    "on_disk", "pipeline_steps", "PipelineConfig", "save_upload", "SOURCES", "SUGGESTED",
]
