"""The workspace: one folder holding runs, saved models and uploads.

Every path a person types is resolved with :func:`Workspace.confine`, which refuses a
path that leaves the workspace (``..``, absolute paths elsewhere, symlinks out).
"""

from __future__ import annotations

import os
import shutil
import stat
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import BinaryIO

from tfcore import settings
from tfcore.errors import WorkspaceError
from tfcore.messages import Text

MAX_PATH_CHARS = 1024  # a typed path; each name at most 255 bytes (the file system's limit)
PROJECT_ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class DiskUsage:
    """Free and total bytes of the disk that holds a folder."""

    total: int
    free: int


@dataclass(frozen=True)
class Workspace:
    """The workspace folders; created on first use."""

    root: Path

    @property
    def runs(self) -> Path:
        return self.root / "runs"

    @property
    def models(self) -> Path:
        return self.root / "models"

    @property
    def uploads(self) -> Path:
        return self.root / "uploads"

    @property
    def exports(self) -> Path:
        return self.root / "exports"

    def ensure(self) -> "Workspace":
        """Create the workspace folders if missing and return self."""
        for folder in (self.runs, self.models, self.uploads, self.exports):
            folder.mkdir(parents=True, exist_ok=True)
        return self

    def confine(self, user_path: str | os.PathLike[str]) -> Path:
        """Resolve a typed path relative to the workspace; refuse one that leaves it.

        Raises:
            WorkspaceError: the path is empty or resolves outside the workspace.
        """
        text = str(user_path).strip()
        if not text or "\x00" in text:
            raise WorkspaceError(key="errors.path_empty", params={"path": text})
        longest = max((len(p.encode("utf-8", "replace")) for p in text.split(os.sep)),
                      default=0)
        if len(text) > MAX_PATH_CHARS or longest > 255:
            raise WorkspaceError(key="errors.path_too_long",
                                 params={"path": text[:40] + "...", "length": len(text),
                                         "limit": MAX_PATH_CHARS})
        root = self.root.resolve()
        candidate = Path(text)
        if not candidate.is_absolute():
            candidate = root / candidate
        resolved = candidate.resolve()
        if resolved != root and root not in resolved.parents:
            raise WorkspaceError(key="errors.path_outside",
                                 params={"path": text, "root": str(root)})
        return resolved

    def disk_usage(self) -> DiskUsage:
        """Free and total bytes of the disk holding the workspace."""
        self.root.mkdir(parents=True, exist_ok=True)
        usage = shutil.disk_usage(self.root)
        return DiskUsage(total=usage.total, free=usage.free)


# ------------------------------------------------------------------ regular files only ---

NOT_REGULAR = ("fifo", "device", "socket", "folder", "outside", "missing", "other")


def file_kind(path: str | os.PathLike[str], within: str | os.PathLike[str] | None = None
              ) -> str | None:
    """Why ``path`` must not be opened as a file, found without opening it: ``fifo`` (a
    read would wait forever), ``device``, ``socket``, ``folder``, ``outside`` (a link
    leading out of ``within``), ``missing``, ``other``; ``None`` for a regular file.

    Every reader of a run, checkpoint or upload file asks this first (one ``stat``)."""
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return "missing"
    except OSError:
        return "other"
    if within is not None:
        try:
            real, root = Path(path).resolve(), Path(within).resolve()
        except (OSError, RuntimeError):
            return "outside"
        if real != root and root not in real.parents:
            return "outside"
    if stat.S_ISREG(st.st_mode):
        return None
    if stat.S_ISFIFO(st.st_mode):
        return "fifo"
    if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode):
        return "device"
    if stat.S_ISSOCK(st.st_mode):
        return "socket"
    return "folder" if stat.S_ISDIR(st.st_mode) else "other"


def not_regular_error(shown: str, kind: str) -> WorkspaceError:
    """The located refusal of a file that is not a regular one (``files.not_regular``)."""
    return WorkspaceError(key="files.not_regular",
                          params={"path": shown, "kind": Text(f"files.kind.{kind}")})


def check_regular(path: str | os.PathLike[str], shown: str | None = None,
                  within: str | os.PathLike[str] | None = None) -> None:
    """Refuse, before opening it, a path that is not a regular file inside ``within``.

    Raises:
        WorkspaceError: ``files.not_regular`` naming ``shown`` (default: the file's name)
            and what it is.
    """
    kind = file_kind(path, within)
    if kind is not None:
        raise not_regular_error(shown or Path(path).name, kind)


def open_regular(path: str | os.PathLike[str], shown: str | None = None,
                 within: str | os.PathLike[str] | None = None) -> BinaryIO:
    """Open a regular file for reading in binary; what is not one is refused without a
    wait (the open never blocks on a FIFO, and the opened file is checked again).

    Raises:
        WorkspaceError: ``files.not_regular``.
    """
    check_regular(path, shown, within)
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):     # replaced between stat and open
            raise not_regular_error(shown or Path(path).name, "other")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def default_workspace() -> Workspace:
    """The workspace named by ``TFLAB_WORKSPACE``, else ``./workspace`` in the project."""
    path = settings.workspace_dir() or PROJECT_ROOT / "workspace"
    return Workspace(_resolved(str(path)))


@lru_cache(maxsize=16)
def _resolved(path: str) -> Path:
    """``Path(path).resolve()``, once per name: every page run of every session asks for
    the workspace, and a resolve is a system call per path part (a profile of 30 sessions
    found it among the server's hot spots)."""
    return Path(path).resolve()
