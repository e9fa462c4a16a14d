"""Checking and shaping the arrays of an uploaded NPZ file."""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Callable

import numpy as np

from tfcore.data.base import RawData
from tfcore.data.limits import MAX_ARRAY_BYTES, check_members, limit_mb, mb
from tfcore.errors import DatasetError
from tfcore.messages import Names

PAIRS = (("x_train", "y_train"), ("x_val", "y_val"), ("x_test", "y_test"))


def _header(arg: str, archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> tuple[tuple, np.dtype]:
    """Shape and dtype from one member's ``.npy`` header (reads a few hundred bytes)."""
    try:
        with archive.open(info) as handle:
            version = np.lib.format.read_magic(handle)
            reader = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                      else np.lib.format.read_array_header_2_0)
            shape, _, dtype = reader(handle)
    except Exception as exc:  # noqa: BLE001 - a member that is not an array is damage
        raise DatasetError(key="data.err.npz_read",
                           params={"path": arg, "error": f"{info.filename}: not a NumPy array"}
                           ) from exc
    return tuple(shape), dtype


def check_npz(arg: str, path: Path) -> None:
    """Refuse an NPZ from its directory and array headers, before any array is read:
    declared sizes and ratios (zip bombs), arrays whose float32 copies would exceed
    ``MAX_ARRAY_BYTES``, headers that promise more data than the member holds.

    Raises:
        DatasetError: with the member, the value and the limit.
    """
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise DatasetError(key="data.err.npz_read",
                           params={"path": arg, "error": "not an .npz archive"}) from exc
    with archive:
        infos = archive.infolist()
        check_members(arg, infos, path.stat().st_size, MAX_ARRAY_BYTES // 2)
        need = 0
        for info in infos:
            shape, dtype = _header(arg, archive, info)
            count = int(np.prod(shape, dtype=object)) if shape else 1
            if not dtype.hasobject and count * dtype.itemsize > info.file_size:
                raise DatasetError(
                    key="data.err.npz_read",
                    params={"path": arg, "error": f"{info.filename}: shape {shape} does not "
                            "match its size"})
            need += count * 4
            if need > MAX_ARRAY_BYTES:
                raise DatasetError(
                    key="data.err.too_big",
                    params={"name": f"{arg}: {info.filename}", "mb": mb(need),
                            "limit": limit_mb(MAX_ARRAY_BYTES)})


def _features(arg: str, key: str, x: np.ndarray) -> np.ndarray:
    if not (np.issubdtype(x.dtype, np.number) or x.dtype == bool):
        raise DatasetError(key="data.err.npz_dtype",
                           params={"path": arg, "array": key, "dtype": str(x.dtype)})
    if x.ndim == 0 or x.ndim > 4 or len(x) == 0:
        raise DatasetError(
            key="data.err.npz_shape",
            params={"path": arg, "array": key, "shape": str(x.shape)})
    scaled = x.astype(np.float32) / 255.0 if x.dtype == np.uint8 else x.astype(np.float32)
    if not np.isfinite(scaled).all():
        raise DatasetError(key="data.err.npz_nan", params={"path": arg, "array": key})
    if scaled.ndim == 1:
        return scaled[:, None]
    if scaled.ndim == 3:
        return scaled[..., None]
    return scaled


def npz_raw(arg: str, arrays: dict[str, np.ndarray], task: str,
            labels: Callable[[str, np.ndarray, str], tuple]) -> RawData:
    """RawData from an NPZ's arrays (``labels`` turns targets into ids and classes).

    Raises:
        DatasetError: missing keys, mismatched lengths, non-numeric or empty arrays.
    """
    if "x" in arrays and "y" in arrays:
        pairs = {"train": ("x", "y")}
    elif "x_train" in arrays and "y_train" in arrays:
        pairs = {p[0][2:]: p for p in PAIRS if p[0] in arrays and p[1] in arrays}
    else:
        raise DatasetError(
            key="data.err.npz_keys",
            params={"path": arg, "keys": Names(sorted(arrays)) or "-"})
    xs, ys = {}, {}
    for split, (xk, yk) in pairs.items():
        x, y = _features(arg, xk, arrays[xk]), np.asarray(arrays[yk])
        if y.ndim == 2 and y.shape[1] == 1:
            y = y[:, 0]
        if y.ndim != 1 or len(y) != len(x):
            raise DatasetError(
                key="data.err.npz_lengths",
                params={"path": arg, "x": xk, "y": yk, "nx": len(x), "ny": len(y)})
        xs[split], ys[split] = x, y
    shapes = {x.shape[1:] for x in xs.values()}
    if len(shapes) > 1:
        raise DatasetError(key="data.err.npz_shape",
                           params={"path": arg, "array": "x", "shape": str(shapes)})
    # label ids are computed over all splits together so the classes agree
    order = list(ys)
    if task == "auto" and all(np.issubdtype(y.dtype, np.floating) for y in ys.values()):
        task = "regression"
    joined, task, class_names = labels(arg, np.concatenate([ys[s] for s in order]), task)
    if task == "classification" and "class_names" in arrays:
        given = tuple(str(v) for v in np.asarray(arrays["class_names"]).ravel())
        if len(given) == len(class_names):
            class_names = given
    bounds = np.cumsum([0] + [len(ys[s]) for s in order])
    parts = {s: joined[bounds[i]:bounds[i + 1]] for i, s in enumerate(order)}
    x = xs["train"]
    kind = "image" if x.ndim == 4 else ("points" if x.shape[1] == 2 else "table")
    names = () if kind == "image" else tuple(f"x{i}" for i in range(x.shape[1]))
    return RawData(x, parts["train"], task, kind, class_names, names,
                   x_val=xs.get("val"), y_val=parts.get("val"),
                   x_test=xs.get("test"), y_test=parts.get("test"))
