"""tf.data from image files in class folders (scenario T6's last part).

The folders are ``<data_dir>/<class>/<image file>``: an image-folder upload of the workspace
(``workspace/uploads/<name>/``) or a small built-in sample of digit PNGs written on demand
to ``workspace/samples/digits_folders/<digit>/``. The pipeline is the textbook one: list the
files -> label from the parent folder's name -> map(read_file, decode, resize, /255) ->
shuffle -> batch -> prefetch. :func:`folder_pipeline_code` writes it as Python from the same
options that :func:`build_folder_pipeline` builds it from.

Every file is checked before TensorFlow reads it (a link, a file above
:data:`MAX_FILE_BYTES`, a header PIL cannot read, more than :data:`MAX_IMAGE_PIXELS`
pixels), and the error names the file (``class/file``).
"""

from __future__ import annotations

import io
import os
import uuid
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tfcore.labs.pipeline import PipelineLabError
from tfcore.workspace import Workspace

SAMPLE = "sample"                          # the built-in digits sample, generated on demand
SAMPLE_DIR = Path("samples") / "digits_folders"
SAMPLE_PER_CLASS = 8
SAMPLE_SIDE = 28
IMAGE_EXTS = (".png", ".jpg", ".jpeg", ".bmp", ".gif")
MAX_FILES = 5_000
MAX_CLASSES = 100
MAX_FILE_BYTES = 20 * 1024**2
MAX_IMAGE_PIXELS = 4096 * 4096
SIZES = (8, 16, 28, 32, 64, 128)
_GLOB = set("*?[]")


@dataclass(frozen=True)
class FolderSpec:
    """Where the images are and the pipeline's settings."""

    source: str = SAMPLE         # SAMPLE or the name of a folder in workspace/uploads
    image_size: int = 28
    channels: int = 1            # 1 (grayscale) or 3 (RGB)
    shuffle_buffer: int = 64     # 1 keeps the listed order
    batch_size: int = 8
    seed: int = 0
    prefetch: bool = True

    def check(self) -> None:
        if self.channels not in (1, 3):
            raise PipelineLabError(
                key="foundations.err.pipeline_value",
                params={"name": "channels", "value": repr(self.channels), "low": 1, "high": 3})
        for name, value, low, high in (("image_size", self.image_size, 8, 256),
                                       ("shuffle_buffer", self.shuffle_buffer, 1, 100_000),
                                       ("batch_size", self.batch_size, 1, 1024)):
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise PipelineLabError(
                    key="foundations.err.pipeline_value",
                    params={"name": name, "value": repr(value), "low": low, "high": high})


@dataclass(frozen=True)
class FolderScan:
    """What the class folders hold: sorted class names, image files per class."""

    root: Path
    classes: tuple[str, ...]
    counts: tuple[int, ...]            # image files per class, same order
    extensions: tuple[str, ...]        # the file endings present, exactly as written

    @property
    def total(self) -> int:
        return int(sum(self.counts))


@dataclass(frozen=True)
class FolderBatch:
    """The first batch of the pipeline, and the code that built it."""

    code: str
    scan: FolderScan
    images: np.ndarray                 # (N, size, size, channels) float32 in [0, 1]
    labels: np.ndarray                 # (N,) int32

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(int(n) for n in self.images.shape)

    @property
    def dtype(self) -> str:
        return str(self.images.dtype)

    @property
    def label_names(self) -> list[str]:
        return [self.scan.classes[int(i)] for i in self.labels]


def _error(key: str, /, **params) -> PipelineLabError:
    return PipelineLabError(key=f"foundations.err.{key}", params=params)


def folder_sources(workspace: Workspace) -> list[str]:
    """:data:`SAMPLE` first, then the image-folder uploads (folders, not zips), sorted."""
    from tfcore.data import list_uploads

    ws = workspace.ensure()
    folders = [n for n in list_uploads("images", ws)
               if (ws.uploads / n).is_dir() and not (ws.uploads / n).is_symlink()]
    return [SAMPLE, *folders]


