"""A run's own copy of user-written code (``<run>/custom/<name>.py``) against the
workspace's current files (``<workspace>/custom/<name>.py``).

The worker trains with the run's copy, but restoring, evaluating and exporting in the
server use the code loaded from the workspace now. ``run_code_changes`` says which files
differ (byte for byte), ``run_code_stamp`` is a stat-only key to cache that answer on, and
``restore_run_code`` writes the run's copies back through ``save_code`` (same checks).
Nothing here runs the code; a run's folder is read without following symlinks.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from tfcore.custom.store import (
    FOLDER,
    MAX_SOURCE_BYTES,
    NAME_PATTERN,
    CustomCodeError,
    check_name,
    code_dir,
    inspect_source,
    save_code,
)

CHANGED, MISSING, UNREADABLE = "changed", "missing", "unreadable"
MAX_FILES = 200          # a run folder with more candidate files is read up to this many


@dataclass(frozen=True)
class CodeChange:
    """One file of the run's code that the workspace no longer has as the run used it:
    ``changed`` (the workspace file differs), ``missing`` (deleted from the workspace) or
    ``unreadable`` (the run's copy is damaged: not a plain file, too long, not UTF-8)."""

    name: str
    status: str

    @property
    def file(self) -> str:
        return f"{self.name}.py"


def _run_folder(run_dir: str | os.PathLike[str]) -> Path | None:
    folder = Path(run_dir) / FOLDER
    try:
        mode = os.lstat(folder).st_mode
    except OSError:
        return None
    return folder if stat.S_ISDIR(mode) else None     # a symlinked folder is not read


def _candidates(folder: Path) -> list[os.DirEntry]:
    """Entries named ``<valid name>.py``, sorted by name; anything else is ignored."""
    try:
        with os.scandir(folder) as entries:
            found = [e for e in entries if e.name.endswith(".py")
                     and NAME_PATTERN.match(e.name[:-3])]
    except OSError:
        return []
    return sorted(found, key=lambda e: e.name)[:MAX_FILES]


def _read_bytes(path: Path, follow: bool) -> bytes:
    """At most MAX_SOURCE_BYTES of a plain file. Raises OSError or ValueError."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)      # a FIFO must not block
    flags |= 0 if follow else getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags)
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise ValueError("not a plain file")
        data = handle.read(MAX_SOURCE_BYTES + 1)
    if len(data) > MAX_SOURCE_BYTES:
        raise ValueError("too long")
    return data


def _run_copy(folder: Path, name: str) -> bytes | None:
    """The run's copy as UTF-8 bytes, or None when it cannot be trusted."""
    try:
        data = _read_bytes(folder / f"{name}.py", follow=False)
        data.decode("utf-8")
    except (OSError, ValueError):                        # UnicodeDecodeError is a ValueError
        return None
    return data


def run_code_names(run_dir: str | os.PathLike[str]) -> list[str]:
    """The file stems of the run's own code (valid names only), sorted."""
    folder = _run_folder(run_dir)
    return [e.name[:-3] for e in _candidates(folder)] if folder else []


def run_code_changes(run_dir: str | os.PathLike[str],
                     workspace_root: str | os.PathLike[str]) -> list[CodeChange]:
    """The run's code files that differ from the workspace's, sorted by name (empty when
    the run has no code or all of it is unchanged). Never raises for a damaged folder."""
    folder = _run_folder(run_dir)
    if folder is None:
        return []
    changes = []
    for entry in _candidates(folder):
        name = entry.name[:-3]
        ours = _run_copy(folder, name)
        if ours is None:
            changes.append(CodeChange(name, UNREADABLE))
            continue
        target = code_dir(workspace_root) / entry.name
        try:
            theirs = _read_bytes(target, follow=True)
        except FileNotFoundError:
            changes.append(CodeChange(name, MISSING))
            continue
        except (OSError, ValueError):
            theirs = None
        if theirs != ours:
            changes.append(CodeChange(name, CHANGED))
    return changes


def _stat_key(path: Path, follow: bool) -> tuple | None:
    try:
        s = os.stat(path, follow_symlinks=follow)
    except OSError:
        return None
    return (s.st_mode, s.st_size, s.st_mtime_ns, s.st_ino)


def run_code_stamp(run_dir: str | os.PathLike[str],
                   workspace_root: str | os.PathLike[str]) -> tuple:
    """A cheap key (names, sizes, modification times; nothing is read) that changes when
    ``run_code_changes`` may answer differently: cache that answer on it."""
    folder = _run_folder(run_dir)
    if folder is None:
        return ()
    ws = code_dir(workspace_root)
    return tuple((e.name, _stat_key(folder / e.name, False), _stat_key(ws / e.name, True))
                 for e in _candidates(folder))


def restore_run_code(run_dir: str | os.PathLike[str], workspace_root: str | os.PathLike[str],
                     names: list[str] | tuple[str, ...]) -> list[str]:
    """Write the run's copies of ``names`` back to ``<workspace>/custom/`` with
    ``save_code``; the written stems, sorted. Every file is checked first (name, size,
    syntax, a class), so nothing is written when one fails. Nothing runs; load the
    workspace afterwards to use the code.

    Raises:
        CustomCodeError: a bad name, no readable copy in the run, or a check fails.
    """
    folder = _run_folder(run_dir)
    sources = {}
    for name in sorted(set(names)):
        check_name(name)
        data = _run_copy(folder, name) if folder else None
        if data is None:
            raise CustomCodeError(key="custom.err.run_copy",
                                  params={"name": name, "limit": f"{MAX_SOURCE_BYTES:,}"})
        source = data.decode("utf-8")
        inspect_source(source, name)
        sources[name] = source
    for name, source in sources.items():
        save_code(workspace_root, name, source)
    return sorted(sources)
