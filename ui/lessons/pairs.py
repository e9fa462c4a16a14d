"""Which step each presenting window is on, for its notes window (a second browser window,
a session of its own) to follow: kept in the workspace by :mod:`tfcore.lessons.pairs`, so
the two windows may be served by different server processes (the class setup)."""

from __future__ import annotations

from tfcore.lessons import pair_step, publish_pair
from ui.common import workspace


def publish(pair: str, lesson: str, number: int) -> None:
    """The window ``pair`` is now on step ``number`` of ``lesson``."""
    publish_pair(workspace(), pair, lesson, number)


def followed(pair: str | None) -> tuple[str, int] | None:
    """The lesson and step the window ``pair`` is on, None when no such window is known
    (it never presented, or the link names none)."""
    return pair_step(workspace(), pair)
