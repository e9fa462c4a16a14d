"""JSON files written atomically and read forgivingly; UTC timestamps."""

from __future__ import annotations

import json
import os
import stat
import tempfile
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from tfcore.messages import Text


def now_iso() -> str:
    """The current UTC time as an ISO 8601 string."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def atomic_write_json(path: Path, obj: Any, *, sync: bool = True) -> None:
    """Write JSON to a temp file in the same folder, fsync it, then ``os.replace``.

    A crash at any moment leaves either the old file or the new one, never a mix.
    ``sync=False`` skips the fsync: for small records that are rewritten every few seconds
    and worthless after a crash (a session's presence)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(obj, handle, indent=2, ensure_ascii=False, default=_json_default)
            if sync:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


MAX_READ_BYTES = 64 * 2**20   # a bigger "JSON file" is not one this project wrote


def read_json(path: Path, default: Any = None, max_bytes: int = MAX_READ_BYTES) -> Any:
    """Read a JSON file; ``default`` when it is missing or unreadable, not a regular file
    (a FIFO would block the read forever, a device never ends) or over ``max_bytes``."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return default
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > max_bytes:
            return default
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        with os.fdopen(fd, encoding="utf-8") as handle:
            fd = -1                                   # the handle closes it now
            return json.loads(handle.read(max_bytes + 1))
    except (OSError, ValueError, RecursionError):
        # a folder, not UTF-8, not JSON, a 5,000-digit number, nested too deeply
        return default
    finally:
        if fd >= 0:
            os.close(fd)


def _json_default(value: Any) -> Any:
    """Serialize numpy scalars, paths and catalog texts (as English) that json cannot handle
    by itself."""
    if isinstance(value, Text):
        return str(value)
    if hasattr(value, "item"):
        return value.item()
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")
