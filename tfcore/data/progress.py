"""How far a long read has got, for whoever listens (a decode child writes it to its job
folder: ``tfcore.data.offload``). Readers call :func:`report`; nothing listens elsewhere."""

from __future__ import annotations

from typing import Callable

_listener: Callable[[int, int, str], None] | None = None


def listen(listener: Callable[[int, int, str], None] | None) -> None:
    """Send every later report to ``listener`` (None: to nobody)."""
    global _listener
    _listener = listener


def report(done: int, total: int, unit: str) -> None:
    """A reader's progress: ``done`` of ``total`` ``unit`` (e.g. images decoded)."""
    if _listener is not None:
        _listener(done, total, unit)
