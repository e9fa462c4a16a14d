"""Images in class folders (the cats-vs-dogs layout), from a zip or a folder in uploads.

Layout: ``<class>/<file>``, optionally under one top folder and optionally split into
``train/``, ``validation/`` (or ``valid``, ``val``) and ``test/``. Archives are checked
before anything is read: no absolute paths, no ``..``, no links, at most
``MAX_FILES`` files and ``MAX_UNCOMPRESSED`` bytes. Images are decoded and resized with
``tf.io.decode_image`` / ``tf.image.resize`` in a tf.data pipeline; undecodable files are
named in the error. Before that, each member's declared size and compression ratio are
checked (zip bombs) and each image's width x height is read from its header and checked
against ``MAX_IMAGE_PIXELS`` (and all of them against ``MAX_TOTAL_PIXELS``).
"""

from __future__ import annotations

import os
import stat
import zipfile
from pathlib import Path, PurePosixPath
from typing import Any, Mapping

import numpy as np

from tfcore import settings
from tfcore.data import limits
from tfcore.data.base import RawData
from tfcore.data.options import check_known, int_option
from tfcore.errors import DatasetError
from tfcore.messages import Names

MAX_FILES = 20_000
MAX_UNCOMPRESSED = 1024**3
MAX_ARRAY_BYTES = limits.MAX_ARRAY_BYTES
IMAGE_EXTS = (".jpg", ".jpeg", ".png", ".bmp", ".gif")
SPLIT_DIRS = {"train": "train", "training": "train", "validation": "val", "valid": "val",
              "val": "val", "test": "test", "testing": "test"}
OPTIONS = ("image_size", "channels")


def _unsafe(arg: str, member: str) -> DatasetError:
    return DatasetError(
        key="data.err.zip_unsafe", params={"path": arg, "member": member})


def _limits(arg: str, count: int, total: int) -> None:
    if count > MAX_FILES:
        raise DatasetError(key="data.err.too_many_files",
                           params={"path": arg, "count": f"{count:,}",
                                   "limit": f"{MAX_FILES:,}"})
    if total > MAX_UNCOMPRESSED:
        raise DatasetError(
            key="data.err.too_big",
            params={"name": arg, "mb": limits.mb(total),
                    "limit": limits.limit_mb(MAX_UNCOMPRESSED)})


class _Pixels:
    """Header checks of the images kept so far; headers PIL cannot read are remembered
    as broken (named together in one error)."""

    def __init__(self, arg: str) -> None:
        self.arg, self.total, self.broken = arg, 0, []

    def keep(self, parts: tuple[str, ...], data: bytes) -> bytes:
        size = limits.image_size(data)
        if size is None:
            self.broken.append("/".join(parts))
        else:
            self.total = limits.check_pixels(self.arg, "/".join(parts), size, self.total)
        return data

    def done(self) -> None:
        if self.broken:
            bad = self.broken
            raise DatasetError(
                key="data.err.broken_images",
                params={"path": self.arg, "count": len(bad), "files": Names(bad[:5])})


def _is_image(parts: tuple[str, ...]) -> bool:
    hidden = any(p.startswith(".") or p == "__MACOSX" for p in parts)
    return not hidden and parts[-1].lower().endswith(IMAGE_EXTS)


def read_zip(arg: str, path: Path) -> dict[tuple[str, ...], bytes]:
    """Image bytes by path parts, after the safety checks on every member."""
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise DatasetError(key="data.err.zip_read",
                           params={"path": arg, "error": str(exc)[:200]}) from exc
    with archive:
        infos = archive.infolist()
        for info in infos:
            name = info.filename
            pure = PurePosixPath(name.replace("\\", "/"))
            mode = info.external_attr >> 16
            if (pure.is_absolute() or ".." in pure.parts or ":" in name
                    or stat.S_ISLNK(mode)):
                raise _unsafe(arg, name)
        _limits(arg, len(infos), sum(i.file_size for i in infos))
        limits.check_members(arg, infos, path.stat().st_size, MAX_UNCOMPRESSED)
        files, pixels = {}, _Pixels(arg)
        for info in infos:
            parts = PurePosixPath(info.filename.replace("\\", "/")).parts
            if info.is_dir() or not parts or not _is_image(parts):
                continue
            try:
                files[parts] = pixels.keep(parts, archive.read(info))
            except (zipfile.BadZipFile, OSError, EOFError) as exc:
                raise DatasetError(key="data.err.zip_read",
                                   params={"path": arg, "error": str(exc)[:200]}) from exc
    pixels.done()
    return files


def read_folder(arg: str, root: Path) -> dict[tuple[str, ...], bytes]:
    """Image bytes by path parts from a folder; links are refused, not followed."""
    entries = []
    for folder, dirs, names in os.walk(root, followlinks=False):
        for entry in dirs + names:
            full = Path(folder) / entry
            if full.is_symlink():
                raise _unsafe(arg, str(full.relative_to(root)))
        entries.extend(Path(folder) / n for n in names)
    _limits(arg, len(entries), sum(p.stat().st_size for p in entries))
    big = next((p for p in entries if p.stat().st_size > limits.MAX_MEMBER_BYTES), None)
    if big is not None:
        raise limits.too_big(f"{arg}/{big.relative_to(root).as_posix()}", big.stat().st_size,
                             limits.MAX_MEMBER_BYTES)
    files, pixels = {}, _Pixels(arg)
    for full in entries:
        parts = full.relative_to(root).parts
        if _is_image(parts):
            files[parts] = pixels.keep(parts, full.read_bytes())
    pixels.done()
    return files


