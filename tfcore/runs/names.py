"""Checkpoint names as a run writes them: ``<ckpt_prefix>-<step>``, i.e. ``ckpt-N`` or the
tutorial's ``model.ckpt-N`` (scenario T3), for labels on the Train and Runs pages."""

from __future__ import annotations

import re
from typing import Any, Iterable, Mapping

DEFAULT_PREFIX = "ckpt"
# the same rule as TrainConfig.ckpt_prefix: a damaged run.json never reaches a label
_PREFIX = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._]{0,63}$")


def run_ckpt_prefix(request: Mapping[str, Any] | None) -> str:
    """The checkpoint prefix a run's request (``run.json``) asked for; ``ckpt`` when it
    names none or a value that is not a plain file name."""
    training = request.get("training") if isinstance(request, Mapping) else None
    prefix = training.get("ckpt_prefix") if isinstance(training, Mapping) else None
    return prefix if isinstance(prefix, str) and _PREFIX.match(prefix) else DEFAULT_PREFIX


def checkpoint_name(number: int, prefix: str = DEFAULT_PREFIX) -> str:
    """``model.ckpt-4`` for ``(4, "model.ckpt")``."""
    return f"{prefix}-{number}"


def checkpoint_names(entries: Iterable[Any]) -> dict[int, str]:
    """Number -> file name (``model.ckpt-4``) of listed checkpoint entries."""
    return {e.number: e.name for e in entries if e.number is not None}
