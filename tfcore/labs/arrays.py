"""Save tensors, lists and dicts of tensors as ``.npy``/``.npz`` in the workspace (T5).

Loading always uses ``allow_pickle=False``: a pickled (object) array from someone else can
run arbitrary code when unpickled, so such files are refused, and so is saving one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from tfcore.errors import TFLabError
from tfcore.workspace import Workspace

FOLDER = "arrays"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,79}$")


class ArraysError(TFLabError):
    """An array cannot be saved or loaded safely."""

    default_key = "foundations.err.arrays"


@dataclass(frozen=True)
class SavedArrays:
    """What a file holds: its workspace-relative path, kind and each array's shape/dtype."""

    path: Path
    relative: str
    kind: str  # "tensor" | "list" | "dict"
    entries: Mapping[str, tuple[tuple[int, ...], str]]


def _plain(value: Any, where: str) -> np.ndarray:
    array = np.asarray(value.numpy() if hasattr(value, "numpy") else value)
    if array.dtype.hasobject:
        raise ArraysError(
            key="foundations.err.object_array", params={"where": where})
    return array


def _target(ws: Workspace, name: str, suffix: str) -> Path:
    if not _NAME.match(name or ""):
        raise ArraysError(key="foundations.err.array_name",
                          params={"name": name})
    stem = name[: -len(suffix)] if name.endswith(suffix) else name
    return ws.confine(f"exports/{FOLDER}/{stem}{suffix}")


def save_arrays(ws: Workspace, name: str, data: Any) -> SavedArrays:
    """Save a tensor (``.npy``), a list or a dict of tensors (``.npz``) under exports/arrays.

    Raises:
        ArraysError: an object array, an empty list/dict, or a bad file name.
    """
    if isinstance(data, Mapping):
        kind = "dict"
        arrays = {str(k): _plain(v, f"data[{str(k)!r}]") for k, v in data.items()}
    elif isinstance(data, (list, tuple)):
        kind = "list"
        arrays = {f"arr_{i}": _plain(v, f"data[{i}]") for i, v in enumerate(data)}
    else:
        kind = "tensor"
        arrays = {"array": _plain(data, "data")}
    if not arrays:
        raise ArraysError(key="foundations.err.array_empty", params={"kind": kind})
    path = _target(ws, name, ".npy" if kind == "tensor" else ".npz")
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "tensor":
        np.save(path, arrays["array"], allow_pickle=False)
    else:
        np.savez(path, **{"__kind__": np.array(kind)}, **arrays)
    return describe(ws, path.relative_to(ws.root.resolve()).as_posix())


def _open(ws: Workspace, relative: str) -> tuple[Path, Any]:
    path = ws.confine(relative)
    if not path.is_file():
        raise ArraysError(key="foundations.err.array_missing", params={"path": relative})
    with open(path, "rb") as handle:
        magic = handle.read(6)
    if magic != b"\x93NUMPY" and magic[:4] not in (b"PK\x03\x04", b"PK\x05\x06"):
        # np.load would try pickle on anything else and call garbage "pickled data"
        raise ArraysError(key="foundations.err.array_format", params={"path": relative})
    try:
        return path, np.load(path, allow_pickle=False)
    except ValueError as exc:
        if "pickle" in str(exc).lower():
            raise ArraysError(
                key="foundations.err.array_pickle", params={"path": relative}) from None
        raise ArraysError(key="foundations.err.array_format", params={"path": relative}) \
            from None
    except OSError as exc:
        raise ArraysError(key="foundations.err.array_format", params={"path": relative}) \
            from None


def load_arrays(ws: Workspace, relative: str) -> Any:
    """Load what :func:`save_arrays` wrote: an array, a list of arrays or a dict of arrays.

    Raises:
        ArraysError: missing file, not NumPy data, or pickled content.
    """
    path, loaded = _open(ws, relative)
    if isinstance(loaded, np.ndarray):
        return loaded
    with loaded as npz:
        try:
            kind = str(npz["__kind__"]) if "__kind__" in npz.files else "dict"
            items = {k: npz[k] for k in npz.files if k != "__kind__"}
        except ValueError:
            raise ArraysError(key="foundations.err.array_pickle",
                              params={"path": relative}) from None
    if kind == "list":
        return [items[f"arr_{i}"] for i in range(len(items))]
    return items


def describe(ws: Workspace, relative: str) -> SavedArrays:
    """Kind and per-entry shape/dtype of a saved file, without keeping the data."""
    data = load_arrays(ws, relative)
    if isinstance(data, np.ndarray):
        kind, entries = "tensor", {"array": data}
    elif isinstance(data, list):
        kind, entries = "list", {f"[{i}]": a for i, a in enumerate(data)}
    else:
        kind, entries = "dict", data
    path = ws.confine(relative)
    return SavedArrays(path=path, relative=relative, kind=kind,
                       entries={k: (tuple(a.shape), a.dtype.name) for k, a in entries.items()})


def list_saved(ws: Workspace) -> list[str]:
    """Workspace-relative paths of the saved ``.npy``/``.npz`` files, newest first."""
    folder = ws.root / "exports" / FOLDER
    if not folder.is_dir():
        return []
    files = [p for p in folder.iterdir() if p.suffix in (".npy", ".npz") and p.is_file()]
    files.sort(key=lambda p: p.stat().st_mtime, reverse=True)
    return [p.relative_to(ws.root).as_posix() for p in files]

