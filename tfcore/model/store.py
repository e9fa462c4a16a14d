"""Named model specs saved in the workspace (``<workspace>/models/<name>.json``)."""

from __future__ import annotations

import re
from pathlib import Path

from tfcore.errors import WorkspaceError
from tfcore.jsonio import atomic_write_json
from tfcore.model.spec import ModelSpec, from_json
from tfcore.workspace import Workspace

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def _path(ws: Workspace, name: str) -> Path:
    if not _NAME.match(name or "") or ".." in name:
        raise WorkspaceError(
            key="errors.model_name", params={"name": name})
    return ws.confine(Path("models") / f"{name}.json")


def save_spec(ws: Workspace, name: str, spec: ModelSpec) -> Path:
    """Save a spec under a name (replacing an older one atomically); the saved model is
    called by that name (its runs too), not by the builder's ``my_model``."""
    path = _path(ws, name)
    atomic_write_json(path, {**spec.to_dict(), "name": name})
    return path


def list_specs(ws: Workspace) -> list[str]:
    """Names of saved specs, sorted."""
    if not ws.models.is_dir():
        return []
    return sorted(p.stem for p in ws.models.glob("*.json"))


def load_spec(ws: Workspace, name: str) -> ModelSpec:
    """Load a saved spec.

    Raises:
        WorkspaceError: bad name or no such model.
        SpecError: the file is not a valid spec.
    """
    path = _path(ws, name)
    if not path.is_file():
        raise WorkspaceError(key="errors.model_missing",
                             params={"name": name})
    return from_json(path.read_text(encoding="utf-8"))
