"""Instances of user-written losses and metrics for training (the fit loop)."""

from __future__ import annotations

import inspect
from typing import Any

from tfcore.custom.loader import current


def _accepts(cls: Any, name: str) -> bool:
    try:
        params = inspect.signature(cls.__init__).parameters
    except (TypeError, ValueError):
        return False
    return name in params or any(p.kind == p.VAR_KEYWORD for p in params.values())


def loss_names() -> list[str]:
    return sorted(current().of_kind("loss"))


def metric_names() -> list[str]:
    return sorted(current().of_kind("metric"))


def make_custom_loss(name: str, reduction: Any = "sum_over_batch_size") -> Any:
    """An instance of the loaded loss class ``name`` (with ``reduction`` if it takes one)."""
    cls = current().of_kind("loss")[name].cls
    return cls(reduction=reduction) if _accepts(cls, "reduction") else cls()


def make_custom_metric(name: str) -> Any:
    """An instance of the loaded metric class ``name``; it is named ``name`` in the logs
    when its constructor takes a name."""
    cls = current().of_kind("metric")[name].cls
    return cls(name=name) if _accepts(cls, "name") else cls()
