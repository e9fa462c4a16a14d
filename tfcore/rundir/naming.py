"""Run names a person reads (the Train picker, the Runs table, TensorBoard, the command
line): called after the model or the name typed before Start, unique in the runs folder
(``lesson_net``, ``lesson_net 2``, ...)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, Mapping

MAX_NAME = 120          # meta.json's limit for a run name


def unique_run_name(base: str, taken: Iterable[str]) -> str:
    """``base`` when no run has that name, else ``base 2``, ``base 3``, ... (the first free)."""
    base = " ".join(str(base).split())[:MAX_NAME - 8] or "run"
    used = set(taken)
    name, number = base, 1
    while name in used:
        number += 1
        name = f"{base} {number}"
    return name


def run_name_base(request: Mapping[str, Any]) -> str:
    """The name a new run is called after: the one asked for, else its model's name."""
    spec = request.get("spec")
    model = spec.get("name") if isinstance(spec, Mapping) else None
    return str(request.get("name") or model or "run")


def run_names(runs_root: Path) -> set[str]:
    """The display names of every run in ``runs_root``."""
    from tfcore.rundir.store import RunStore

    root = Path(runs_root)
    return {record.name for record in RunStore(root).list()} if root.is_dir() else set()
