"""Process-wide caches of parsed run files, keyed on each file's stat, so a page rerun
re-reads only the files that changed.

A file's stamp is (inode, size, modification and change time in ns); writers replace JSON
files atomically, so every write gives a new stamp. File times tick coarsely (a few ms), so,
as git does with its index, a file modified less than :data:`SETTLE_SECONDS` before it
was read is read again next time instead of trusted.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Any, Callable, Hashable

SETTLE_SECONDS = 1.0
Stamp = tuple[int, int, int, int]


def file_stamp(path: Path) -> Stamp | None:
    """(inode, size, mtime ns, ctime ns), or ``None`` when there is no such file."""
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


class StampCache:
    """``key -> (stamp, value)``; :meth:`get` calls ``load`` only when the stamp changed
    (or the file was still settling when it was last loaded)."""

    def __init__(self, limit: int = 20_000) -> None:
        self._items: dict[Hashable, tuple[Any, bool, Any]] = {}
        self._lock = threading.Lock()
        self.limit = limit
        self.loads = 0          # how many times ``load`` ran: what tests count

    def get(self, key: Hashable, stamp: Any, load: Callable[[], Any],
            modified_ns: int | None = None) -> Any:
        with self._lock:
            found = self._items.get(key)
        if found is not None and found[0] == stamp and found[1]:
            return found[2]
        value = load()
        settled = modified_ns is None or time.time() - modified_ns / 1e9 > SETTLE_SECONDS
        with self._lock:
            self.loads += 1
            if len(self._items) >= self.limit:
                self._items.clear()
            self._items[key] = (stamp, settled, value)
        return value

    def forget(self, keep: Callable[[Hashable], bool]) -> None:
        """Drop the entries whose key ``keep`` rejects (runs that are gone)."""
        with self._lock:
            for key in [k for k in self._items if not keep(k)]:
                del self._items[key]

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


FILES = StampCache()      # parsed run files (run.json, status.json, meta.json)
LISTINGS = StampCache()   # run folder names per runs root, keyed on the root's stamp
DIGESTS = StampCache()    # per-file derived values (a metrics file's summary)


def cached_file(path: Path, load: Callable[[Path], Any], cache: StampCache = FILES) -> Any:
    """``load(path)``, cached on the file's stamp (a missing file is cached as missing)."""
    stamp = file_stamp(path)
    return cache.get((str(path), load), stamp, lambda: load(path),
                     stamp[2] if stamp else None)


def cached_listing(root: Path, load: Callable[[Path], list[str]]) -> list[str]:
    """The entries of a runs root, re-listed only when the folder itself changed."""
    stamp = file_stamp(root)
    return LISTINGS.get(str(root), stamp, lambda: load(root), stamp[2] if stamp else None)