def _layout(arg: str, files: dict[tuple[str, ...], bytes]):
    """{split: [(class, parts)]}: strip a shared top folder, find split folders."""
    if not files:
        raise DatasetError(key="data.err.no_images", params={"path": arg})
    paths = list(files)
    while all(len(p) > 2 for p in paths) and len({p[0] for p in paths}) == 1:
        paths = [p[1:] for p in paths]
        files = {p[1:]: v for p, v in files.items()}
    if any(len(p) < 2 for p in paths):
        loose = next(p for p in paths if len(p) < 2)
        raise DatasetError(
            key="data.err.class_folders", params={"path": arg, "file": "/".join(loose)})
    split_mode = all(p[0].lower() in SPLIT_DIRS and len(p) >= 3 for p in paths)
    groups: dict[str, list] = {}
    for parts in paths:
        split = SPLIT_DIRS[parts[0].lower()] if split_mode else "train"
        label = parts[1] if split_mode else parts[0]
        groups.setdefault(split, []).append((label, parts))
    if "train" not in groups:
        raise DatasetError(key="data.err.class_folders", params={"path": arg, "file": "-"})
    return groups, files


def _decode(arg: str, items: list, files: dict, size: int, channels: int) -> np.ndarray:
    """Decode and resize through tf.data; name the files that fail to decode."""
    import tensorflow as tf

    blobs = [files[parts] for _, parts in items]
    ds = tf.data.Dataset.from_tensor_slices((blobs, np.arange(len(blobs))))

    def decode(blob, index):
        # resize the uint8 pixels (float32 output) so no full-size float copy is made
        image = tf.io.decode_image(blob, channels=channels, expand_animations=False,
                                   dtype=tf.uint8)
        image = tf.image.resize(image, (size, size)) / 255.0
        return tf.clip_by_value(image, 0.0, 1.0), index

    ds = ds.map(decode, num_parallel_calls=min(4, os.cpu_count() or 1))
    ds = ds.ignore_errors().batch(256)
    out = np.zeros((len(blobs), size, size, channels), np.float32)
    seen = np.zeros(len(blobs), bool)
    from tfcore.data.progress import report

    for images, index in ds:
        out[index.numpy()] = images.numpy()
        seen[index.numpy()] = True
        report(int(seen.sum()), len(blobs), "images")
    if not seen.all():
        bad = ["/".join(items[i][1]) for i in np.flatnonzero(~seen)]
        raise DatasetError(
            key="data.err.broken_images",
            params={"path": arg, "count": len(bad), "files": Names(bad[:5])})
    return out


def check_decoded(arg: str, path: Path, size: int, channels: int) -> None:
    """Refuse a zip from its directory alone, before one image is read: more image members
    than ``MAX_FILES``, or their decoded float32 arrays above ``TFLAB_MAX_DECODED_MB``.

    Raises:
        DatasetError: ``data.err.zip_read``, ``data.err.too_many_files`` or
            ``data.err.images_count``.
    """
    try:
        with zipfile.ZipFile(path) as archive:
            infos = archive.infolist()
    except (zipfile.BadZipFile, OSError) as exc:
        raise DatasetError(key="data.err.zip_read",
                           params={"path": arg, "error": str(exc)[:200]}) from exc
    images = sum(1 for info in infos if not info.is_dir() and _is_image(
        PurePosixPath(info.filename.replace("\\", "/")).parts or ("",)))
    _limits(arg, len(infos), 0)
    need = images * size * size * channels * 4
    cap = settings.MAX_DECODED_MB.get() * limits.MIB
    if need > cap:
        raise DatasetError(key="data.err.images_count",
                           params={"path": arg, "count": f"{images:,}", "size": size,
                                   "channels": channels, "mb": limits.mb(need),
                                   "limit": limits.limit_mb(cap)})


def load_images(name: str, arg: str, path: Path, options: Mapping[str, Any]) -> RawData:
    """Class-folder images as float32 arrays (N, size, size, channels) in [0, 1].

    Options: ``image_size`` (8-512, default 64), ``channels`` (1 or 3, default 3).
    """
    check_known(name, options, OPTIONS)
    size = int_option(name, options, "image_size", 64, 8, 512)
    channels = int_option(name, options, "channels", 3, 1, 3)
    if channels == 2:
        raise DatasetError(key="data.err.option",
                           params={"name": name, "option": "channels", "value": "2",
                                   "expected": "1 or 3"})
    if path.is_dir():
        files = read_folder(arg, path)
    else:
        from tfcore.workspace import check_regular

        check_regular(path, arg)               # a FIFO or a device: refused unopened
        if path.stat().st_size > limits.MAX_FILE_BYTES:
            raise limits.too_big(arg, path.stat().st_size, limits.MAX_FILE_BYTES)
        check_decoded(arg, path, size, channels)
        files = read_zip(arg, path)
    groups, files = _layout(arg, files)
    total = sum(len(v) for v in groups.values())
    need = total * size * size * channels * 4
    if need > MAX_ARRAY_BYTES:
        raise DatasetError(
            key="data.err.images_memory",
            params={"path": arg, "count": total, "gib": round(need / 1024**3, 1)})
    classes = sorted({label for items in groups.values() for label, _ in items})
    if len(classes) < 2:
        raise DatasetError(
            key="data.err.one_class", params={"name": arg, "value": classes[0]})
    index = {c: i for i, c in enumerate(classes)}
    arrays = {}
    for split, items in groups.items():
        items = sorted(items, key=lambda item: item[1])
        x = _decode(arg, items, files, size, channels)
        y = np.array([index[label] for label, _ in items], np.int32)
        arrays[split] = (x, y)
    x, y = arrays["train"]
    val = arrays.get("val", (None, None))
    test = arrays.get("test", (None, None))
    return RawData(x, y, "classification", "image", tuple(classes),
                   x_val=val[0], y_val=val[1], x_test=test[0], y_test=test[1])
