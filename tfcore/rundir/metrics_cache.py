"""A process-wide, incremental reader of whole ``metrics.jsonl`` files.

The Runs page, its table digests and every live panel want *all* records of a file, many
times a second across sessions, while a worker keeps appending to it. Re-parsing the whole
file each time is O(file) per reader per rerun. This cache keeps, per file, the records
parsed so far and the byte offset they end at; a read parses only the bytes appended since
(complete lines; a torn last line waits), so a rerun that finds the file unchanged costs one
``stat``. A file that shrank or was replaced (another inode) is read again from the start.

Each read returns a :class:`MetricsChunk` of the whole file (offset 0 to ``offset``), the
same object while the file is unchanged, so callers may cache derived values on it.
"""

from __future__ import annotations

import os
import stat
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from tfcore.rundir.metrics import MAX_LOCATED, MetricsChunk, read_metrics, thin

MAX_FILES = 256           # files kept; the least recently read are dropped beyond it


@dataclass
class _Entry:
    inode: int
    chunk: MetricsChunk
    lock: threading.Lock
    checked: float = 0.0          # time.monotonic() of the last look at the file


_entries: dict[str, _Entry] = {}
_guard = threading.Lock()
stats = {"parsed_bytes": 0, "reads": 0}     # what tests and benches look at


def _empty() -> MetricsChunk:
    return MetricsChunk(records=(), offset=0)


def _extend(old: MetricsChunk, new: MetricsChunk) -> MetricsChunk:
    problems = (old.problems + new.problems)[:MAX_LOCATED]
    return thin(MetricsChunk(records=old.records + new.records, offset=new.offset,
                             skipped=old.skipped + new.skipped, problems=problems,
                             lines=old.lines + new.lines, stride=max(old.stride, new.stride)))


def cached_metrics(path: Path | str, max_age: float = 0.0) -> MetricsChunk:
    """Every valid record of ``path`` (damaged lines skipped and counted, as
    :func:`read_metrics`), parsing only what was appended since the last call.

    ``max_age`` > 0 returns the records as they were up to that many seconds ago without
    looking at the file: pages that chart a growing file then redraw from one snapshot
    per interval, which their chart caches can share.
    """
    key = str(path)
    stats["reads"] += 1
    if max_age > 0:
        with _guard:
            entry = _entries.get(key)
        if entry is not None and time.monotonic() - entry.checked < max_age:
            return entry.chunk
    try:
        st = os.stat(key)
    except OSError:
        with _guard:
            _entries.pop(key, None)
        return read_metrics(Path(key))       # missing or unreadable: an empty, located chunk
    if not stat.S_ISREG(st.st_mode):          # a FIFO, device, socket: refused, located
        with _guard:
            _entries.pop(key, None)
        return read_metrics(Path(key))
    with _guard:
        entry = _entries.get(key)
        if entry is None or entry.inode != st.st_ino:
            entry = _entries[key] = _Entry(st.st_ino, _empty(), threading.Lock())
        else:                                 # keep recently read files at the end
            _entries[key] = _entries.pop(key)
        while len(_entries) > MAX_FILES:
            _entries.pop(next(iter(_entries)))
    with entry.lock:
        chunk = entry.chunk
        if st.st_size < chunk.offset:          # truncated or rewritten in place
            chunk = _empty()
        if st.st_size > chunk.offset:
            new = read_metrics(Path(key), chunk.offset, first_line=chunk.lines + 1)
            stats["parsed_bytes"] += new.offset - chunk.offset
            if new.offset > chunk.offset or new.problems:
                chunk = _extend(chunk, new)
        entry.chunk, entry.checked = chunk, time.monotonic()
        return chunk


def forget_metrics(path: Path | str | None = None) -> None:
    """Drop one file's cached records (all files when ``path`` is None)."""
    with _guard:
        if path is None:
            _entries.clear()
        else:
            _entries.pop(str(path), None)