def make_sample(workspace: Workspace, per_class: int = SAMPLE_PER_CLASS) -> Path:
    """Write ``per_class`` PNGs of each digit (scikit-learn's 8x8 digits, enlarged to 28x28)
    to ``samples/digits_folders/<digit>/`` in the workspace; files already there are kept."""
    from PIL import Image
    from sklearn.datasets import load_digits

    root = workspace.confine(SAMPLE_DIR)
    digits = load_digits()
    for digit in range(10):
        folder = root / str(digit)
        folder.mkdir(parents=True, exist_ok=True)
        picks = np.flatnonzero(digits.target == digit)[:per_class]
        for i, index in enumerate(picks):
            path = folder / f"{digit}_{i}.png"
            if path.is_file():
                continue
            pixels = np.round(digits.images[index] * (255.0 / 16.0)).astype(np.uint8)
            image = Image.fromarray(pixels, mode="L").resize((SAMPLE_SIDE, SAMPLE_SIDE),
                                                             Image.BILINEAR)
            tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.part")  # sessions race
            image.save(tmp, format="PNG")
            tmp.replace(path)
    return root


def resolve_root(source: str, workspace: Workspace) -> Path:
    """The folder of ``source`` (the sample is written first if needed)."""
    ws = workspace.ensure()
    if source == SAMPLE:
        return make_sample(ws)
    name = str(source)
    if not name.strip() or "/" in name or "\\" in name or name.startswith("."):
        raise _error("folders_missing", name=name)
    try:
        root = ws.confine(Path("uploads") / name)
    except Exception as exc:  # WorkspaceError: leaves the workspace
        raise _error("folders_missing", name=name) from exc
    if not root.is_dir() or (ws.uploads / name).is_symlink():
        raise _error("folders_missing", name=name)
    return root


def _header(path: Path) -> tuple[int, int] | None:
    from PIL import Image

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with Image.open(io.BytesIO(path.read_bytes())) as image:
                return tuple(image.size)  # type: ignore[return-value]
    except Image.DecompressionBombError:
        return (MAX_IMAGE_PIXELS + 1, 1)
    except Exception:  # noqa: BLE001 - a header PIL cannot read: not an image
        return None


def scan_folders(root: Path, name: str) -> FolderScan:
    """Check the class folders under ``root`` and every image in them.

    Raises:
        PipelineLabError: no class folders, an empty class, a link, too many files, a file
            too large or with too many pixels, a file that is not a readable image.
    """
    if _GLOB & set(str(root)):
        raise _error("folders_glob", name=name)
    entries = sorted(p for p in root.iterdir() if not p.name.startswith("."))
    link = next((p for p in entries if p.is_symlink()), None)
    if link is not None:
        raise _error("folders_link", file=f"{name}/{link.name}")
    classes = [p for p in entries if p.is_dir()]
    if not classes:
        raise _error("folders_none", name=name)
    if len(classes) > MAX_CLASSES:
        raise _error("folders_classes", name=name, count=len(classes),
                     limit=MAX_CLASSES)
    counts, extensions, total = [], set(), 0
    for folder in classes:
        files = sorted(p for p in folder.iterdir()
                       if not p.name.startswith(".") and p.suffix.lower() in IMAGE_EXTS)
        total += len(files)
        if total > MAX_FILES:
            raise _error("folders_many",
                         name=name, limit=MAX_FILES)
        if not files:
            raise _error("folders_empty", folder=f"{name}/{folder.name}",
                         exts=", ".join(IMAGE_EXTS))
        for path in files:
            _check_file(path, f"{name}/{folder.name}/{path.name}")
            extensions.add(path.suffix)
        counts.append(len(files))
    return FolderScan(root, tuple(p.name for p in classes), tuple(counts),
                      tuple(sorted(extensions)))


