"""Uploaded datasets in ``workspace/uploads``: CSV tables, NPZ arrays, image folders/zips.

Names: ``upload:csv:<file>``, ``upload:npz:<file>``, ``upload:images:<zip or folder>``;
``<file>`` is relative to the uploads folder and confined to it. Nothing is unpickled.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from tfcore import settings
from tfcore.data import sources as registry
from tfcore.data.base import RawData
from tfcore.data.limits import MAX_FILE_BYTES, MAX_NAME_CHARS, check_path_text
from tfcore.data.limits import too_big as _too_big
from tfcore.data.options import bool_option, check_known, str_option
from tfcore.errors import DatasetError, WorkspaceError
from tfcore.messages import Names, Text
from tfcore.workspace import Workspace, default_workspace

MAX_HEADER_BYTES = 2**20              # the first line of a CSV
MAX_CATEGORIES = 50                   # distinct values of one categorical CSV column
MAX_CLASSES_AUTO = 20                 # integer targets with at most this many values classify
KINDS = {"csv": (".csv", ".txt"), "npz": (".npz",), "images": (".zip", "")}
CSV_OPTIONS = ("target", "features", "task", "normalize")
NPZ_OPTIONS = ("task",)
TASKS = ("auto", "classification", "regression")
_SAFE = re.compile(r"[^\w.-]+")          # \w keeps letters of every script (CJK too)
_SUFFIXES = tuple(dict.fromkeys(s.lstrip(".") for exts in KINDS.values() for s in exts if s))


def uploads_path(arg: str, workspace: Workspace | None = None) -> Path:
    """The confined path of an uploads entry.

    Raises:
        DatasetError: the path is too long, leaves the uploads folder or does not exist.
    """
    check_path_text(arg)
    ws = (workspace or default_workspace()).ensure()
    try:
        path = ws.confine(Path("uploads") / arg.strip()) if arg.strip() else None
    except WorkspaceError as exc:
        raise DatasetError(key="data.err.upload_path", params={"path": arg}) from exc
    uploads = ws.uploads.resolve()
    if path is None or path == uploads or uploads not in path.parents:
        raise DatasetError(key="data.err.upload_path", params={"path": arg})
    if not path.exists():
        raise DatasetError(key="data.err.upload_missing", params={"path": arg})
    return path


def safe_filename(name: str) -> str:
    """A plain, readable file name for a person's upload: no folders, no control or odd
    characters (letters of any script stay, Chinese ones too), a known extension, a stem of at
    most ``MAX_NAME_CHARS`` characters (``upload`` when nothing usable is left).

    Raises:
        DatasetError: ``data.err.upload_kind`` when the name has no known extension.
    """
    base = str(name).replace("\\", "/").replace("\x00", "_").rsplit("/", 1)[-1].strip()
    stem, dot, suffix = base.rpartition(".")
    suffix = suffix.lower()
    if not dot or suffix not in _SUFFIXES:
        shown = base[:60] + ("..." if len(base) > 60 else "")
        raise DatasetError(
            key="data.err.upload_kind",
            params={"name": shown, "allowed": Names(_SUFFIXES)})
    cleaned = _SAFE.sub("_", stem).strip("._-")[:MAX_NAME_CHARS].rstrip("._-")
    return f"{cleaned or 'upload'}.{suffix}"


def _free_name(folder: Path, name: str, data: bytes) -> str:
    """``name`` if free or already holding these bytes, else ``stem-2.ext``, ``stem-3.ext``..."""
    stem, _, suffix = name.rpartition(".")
    for n in range(1, 10_000):
        candidate = name if n == 1 else f"{stem}-{n}.{suffix}"
        path = folder / candidate
        if not path.exists():
            return candidate
        if path.is_file() and path.stat().st_size == len(data) and path.read_bytes() == data:
            return candidate
    raise DatasetError(key="data.err.upload_name", params={"name": name})


def save_upload(data: bytes, filename: str, workspace: Workspace | None = None) -> str:
    """Write uploaded bytes into the uploads folder; return the stored file name.

    A file is never replaced: the same bytes uploaded again keep their name, other bytes
    whose sanitized name is taken get ``<stem>-2.<ext>`` (``-3``, ...).

    Raises:
        DatasetError: too large, or a name without a known extension.
    """
    if len(data) > MAX_FILE_BYTES:
        raise _too_big(str(filename)[:100], len(data), MAX_FILE_BYTES)
    ws = (workspace or default_workspace()).ensure()
    name = _free_name(ws.uploads, safe_filename(filename), data)
    target = ws.confine(Path("uploads") / name)
    if target.exists():
        return name
    tmp = target.with_name(f".{target.name}.part")
    tmp.write_bytes(data)
    tmp.replace(target)
    return name


def list_uploads(kind: str, workspace: Workspace | None = None) -> list[str]:
    """Uploaded entries usable as ``kind`` ("csv", "npz", "images"), sorted."""
    ws = (workspace or default_workspace()).ensure()
    found = []
    for path in sorted(ws.uploads.iterdir()):
        if path.name.startswith(".") or path.name.endswith(".part"):
            continue
        if kind == "images" and path.is_dir() and not path.is_symlink():
            found.append(path.name)
        elif path.is_file() and path.suffix.lower() in KINDS[kind] and path.suffix:
            found.append(path.name)
    return found


def csv_columns(arg: str) -> list[str]:
    """Column names of an uploaded CSV (reads the header only).

    Raises:
        DatasetError: missing, too large or unreadable file.
    """
    import pandas as pd

    path = uploads_path(arg)
    _check_file(path, arg)
    check_csv_shape(path, arg)
    try:
        return [str(c) for c in pd.read_csv(path, nrows=5).columns]
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError,
            ValueError) as exc:
        raise DatasetError(key="data.err.csv_read",
                           params={"path": arg, "error": str(exc)[:200]}) from exc


def _fingerprint(arg: str, options: Mapping[str, Any]) -> str:
    """Size and modification time, so a replaced upload is loaded again."""
    try:
        path = uploads_path(arg)
    except DatasetError:
        return "missing"
    stat = path.stat()
    extra = ""
    if path.is_dir():
        extra = str(sum(1 for _ in path.rglob("*")))
    return f"{stat.st_size}:{stat.st_mtime_ns}:{extra}"


def _check_file(path: Path, arg: str) -> None:
    from tfcore.workspace import check_regular, file_kind

    kind = file_kind(path)
    if kind == "missing":
        raise DatasetError(key="data.err.upload_missing",
                           params={"path": arg})
    check_regular(path, arg)                   # a FIFO or a device: refused unopened
    if path.stat().st_size > MAX_FILE_BYTES:
        raise _too_big(arg, path.stat().st_size, MAX_FILE_BYTES)


def check_csv_shape(path: Path, arg: str) -> None:
    """Refuse a CSV from its first line and its line count, before pandas parses it: more
    than ``TFLAB_MAX_CSV_COLUMNS`` columns, a header line longer than ``MAX_HEADER_BYTES``,
    or more than ``TFLAB_MAX_CSV_CELLS`` cells (rows x columns).

    Raises:
        DatasetError: ``data.err.csv_columns``, ``data.err.csv_header`` or
            ``data.err.csv_cells``.
    """
    import csv
    import io

    from tfcore.workspace import open_regular

    max_columns, max_cells = settings.MAX_CSV_COLUMNS.get(), settings.MAX_CSV_CELLS.get()
    with open_regular(path, arg) as handle:
        head = handle.read(MAX_HEADER_BYTES + 1)
        end = head.find(b"\n")
        if end < 0 and len(head) > MAX_HEADER_BYTES:
            columns = _first_line_columns(handle, head)
            if columns > max_columns:            # a million columns: say so
                raise DatasetError(key="data.err.csv_columns",
                                   params={"path": arg, "count": f"{columns:,}",
                                           "limit": f"{max_columns:,}"})
            raise DatasetError(key="data.err.csv_header",
                               params={"path": arg, "limit": f"{MAX_HEADER_BYTES:,}"})
        first = head if end < 0 else head[:end]
        try:
            row = next(csv.reader(io.StringIO(first.decode("utf-8", "replace"))), [])
        except csv.Error:
            row = first.split(b",")
        if len(row) > max_columns:
            raise DatasetError(key="data.err.csv_columns",
                               params={"path": arg, "count": f"{len(row):,}",
                                       "limit": f"{max_columns:,}"})
        lines = head.count(b"\n")
        while True:
            block = handle.read(4 * 2**20)
            if not block:
                break
            lines += block.count(b"\n")
    cells = max(lines, 1) * max(len(row), 1)
    if cells > max_cells:
        raise DatasetError(key="data.err.csv_cells",
                           params={"path": arg, "rows": f"{lines:,}", "columns": len(row),
                                   "limit": f"{max_cells:,}"})


def _first_line_columns(handle: Any, head: bytes) -> int:
    """The columns of a first line longer than ``head`` (its first bytes), counted by
    its commas while reading on in blocks: nothing but the count is kept."""
    commas = head.count(b",")
    while True:
        block = handle.read(4 * 2**20)
        if not block:
            break
        end = block.find(b"\n")
        commas += block[: end if end >= 0 else len(block)].count(b",")
        if end >= 0:
            break
    return commas + 1


def _labels(name: str, values: np.ndarray, task: str) -> tuple[np.ndarray, str, tuple]:
    """Turn target values into (y, task, class names); refuse a single class."""
    import pandas as pd

    series = pd.Series(values)
    if task == "auto":
        numeric = pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series)
        integral = numeric and bool(np.all(np.mod(series.to_numpy(dtype=float), 1) == 0))
        task = "classification" if (not numeric or (integral and series.nunique()
                                                      <= MAX_CLASSES_AUTO)) \
            else "regression"
    if task == "regression":
        try:
            y = series.to_numpy(dtype=np.float32)[:, None]
        except (TypeError, ValueError) as exc:
            raise DatasetError(key="data.err.target_numeric",
                               params={"name": name}) from exc
        return y, task, ()
    classes = sorted(series.unique().tolist(), key=lambda v: (str(type(v)), v))
    if len(classes) < 2:
        raise DatasetError(
            key="data.err.one_class",
            params={"name": name, "value": str(classes[0]) if classes else "-"})
    index = {value: i for i, value in enumerate(classes)}
    y = series.map(index).to_numpy(dtype=np.int32)
    return y, task, tuple(str(c) for c in classes)


def load_csv(name: str, arg: str, options: Mapping[str, Any], seed: int) -> RawData:
    """A CSV table: numeric columns as numbers, text columns one-hot, one target column.

    Options: ``target`` (default: last column), ``features`` (default: all others),
    ``task`` (auto, classification, regression), ``normalize`` (z-score numeric
    features; default true).
    """
    import pandas as pd

    check_known(name, options, CSV_OPTIONS)
    path = uploads_path(arg)
    _check_file(path, arg)
    check_csv_shape(path, arg)
    try:
        frame = pd.read_csv(path)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError,
            ValueError) as exc:
        raise DatasetError(key="data.err.csv_read",
                           params={"path": arg, "error": str(exc)[:200]}) from exc
    columns = [str(c) for c in frame.columns]
    frame.columns = columns
    target = str_option(name, options, "target", columns[-1] if columns else None)
    if target not in columns or len(columns) < 2:
        raise DatasetError(
            key="data.err.csv_target",
            params={"path": arg, "target": str(target), "columns": Names(columns)})
    features = options.get("features") or [c for c in columns if c != target]
    bad = [f for f in features if f not in columns or f == target]
    if bad or not isinstance(features, (list, tuple)):
        raise DatasetError(key="data.err.csv_features",
                           params={"columns": Names(map(str, bad))})
    frame = frame.dropna(subset=[target])
    if frame.empty:
        raise DatasetError(key="data.err.empty", params={"name": arg})
    task = str_option(name, options, "task", "auto", TASKS)
    y, task, class_names = _labels(arg, frame[target].to_numpy(), task)
    x, feature_names = _encode_features(arg, frame[list(features)],
                                        bool_option(name, options, "normalize", True))
    kind = "points" if x.shape[1] == 2 else "table"
    return RawData(x, y, task, kind, class_names, feature_names)


def _encode_features(arg: str, frame, normalize: bool) -> tuple[np.ndarray, tuple]:
    """Numeric columns (missing values -> column mean) and one-hot text columns."""
    import pandas as pd

    parts, names = [], []
    for column in frame.columns:
        series = frame[column]
        if pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series):
            values = series.to_numpy(dtype=np.float64)
            mean = np.nanmean(values) if np.isfinite(values).any() else 0.0
            values = np.where(np.isnan(values), mean, values)
            if normalize:
                std = values.std()
                values = (values - values.mean()) / (std if std > 0 else 1.0)
            parts.append(values[:, None])
            names.append(column)
            continue
        text = series.astype("string").fillna("(missing)")
        categories = sorted(text.unique().tolist())
        if len(categories) > MAX_CATEGORIES:
            raise DatasetError(
                key="data.err.csv_categories",
                params={"column": column, "count": len(categories), "limit": MAX_CATEGORIES})
        onehot = np.stack([(text == c).to_numpy(dtype=np.float64) for c in categories], 1)
        parts.append(onehot)
        names.extend(f"{column}={c}" for c in categories)
    return np.concatenate(parts, axis=1).astype(np.float32), tuple(names)


def load_npz(name: str, arg: str, options: Mapping[str, Any], seed: int) -> RawData:
    """Arrays from an ``.npz`` (``allow_pickle=False``): ``x``/``y`` or
    ``x_train``/``y_train`` with optional ``x_val``/``y_val`` and ``x_test``/``y_test``;
    an optional ``class_names`` string array."""
    check_known(name, options, NPZ_OPTIONS)
    path = uploads_path(arg)
    _check_file(path, arg)
    from tfcore.data.npz_arrays import check_npz, npz_raw

    check_npz(arg, path)
    try:
        with np.load(path, allow_pickle=False) as npz:
            arrays = {key: npz[key] for key in npz.files}
    except ValueError as exc:
        if "allow_pickle" in str(exc) or "Object arrays" in str(exc):
            raise DatasetError(
                key="data.err.npz_objects", params={"path": arg}) from exc
        raise DatasetError(key="data.err.npz_read",
                           params={"path": arg, "error": str(exc)[:200]}) from exc
    except Exception as exc:  # zipfile.BadZipFile, OSError, EOFError ...
        raise DatasetError(key="data.err.npz_read",
                           params={"path": arg, "error": str(exc)[:200]}) from exc
    task = str_option(name, options, "task", "auto", TASKS)
    return npz_raw(arg, arrays, task, _labels)


def _images(name: str, arg: str, options: Mapping[str, Any], seed: int) -> RawData:
    from tfcore.data.images import load_images

    return load_images(name, arg, uploads_path(arg), options)


for _kind, _loader in (("csv", load_csv), ("npz", load_npz), ("images", _images)):
    registry.register_prefix(registry.PrefixSource(
        f"upload:{_kind}:", Text(f"data.title.upload_{_kind}"), _loader, _fingerprint))
