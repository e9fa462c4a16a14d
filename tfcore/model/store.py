"""Named model specs saved in the workspace (``<workspace>/models/<name>.json``); a spec
with initial weights owns ``models/<name>.weights.h5``, which follows it (save under another
name: copied; delete: removed; rename: moved)."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from tfcore.errors import WorkspaceError
from tfcore.jsonio import atomic_write_json
from tfcore.model.initial_weights import copy_weights_file, owned_weights, prune_imported
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
    called by that name (its runs too), not by the builder's ``my_model``. Its initial
    weights are copied to ``models/<name>.weights.h5``, which the saved spec names; a
    spec without them removes that file of an older spec of the name.

    Raises:
        WorkspaceError: a bad name. SpecError: the weights file the spec names is missing.
    """
    path = _path(ws, name)
    own = owned_weights(name)
    if spec.weights and spec.weights != own:
        copy_weights_file(ws, spec.weights, own)
    atomic_write_json(path, {**replace(spec, weights=own if spec.weights else "").to_dict(),
                             "name": name})
    if not spec.weights:
        ws.confine(own).unlink(missing_ok=True)
    return path


def list_specs(ws: Workspace) -> list[str]:
    """Names of saved specs, sorted."""
    if not ws.models.is_dir():
        return []
    return sorted(p.stem for p in ws.models.glob("*.json") if p.is_file())


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


def delete_spec(ws: Workspace, name: str) -> None:
    """Delete a saved spec and the weights it owns; imported weights nothing names any
    more are removed too.

    Raises:
        WorkspaceError: bad name or no such model.
    """
    path = _path(ws, name)
    if not path.is_file():
        raise WorkspaceError(key="errors.model_missing", params={"name": name})
    path.unlink()
    ws.confine(owned_weights(name)).unlink(missing_ok=True)
    prune_imported(ws)


def rename_spec(ws: Workspace, name: str, new: str) -> Path:
    """Save the spec ``name`` as ``new`` (its weights move along) and delete the old one.

    Raises:
        WorkspaceError: a bad name, no such model, or ``new`` is already taken.
        SpecError: the saved file is not a valid spec.
    """
    if _path(ws, new).exists():
        raise WorkspaceError(key="errors.model_exists", params={"name": new})
    path = save_spec(ws, new, replace(load_spec(ws, name), name=new))
    delete_spec(ws, name)
    return path
