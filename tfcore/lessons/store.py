"""Where lessons live: the ones shipped with TF Lab (``lessons/`` in the project) and the
workspace's own (``<workspace>/lessons/<name>.json``), listed side by side.

A workspace lesson with a shipped lesson's name takes its place (the teacher's copy wins).
Reading never raises for a bad file: each entry carries its located problems, so one
damaged lesson is listed with what is wrong and breaks nothing else.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from tfcore.errors import LessonError, WorkspaceError
from tfcore.lessons.format import NAME, Lesson, LessonProblem, parse_lesson
from tfcore.messages import names
from tfcore.workspace import PROJECT_ROOT, Workspace

SHIPPED_DIR = PROJECT_ROOT / "lessons"
LESSONS_FOLDER = "lessons"            # under the workspace
MAX_BYTES = 1_000_000
SHIPPED, WORKSPACE = "shipped", "workspace"


@dataclass(frozen=True)
class LessonEntry:
    """One lesson file: its name, where it comes from (``shipped`` or ``workspace``), its
    path, the lesson when it is sound, else its problems."""

    name: str
    origin: str
    path: Path
    lesson: Lesson | None
    problems: tuple[LessonProblem, ...] = ()

    @property
    def ok(self) -> bool:
        return self.lesson is not None


def _problem(file: str, reason: str, value: str = "", limit: str = "") -> LessonProblem:
    return LessonProblem(file, None, "", reason, value, limit)


def load_file(path: Path) -> tuple[Any, LessonProblem | None]:
    """The JSON value of a lesson file, or None and its problem (unreadable, too large,
    not UTF-8, not JSON)."""
    file = Path(path).name
    try:
        size = Path(path).stat().st_size
        if size > MAX_BYTES:
            return None, _problem(file, "big", str(size), str(MAX_BYTES))
        raw = Path(path).read_bytes()
    except OSError as exc:
        return None, _problem(file, "unreadable", limit=type(exc).__name__)
    return load_bytes(raw, file)


def load_bytes(raw: bytes, file: str) -> tuple[Any, LessonProblem | None]:
    """The JSON value of a lesson file's bytes (``file`` names it in the problem), or None
    and its problem (too large, not UTF-8, not JSON)."""
    if len(raw) > MAX_BYTES:
        return None, _problem(file, "big", str(len(raw)), str(MAX_BYTES))
    try:
        return json.loads(raw.decode("utf-8")), None
    except UnicodeDecodeError:
        return None, _problem(file, "binary")
    except json.JSONDecodeError as exc:
        return None, _problem(file, "json_at", str(exc.lineno), str(exc.colno))
    except RecursionError:
        return None, _problem(file, "deep")
    except ValueError as exc:                      # a 5,000-digit number
        return None, _problem(file, "json", limit=str(exc)[:80])


def read_lesson(path: Path, origin: str = WORKSPACE) -> LessonEntry:
    """Read and check one lesson file (its name is the file's stem); a file unchanged since
    its last read (same inode, size and modification time) is not read again."""
    path = Path(path)
    try:
        stat = path.stat()
        stamp = (stat.st_ino, stat.st_mtime_ns, stat.st_size)
    except OSError:
        stamp = None
    if stamp is None:
        return _read(path, origin)
    return _read_cached(path, origin, stamp)


@lru_cache(maxsize=256)
def _read_cached(path: Path, origin: str, stamp: tuple[int, int, int]) -> LessonEntry:
    return _read(path, origin)


def forget_reads() -> None:
    """Read every lesson file again (called after this process wrote one: two writes within
    the clock's tick can leave the same size and time)."""
    _read_cached.cache_clear()


def _read(path: Path, origin: str) -> LessonEntry:
    data, problem = load_file(path)
    if problem is not None:
        return LessonEntry(path.stem, origin, path, None, (problem,))
    lesson, problems = parse_lesson(path.stem, data, path.name)
    return LessonEntry(path.stem, origin, path, lesson, problems)


def lessons_dir(workspace: Workspace) -> Path:
    """The workspace's lesson folder (it may not exist yet)."""
    return workspace.root / LESSONS_FOLDER


def _workspace_entry(workspace: Workspace, path: Path) -> LessonEntry:
    try:
        workspace.confine(path)            # a link that leads out of the workspace
    except WorkspaceError:
        return LessonEntry(path.stem, WORKSPACE, path, None, (_problem(path.name, "outside"),))
    return read_lesson(path, WORKSPACE)


def _workspace_entries(workspace: Workspace) -> list[LessonEntry]:
    folder = lessons_dir(workspace)
    if not folder.is_dir():
        return []
    return [_workspace_entry(workspace, path) for path in sorted(folder.glob("*.json"))]


def list_lessons(workspace: Workspace, shipped: Path = SHIPPED_DIR) -> list[LessonEntry]:
    """Every lesson: the shipped ones, then the workspace's, by name within each; a
    workspace lesson named like a shipped one replaces it."""
    own = _workspace_entries(workspace)
    taken = {entry.name for entry in own}
    ours = [read_lesson(path, SHIPPED) for path in sorted(Path(shipped).glob("*.json"))
            if path.stem not in taken] if Path(shipped).is_dir() else []
    return ours + own


def find_lesson(workspace: Workspace, name: str, shipped: Path = SHIPPED_DIR) -> LessonEntry:
    """The lesson called ``name`` (sound or not).

    Raises:
        LessonError: no lesson has that name (the message lists the known ones).
    """
    if isinstance(name, str) and NAME.match(name):
        own = lessons_dir(workspace) / f"{name}.json"
        if own.is_file():
            return _workspace_entry(workspace, own)
        if (Path(shipped) / f"{name}.json").is_file():
            return read_lesson(Path(shipped) / f"{name}.json", SHIPPED)
    known = [entry.name for entry in list_lessons(workspace, shipped)]
    raise LessonError(key="lessons.err.unknown",
                      params={"name": str(name)[:64], "names": names(known or ["-"])})
