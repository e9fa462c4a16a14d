"""Which step each presenting window is on, for its notes window (a second browser window,
a session of its own) to follow.

Kept in the workspace, one small file per presenting window
(``classroom/pairs/<pair>.json``: lesson and step), so a notes window follows its
projector's window whichever server process serves each of them (the class setup runs
several). A file is written only when its step changes; files untouched for
:data:`PAIR_TTL` seconds are deleted when a new window starts presenting. Every read is
checked: a damaged or foreign file means "no such window".
"""

from __future__ import annotations

from pathlib import Path

from tfcore.jsonio import atomic_write_json
from tfcore.lessons.follow import TOKEN, _is_int, _load, classroom_dir, prune_older
from tfcore.lessons.format import NAME
from tfcore.workspace import Workspace

PAIRS = "pairs"
PAIR_TTL = 8 * 3600.0              # a presenting window idle this long is over


def pairs_dir(workspace: Workspace) -> Path:
    return classroom_dir(workspace) / PAIRS


def _valid(pair: object) -> bool:
    return isinstance(pair, str) and TOKEN.match(pair) is not None


def _read(path: Path) -> tuple[str, int] | None:
    data, _ = _load(path)
    if not isinstance(data, dict) or set(data) != {"lesson", "step"}:
        return None
    lesson, step = data["lesson"], data["step"]
    if not isinstance(lesson, str) or not NAME.match(lesson) or not _is_int(step) \
            or step < 1:
        return None
    return lesson, step


def publish_pair(workspace: Workspace, pair: str, lesson: str, number: int) -> None:
    """The window ``pair`` is now on step ``number`` of ``lesson`` (nothing is written when
    that is already recorded; an id or a name that is not one is ignored)."""
    if not _valid(pair) or not isinstance(lesson, str) or not NAME.match(lesson) \
            or not _is_int(number) or number < 1:
        return
    path = pairs_dir(workspace) / f"{pair}.json"
    known = path.exists()
    if known and _read(path) == (lesson, number):
        return
    if not known:
        prune_pairs(workspace)
    atomic_write_json(path, {"lesson": lesson, "step": number}, sync=False)


def pair_step(workspace: Workspace, pair: str | None) -> tuple[str, int] | None:
    """The lesson and step the window ``pair`` is on, None when no such window is known
    (never presented, gone idle, or a link that names none)."""
    if not _valid(pair):
        return None
    return _read(pairs_dir(workspace) / f"{pair}.json")


def prune_pairs(workspace: Workspace, now: float | None = None) -> int:
    """Delete the records of windows idle for :data:`PAIR_TTL`; returns how many went."""
    return prune_older(pairs_dir(workspace), PAIR_TTL, now)
