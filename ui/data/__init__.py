"""The dataset picker used by the Train and Weights pages.

Code outside this package imports only the names below (``__all__``).
"""

from __future__ import annotations

from ui.data.picker import (
    IMAGE_SIZES,
    RANGES,
    SOURCES,
    UPLOAD_KINDS,
    dataset_info,
    load_with_spinner,
    pick_dataset,
)

__all__ = [
    "IMAGE_SIZES", "RANGES", "SOURCES", "UPLOAD_KINDS", "dataset_info", "load_with_spinner",
    "pick_dataset",
]
