"""A spec's initial weights: the ``.weights.h5`` file its ``weights`` key names (the weights
an imported ``.keras`` file carried), loaded with located messages, owned by the saved spec
that names them, and no file left behind that nothing names.

Where the files live in the workspace:

* ``models/imported/<stem>-<digest>.weights.h5``: what an import saved (the digest of the
  values, so two different files of one name never overwrite each other);
* ``models/<name>.weights.h5``: the weights of the saved spec ``models/<name>.json`` (a save
  under a name copies them there; deleting or renaming the spec takes them along).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from pathlib import Path
from typing import Any, Iterable

from tfcore.errors import SpecError, TFLabError
from tfcore.model.spec import WEIGHTS_SUFFIX, ModelSpec

IMPORTED_WEIGHTS = "models/imported"
"""Workspace folder of the weights imported ``.keras`` files carried."""
PRUNE_AFTER_S = 3600.0
"""An imported weights file nothing names is removed once it is this old (a page that has
just imported one has not autosaved its draft yet)."""


def owned_weights(name: str) -> str:
    """The workspace-relative weights file of the saved spec ``name``."""
    return f"models/{name}{WEIGHTS_SUFFIX}"


def values_digest(model: Any) -> str:
    """12 hex digits of a model's weight values (equal weights, equal digest)."""
    digest = hashlib.sha256()
    for variable in model.weights:
        digest.update(variable.path.encode("utf-8"))
        digest.update(variable.numpy().tobytes())
    return digest.hexdigest()[:12]


def _first_line(exc: BaseException, path: Path, shown: str) -> str:
    text = str(exc).strip()
    first = text.splitlines()[0] if text else type(exc).__name__
    return first.replace(str(path), shown)[:300]


def load_initial_weights(model: Any, spec: ModelSpec, workspace: Any) -> Any:
    """Give a model built from ``spec`` the spec's initial weights, when it names them.

    Raises:
        SpecError: ``spec.weights_missing`` (no such file) or ``spec.weights_damaged`` (the
            file is not a weights file, or its variables do not fit the model: the reason
            Keras gave, with the file named as the spec names it).
        WorkspaceError: the path leaves the workspace.
    """
    if not spec.weights:
        return model
    path = workspace.confine(spec.weights)
    if not path.is_file():
        raise SpecError(key="spec.weights_missing",
                        params={"name": spec.name, "path": spec.weights})
    try:
        model.load_weights(str(path))
    except Exception as exc:  # noqa: BLE001 - h5py and Keras raise many kinds; all located
        raise SpecError(key="spec.weights_damaged",
                        params={"name": spec.name, "path": spec.weights,
                                "reason": _first_line(exc, path, spec.weights)}) from exc
    return model


def weights_problem(spec: ModelSpec, workspace: Any) -> TFLabError | None:
    """Why ``spec``'s initial weights cannot be used (missing, damaged, wrong shapes), or
    None when it names none or they load. Builds the model once to try them."""
    if not spec.weights:
        return None
    from tfcore.model.build import build_model

    try:
        load_initial_weights(build_model(spec), spec, workspace)
    except TFLabError as exc:
        return exc
    return None


def copy_weights_file(workspace: Any, source: str, target: str) -> None:
    """Copy a workspace weights file to ``target`` atomically (a temp file, then a rename).

    Raises:
        SpecError: ``spec.weights_missing`` when ``source`` is not a file.
    """
    src, dst = workspace.confine(source), workspace.confine(target)
    if not src.is_file():
        raise SpecError(key="spec.weights_missing", params={"name": Path(target).name,
                                                           "path": source})
    dst.parent.mkdir(parents=True, exist_ok=True)
    temp = dst.with_name(f".{dst.name}.{os.getpid()}.tmp")
    try:
        shutil.copyfile(src, temp)
        os.replace(temp, dst)
    finally:
        temp.unlink(missing_ok=True)


def _named_in(files: Iterable[Path], key: str = "weights") -> set[str]:
    """The ``weights`` values of JSON documents (``spec`` inside a run.json); unreadable
    files name nothing."""
    named: set[str] = set()
    for file in files:
        try:
            data = json.loads(file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and isinstance(data.get("spec"), dict):
            data = data["spec"]
        if isinstance(data, dict) and isinstance(data.get(key), str):
            named.add(data[key])
    return named


def _waiting_runs(root: Path) -> list[Path]:
    """run.json of the runs that have not started training yet (they load the weights when
    they start)."""
    found = []
    for status in root.glob("runs/*/status.json"):
        try:
            state = json.loads(status.read_text(encoding="utf-8")).get("state")
        except (OSError, ValueError, AttributeError):
            continue
        if state == "queued":
            found.append(status.with_name("run.json"))
    return found


def weights_in_use(workspace: Any) -> set[str]:
    """Every weights file a saved spec, an autosaved draft or a queued run names."""
    root = Path(workspace.root)
    files = [*root.glob("models/*.json"), *root.glob("drafts/*.json"), *_waiting_runs(root)]
    return _named_in(files)


def prune_imported(workspace: Any, older_than_s: float = PRUNE_AFTER_S) -> list[str]:
    """Remove the imported weights files nothing names any more (older than
    ``older_than_s``); returns their workspace-relative paths."""
    folder = Path(workspace.root) / IMPORTED_WEIGHTS
    if not folder.is_dir():
        return []
    used, now, removed = weights_in_use(workspace), time.time(), []
    for file in sorted(folder.glob(f"*{WEIGHTS_SUFFIX}")):
        relative = f"{IMPORTED_WEIGHTS}/{file.name}"
        try:
            old = now - file.stat().st_mtime >= older_than_s
        except OSError:
            continue
        if relative not in used and old:
            file.unlink(missing_ok=True)
            removed.append(relative)
    return removed


def open_checked(spec: ModelSpec, workspace: Any) -> tuple[ModelSpec, TFLabError | None]:
    """``spec`` as it can be opened: unchanged, or, when its initial weights are missing or
    do not fit, without them (an architecture) together with the reason."""
    from dataclasses import replace

    problem = weights_problem(spec, workspace)
    return (replace(spec, weights=""), problem) if problem else (spec, None)
