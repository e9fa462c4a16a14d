"""Statistics and histograms of a tensor's values, as frozen dataclasses."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class TensorStats:
    """Summary of a tensor: mean, std, min, max over finite values; zero share; NaN/Inf counts.

    ``mean``/``std``/``min``/``max`` are ``nan`` when the tensor has no finite value.
    """

    size: int
    mean: float
    std: float
    min: float
    max: float
    zero_share: float
    nan_count: int
    inf_count: int

    def to_dict(self) -> dict:
        return {"size": self.size, "mean": self.mean, "std": self.std, "min": self.min,
                "max": self.max, "zero_share": self.zero_share,
                "nan_count": self.nan_count, "inf_count": self.inf_count}


@dataclass(frozen=True)
class Histogram:
    """Bin edges (``len(counts) + 1`` of them) and counts of the finite values."""

    edges: tuple[float, ...]
    counts: tuple[int, ...]

    def rows(self) -> list[dict]:
        """One ``{"start", "end", "count"}`` row per bin (for charts)."""
        return [{"start": self.edges[i], "end": self.edges[i + 1], "count": c}
                for i, c in enumerate(self.counts)]


def tensor_stats(values: np.ndarray) -> TensorStats:
    """Statistics of an array of any shape (computed in float64)."""
    flat = np.asarray(values, dtype=np.float64).ravel()
    finite = flat[np.isfinite(flat)]
    nan = float("nan")
    return TensorStats(
        size=int(flat.size),
        mean=float(finite.mean()) if finite.size else nan,
        std=float(finite.std()) if finite.size else nan,
        min=float(finite.min()) if finite.size else nan,
        max=float(finite.max()) if finite.size else nan,
        zero_share=float(np.mean(flat == 0)) if flat.size else 0.0,
        nan_count=int(np.isnan(flat).sum()),
        inf_count=int(np.isinf(flat).sum()),
    )


def histogram(values: np.ndarray, bins: int = 30) -> Histogram:
    """Histogram of the finite values; a constant tensor gets one bin around its value."""
    flat = np.asarray(values, dtype=np.float64).ravel()
    finite = flat[np.isfinite(flat)]
    if not finite.size:
        return Histogram(edges=(0.0, 1.0), counts=(0,))
    low, high = float(finite.min()), float(finite.max())
    if low == high:
        pad = max(abs(low) * 0.05, 0.5)
        return Histogram(edges=(low - pad, high + pad), counts=(int(finite.size),))
    counts, edges = np.histogram(finite, bins=max(1, int(bins)), range=(low, high))
    return Histogram(edges=tuple(float(e) for e in edges),
                     counts=tuple(int(c) for c in counts))
