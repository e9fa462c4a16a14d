"""Resource limits shared by every upload reader, checked before any work is done.

Archives (image zips, NPZ files) are judged by the sizes their directory declares: a
member's declared size bounds what :mod:`zipfile` will ever produce for it, so refusing
on declared sizes and compression ratios stops a zip bomb before one byte is inflated.
Images are judged by their header (PIL reads only the header in ``Image.open``).
"""

from __future__ import annotations

import math
import warnings
import zipfile
from typing import Iterable

from tfcore.errors import DatasetError

MIB = 1024**2
MAX_FILE_BYTES = 200 * MIB             # one CSV / NPZ / zip file, and one archive member
MAX_MEMBER_BYTES = MAX_FILE_BYTES      # declared (uncompressed) size of one archive member
MAX_RATIO = 100                        # declared / compressed, for members above RATIO_FLOOR
RATIO_FLOOR = 8 * MIB
MAX_IMAGE_PIXELS = 4096 * 4096         # one image, width x height
MAX_TOTAL_PIXELS = 400_000_000         # all images of one upload together
MAX_ARRAY_BYTES = 2 * 1024**3          # float32 arrays an upload turns into
MAX_NAME_CHARS = 100                   # a stored upload's file name stem
MAX_PATH_CHARS = 1024                  # a path typed into a request


def mb(size: int) -> float:
    """Megabytes rounded *up* to one decimal, so a size above a limit never reads as equal."""
    return math.ceil(size * 10 / MIB) / 10


def limit_mb(limit: int) -> float | int:
    value = round(limit / MIB, 1)
    return int(value) if float(value).is_integer() else value


def too_big(name: str, size: int, limit: int) -> DatasetError:
    return DatasetError(
        key="data.err.too_big", params={"name": name, "mb": mb(size), "limit": limit_mb(limit)})


def check_members(arg: str, infos: Iterable[zipfile.ZipInfo], archive_bytes: int,
                  max_total: int) -> None:
    """Refuse an archive from its directory alone: a member or the whole declared too
    large, or compressed suspiciously well (a bomb).

    Raises:
        DatasetError: ``data.err.zip_member_big``, ``data.err.zip_ratio``,
            ``data.err.too_big`` (the total).
    """
    total = 0
    for info in infos:
        declared, packed = info.file_size, max(info.compress_size, 1)
        if declared > MAX_MEMBER_BYTES:
            raise DatasetError(
                key="data.err.zip_member_big",
                params={"path": arg, "member": info.filename, "mb": mb(declared),
                        "limit": limit_mb(MAX_MEMBER_BYTES)})
        if declared > RATIO_FLOOR and declared / packed > MAX_RATIO:
            raise DatasetError(
                key="data.err.zip_ratio",
                params={"path": arg, "member": info.filename, "ratio": declared // packed,
                        "limit": MAX_RATIO})
        total += declared
    if total > max_total:
        raise DatasetError(
            key="data.err.too_big",
            params={"name": arg, "mb": mb(total), "limit": limit_mb(max_total)})
    if total > RATIO_FLOOR and total / max(archive_bytes, 1) > MAX_RATIO:
        raise DatasetError(
            key="data.err.zip_ratio",
            params={"path": arg, "member": "*", "ratio": total // max(archive_bytes, 1),
                    "limit": MAX_RATIO})


def image_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from an image's header without decoding it; None when unreadable."""
    import io

    from PIL import Image

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with Image.open(io.BytesIO(data)) as image:
                return tuple(image.size)  # type: ignore[return-value]
    except Image.DecompressionBombError as exc:
        # PIL refuses to even report sizes above 2 x its own limit; the message has them.
        import re

        found = re.search(r"\((\d+) pixels\)", str(exc))
        pixels = int(found.group(1)) if found else MAX_IMAGE_PIXELS + 1
        side = int(math.isqrt(pixels)) + 1
        return side, side
    except Exception:  # noqa: BLE001 - any header PIL cannot read is a broken image
        return None


def check_pixels(arg: str, member: str, size: tuple[int, int], total: int) -> int:
    """Refuse one image above ``MAX_IMAGE_PIXELS`` or a running total above
    ``MAX_TOTAL_PIXELS``; return the new total.

    Raises:
        DatasetError: ``data.err.image_pixels`` or ``data.err.total_pixels``.
    """
    width, height = size
    pixels = width * height
    if pixels > MAX_IMAGE_PIXELS:
        raise DatasetError(
            key="data.err.image_pixels",
            params={"path": arg, "member": member, "width": width, "height": height,
                    "pixels": f"{pixels:,}", "limit": f"{MAX_IMAGE_PIXELS:,}"})
    total += pixels
    if total > MAX_TOTAL_PIXELS:
        raise DatasetError(
            key="data.err.total_pixels",
            params={"path": arg, "member": member, "limit": f"{MAX_TOTAL_PIXELS:,}"})
    return total


def check_path_text(arg: str) -> None:
    """Refuse a typed path that is too long or holds a NUL before touching the disk.

    Raises:
        DatasetError: ``data.err.path_long`` or ``data.err.upload_path``.
    """
    parts = arg.replace("\\", "/").split("/")
    longest = max((len(p.encode("utf-8")) for p in parts), default=0)
    if len(arg) > MAX_PATH_CHARS or longest > 255:
        shown = arg[:40] + "..."
        raise DatasetError(
            key="data.err.path_long",
            params={"path": shown, "length": f"{len(arg):,}", "limit": f"{MAX_PATH_CHARS:,}"})
    if "\x00" in arg:
        raise DatasetError(key="data.err.upload_path", params={"path": repr(arg)})
