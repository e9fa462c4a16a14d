"""The workspace: one folder holding runs, saved models and uploads.

Every path a person types is resolved with :func:`Workspace.confine`, which refuses a
path that leaves the workspace (``..``, absolute paths elsewhere, symlinks out).
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from tfcore import settings
from tfcore.errors import WorkspaceError

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


def default_workspace() -> Workspace:
    """The workspace named by ``TFLAB_WORKSPACE``, else ``./workspace`` in the project."""
    path = settings.workspace_dir() or PROJECT_ROOT / "workspace"
    return Workspace(path.resolve())
