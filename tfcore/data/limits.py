"""Size limits shared by every upload reader."""

from __future__ import annotations

from tfcore.errors import DatasetError

MAX_FILE_BYTES = 200 * 1024**2  # one CSV / NPZ / zip file


def too_big(name: str, size: int, limit: int) -> DatasetError:
    return DatasetError(
        f"{name!r} is {size / 1024**2:.1f} MB; the limit is {limit / 1024**2:.0f} MB.",
        key="data.err.too_big",
        params={"name": name, "mb": round(size / 1024**2, 1), "limit": limit // 1024**2})
