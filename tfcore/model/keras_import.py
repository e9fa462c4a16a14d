"""Import a model: a ``.keras`` file (loaded with ``safe_mode=True``) becomes a spec.

The archive is looked into first (a zip with ``config.json``, sane sizes, every class
Keras's own or TF Lab's); a Lambda layer (arbitrary code) is refused by Keras's safe mode; a
custom class is named with how to make it importable. The model then becomes a spec
through :func:`tfcore.model.import_graph.model_to_spec`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Mapping

from tfcore.errors import SpecError
from tfcore.model.import_graph import HOW_TO_IMPORT, model_to_spec
from tfcore.model.initial_weights import (
    IMPORTED_WEIGHTS,
    load_initial_weights,
    prune_imported,
    values_digest,
)
from tfcore.model.spec import WEIGHTS_SUFFIX, ModelSpec

__all__ = ["check_keras_file", "import_keras", "import_keras_weights", "ImportResult",
           "load_initial_weights", "load_keras_file", "model_to_spec"]

MAX_KERAS_CONFIG = 16 * 1024**2     # config.json inside a .keras archive
MAX_KERAS_BYTES = 4 * 1024**3       # declared size of all members together


def _foreign_class(config: Any) -> str | None:
    """The first class in a ``.keras`` config that neither Keras nor TF Lab provides
    (walked without recursion)."""
    import keras

    stack = [config]
    while stack:
        value = stack.pop()
        if isinstance(value, Mapping):
            cls, module, registered = (value.get("class_name"), value.get("module"),
                                       value.get("registered_name"))
            builtin = isinstance(module, str) and module.split(".")[0] == "keras"
            if isinstance(cls, str) and not builtin and ("module" in value
                                                         or "registered_name" in value):
                if isinstance(registered, str) and registered:
                    if keras.saving.get_registered_object(registered) is None:
                        return registered
                elif isinstance(module, str) and not module.startswith("keras"):
                    return f"{module}.{cls}"
            stack.extend(reversed(list(value.values())))
        elif isinstance(value, list):
            stack.extend(reversed(value))
    return None


def check_keras_file(path: str | Path, shown: str | None = None) -> None:
    """Look inside a ``.keras`` archive before Keras does: that it is a zip with a
    ``config.json``, that its declared sizes are sane, and that every class it names is
    known. Messages name the file as ``shown`` (never the server's absolute path).

    Raises:
        SpecError: ``spec.import_not_keras``, ``spec.import_too_big`` or
            ``spec.import_custom_class`` (naming the class).
    """
    import json
    import zipfile

    from tfcore.model.initializers import zeroed_uniform_class
    from tfcore.model.limits import check_json_text

    import tfcore.model.layers  # noqa: F401 - registers the tutorials' layers

    zeroed_uniform_class()
    name = shown or Path(path).name
    try:
        with zipfile.ZipFile(path) as archive:
            infos = {i.filename: i for i in archive.infolist()}
            total = sum(i.file_size for i in infos.values())
            config_info = infos.get("config.json")
            if config_info is None:
                raise zipfile.BadZipFile("no config.json inside")
            if total > MAX_KERAS_BYTES or config_info.file_size > MAX_KERAS_CONFIG:
                raise SpecError(
                    key="spec.import_too_big",
                    params={"name": name, "size": f"{total:,}",
                            "limit": f"{MAX_KERAS_BYTES:,}"})
            text = archive.read(config_info).decode("utf-8", errors="replace")
    except (zipfile.BadZipFile, OSError, EOFError, KeyError) as exc:
        raise SpecError(
            key="spec.import_not_keras",
            params={"name": name}) from exc
    check_json_text(text)
    try:
        config = json.loads(text)
    except ValueError as exc:
        raise SpecError(key="spec.import_not_keras", params={"name": name}) from exc
    foreign = _foreign_class(config)
    if foreign:
        raise SpecError(
            key="spec.import_custom_class",
            params={"name": name, "cls": foreign})


def load_keras_file(path: str | Path, shown: str | None = None) -> Any:
    """Load a ``.keras`` file with ``safe_mode=True`` (no code from the file runs).

    Args:
        shown: how messages name the file (default: its base name).

    Raises:
        SpecError: not a .keras archive, unsafe content (a Lambda layer), a class neither
            Keras nor TF Lab provides (named), or another failure (its first line, with
            the file's location replaced by ``shown``).
    """
    import keras

    check_keras_file(path, shown)
    name = shown or Path(path).name
    try:
        return keras.saving.load_model(str(path), safe_mode=True, compile=False)
    except Exception as exc:  # noqa: BLE001 - every failure becomes a message a person reads
        text = str(exc)
        if "safe_mode" in text or "Lambda" in text or "lambda" in text:
            raise SpecError(key="spec.import_unsafe") from exc
        first = text.strip().splitlines()[0] if text.strip() else type(exc).__name__
        first = first.replace(str(Path(path).resolve()), name).replace(str(path), name)[:300]
        raise SpecError(key="spec.import_failed", params={"message": first}) from exc


def import_keras(path: str | Path, shown: str | None = None) -> ModelSpec:
    """Load a ``.keras`` file safely and turn it into a spec (``shown`` names the file in
    messages, e.g. the name it was uploaded as)."""
    return model_to_spec(load_keras_file(path, shown))


@dataclass(frozen=True)
class ImportResult:
    """An imported model: its spec (``weights`` names the saved file), how many layers and
    parameters it has, and the workspace-relative weights file ("" when it has none)."""

    spec: ModelSpec
    layers: int
    params: int
    weights: str


def import_keras_weights(path: str | Path, workspace: Any, shown: str | None = None,
                         stem: str | None = None, keep_weights: bool = True) -> ImportResult:
    """Import a ``.keras`` file with its weights: the spec, and the file's weights saved as
    the spec's initial weights (``models/imported/<stem>-<digest>.weights.h5`` in
    ``workspace``), so that a model built from the spec and given them computes what the
    file computes. ``keep_weights=False``: the architecture only. Imported weights files
    that nothing names any more are removed first.

    Raises:
        SpecError: as :func:`import_keras`; ``spec.import_no_room`` when the workspace's
            disk cannot hold the weights.
    """
    import re
    import shutil

    model = load_keras_file(path, shown)
    spec = model_to_spec(model)
    params = int(model.count_params())
    if not model.weights or not keep_weights:
        return ImportResult(spec, len(spec.all_layers()), params, "")
    name = shown or Path(path).name
    size = sum(int(v.numpy().nbytes) for v in model.weights)
    folder = workspace.confine(IMPORTED_WEIGHTS)
    folder.mkdir(parents=True, exist_ok=True)
    prune_imported(workspace)
    free = shutil.disk_usage(folder).free
    if size * 2 > free:   # the file plus room for the workspace to go on working
        raise SpecError(key="spec.import_no_room",
                        params={"name": name, "size": f"{size:,}", "free": f"{free:,}"})
    base = re.sub(r"[^A-Za-z0-9_.-]+", "_", stem or Path(name).stem).strip("._-")[:48]
    relative = f"{IMPORTED_WEIGHTS}/{base or 'model'}-{values_digest(model)}{WEIGHTS_SUFFIX}"
    target = workspace.confine(relative)
    temp = target.with_name(f".{target.stem}.tmp{WEIGHTS_SUFFIX}")
    try:
        model.save_weights(str(temp))
        temp.replace(target)
    finally:
        temp.unlink(missing_ok=True)
    spec = replace(spec, weights=relative)
    return ImportResult(spec, len(spec.all_layers()), params, relative)