def _check_file(path: Path, shown: str) -> None:
    if path.is_symlink():
        raise _error("folders_link", file=shown)
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise _error("folders_file_big", file=shown,
                     mb=round(size / 1024**2, 1), limit=MAX_FILE_BYTES // 1024**2)
    header = _header(path)
    if header is None:
        raise _error("folders_decode", file=shown)
    width, height = header
    if width * height > MAX_IMAGE_PIXELS:
        raise _error("folders_pixels", file=shown,
                     width=width, height=height, limit=f"{MAX_IMAGE_PIXELS:,}")


def _patterns(data_dir: str, scan: FolderScan) -> list[str]:
    return [os.path.join(data_dir, "*", "*" + ext) for ext in scan.extensions]


def build_folder_pipeline(spec: FolderSpec, scan: FolderScan, data_dir: str | None = None):
    """The ``tf.data.Dataset`` of ``(images, labels)`` batches over the scanned folders."""
    import tensorflow as tf

    spec.check()
    class_names = list(scan.classes)
    size, channels = spec.image_size, spec.channels

    def label_of(path):
        parts = tf.strings.split(path, os.sep)
        return tf.argmax(tf.cast(parts[-2] == class_names, tf.int32), output_type=tf.int32)

    def load(path):
        image = tf.io.read_file(path)
        image = tf.io.decode_image(image, channels=channels, expand_animations=False)
        image = tf.image.resize(image, (size, size))
        image = image / 255.0
        return image, label_of(path)

    files = tf.data.Dataset.list_files(_patterns(data_dir or str(scan.root), scan),
                                       shuffle=False)
    ds = files.map(load, num_parallel_calls=tf.data.AUTOTUNE, deterministic=True)
    if spec.shuffle_buffer > 1:
        ds = ds.shuffle(spec.shuffle_buffer, seed=spec.seed)
    ds = ds.batch(spec.batch_size)
    if spec.prefetch:
        ds = ds.prefetch(tf.data.AUTOTUNE)
    return ds


def folder_pipeline_code(spec: FolderSpec, scan: FolderScan, data_dir: str) -> str:
    """The pipeline of :func:`build_folder_pipeline` as runnable Python."""
    patterns = ", ".join(f'os.path.join(data_dir, "*", "*{ext}")' for ext in scan.extensions)
    lines = [
        "import os",
        "",
        "import tensorflow as tf",
        "",
        f"data_dir = {data_dir!r}  # one folder per class",
        f"class_names = {list(scan.classes)!r}  # the folder names, sorted",
        "",
        "def label_of(path):",
        "    parts = tf.strings.split(path, os.sep)  # .../<class>/<file>",
        "    return tf.argmax(tf.cast(parts[-2] == class_names, tf.int32), output_type=tf.int32)",
        "",
        "def load(path):",
        "    image = tf.io.read_file(path)",
        f"    image = tf.io.decode_image(image, channels={spec.channels}, "
        "expand_animations=False)",
        f"    image = tf.image.resize(image, ({spec.image_size}, {spec.image_size}))",
        "    image = image / 255.0",
        "    return image, label_of(path)",
        "",
        f"files = tf.data.Dataset.list_files([{patterns}], shuffle=False)",
        "ds = files.map(load, num_parallel_calls=tf.data.AUTOTUNE)",
    ]
    if spec.shuffle_buffer > 1:
        lines.append(f"ds = ds.shuffle({spec.shuffle_buffer}, seed={spec.seed})")
    lines.append(f"ds = ds.batch({spec.batch_size})")
    if spec.prefetch:
        lines.append("ds = ds.prefetch(tf.data.AUTOTUNE)")
    lines += ["", "images, labels = next(iter(ds))  # the first batch"]
    return "\n".join(lines)


def first_folder_batch(spec: FolderSpec, workspace: Workspace) -> FolderBatch:
    """Check the folders, run the pipeline, return its first batch and its code.

    Raises:
        PipelineLabError: a bad setting, missing folders or a bad file (named).
    """
    import tensorflow as tf

    spec.check()
    ws = workspace.ensure()
    root = resolve_root(spec.source, ws)
    name = SAMPLE_DIR.as_posix() if spec.source == SAMPLE else f"uploads/{spec.source}"
    scan = scan_folders(root, name)
    try:
        images, labels = next(iter(build_folder_pipeline(spec, scan)))
    except (tf.errors.InvalidArgumentError, tf.errors.NotFoundError) as exc:
        first = str(getattr(exc, "message", exc)).splitlines()[0][:200]
        raise _error("folders_read", name=name, error=first) from exc
    return FolderBatch(folder_pipeline_code(spec, scan, name), scan,
                       images.numpy().astype(np.float32), labels.numpy().astype(np.int32))
