"""Run user-written code (trusted servers only) and register what it defines.

Each file runs as its own module ``tflab_custom.<name>``. Its layer classes become catalog
types ``custom.<Class>`` (category ``custom``, parameters from ``__init__``'s defaults) so a
spec can use them; its losses and metrics become choices of the Train page. Every class is
registered with ``keras.saving.register_keras_serializable(package="custom")`` unless the
code registered it itself, so models using them save to and load from ``.keras``.
"""

from __future__ import annotations

import inspect
import linecache
import sys
import threading
import traceback
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from tfcore.custom.store import (
    CustomCodeError,
    check_name,
    inspect_source,
    read_all,
    require_trusted,
)
from tfcore.messages import Text

PACKAGE = "custom"
MODULE_ROOT = "tflab_custom"
TYPE_PREFIX = "custom."
_LOCK = threading.Lock()


@dataclass(frozen=True)
class LoadedClass:
    """One class the code defines: kind, file, the class, Keras's registered name."""

    name: str
    kind: str
    file: str
    cls: Any
    registered: str

    @property
    def type_name(self) -> str:
        """Its catalog type (layers) or registry key (losses and metrics)."""
        return TYPE_PREFIX + self.name if self.kind == "layer" else self.name


@dataclass
class LoadedCode:
    """What the last load defined, the sources it ran and the files that failed."""

    classes: dict[str, LoadedClass] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)
    problems: dict[str, CustomCodeError] = field(default_factory=dict)
    read: dict[str, str] = field(default_factory=dict)   # every source tried, failed too

    def of_kind(self, kind: str) -> dict[str, LoadedClass]:
        return {c.type_name: c for c in self.classes.values() if c.kind == kind}


_CURRENT = LoadedCode()


def current() -> LoadedCode:
    """What is loaded in this process now (empty until code is loaded)."""
    return _CURRENT


def _base_kind(cls: Any) -> str | None:
    import keras

    for kind, base in (("loss", keras.losses.Loss), ("metric", keras.metrics.Metric),
                       ("layer", keras.layers.Layer)):
        if isinstance(cls, type) and issubclass(cls, base):
            return kind
    return None


def _run_error(name: str, exc: BaseException) -> CustomCodeError:
    filename = f"<custom/{name}.py>"
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == filename]
    line = frames[-1].lineno if frames else 0
    text = f"{type(exc).__name__}: {exc}"[:300]
    return CustomCodeError(key="custom.err.run",
                           params={"name": name, "line": line, "msg": text})


def _exec_file(name: str, source: str) -> types.ModuleType:
    filename = f"<custom/{name}.py>"
    lines = source.splitlines(keepends=True)
    linecache.cache[filename] = (len(source), None, lines, filename)   # tracebacks, getsource
    module = types.ModuleType(f"{MODULE_ROOT}.{name}")
    module.__file__ = filename
    sys.modules.setdefault(MODULE_ROOT, types.ModuleType(MODULE_ROOT))
    sys.modules[module.__name__] = module
    try:
        exec(compile(source, filename, "exec"), module.__dict__)  # noqa: S102 - trusted only
    except BaseException as exc:  # noqa: BLE001 - the person's code: any error is a message
        sys.modules.pop(module.__name__, None)
        raise _run_error(name, exc) from None
    return module


def _register(cls: Any) -> str:
    import keras

    registered = keras.saving.get_registered_name(cls)
    if registered == cls.__name__:           # not registered by the code itself
        keras.saving.get_custom_objects().pop(f"{PACKAGE}>{cls.__name__}", None)
        keras.saving.register_keras_serializable(package=PACKAGE)(cls)
        registered = f"{PACKAGE}>{cls.__name__}"
    return registered


def _load_one(name: str, source: str, taken: dict[str, LoadedClass]) -> list[LoadedClass]:
    found = inspect_source(source, name)
    module = _exec_file(name, source)
    out = []
    for info in found:
        cls = module.__dict__.get(info.name)
        kind = _base_kind(cls)
        if kind is None:
            continue
        if info.name in taken:
            raise CustomCodeError(key="custom.err.duplicate",
                                  params={"name": name, "line": info.line, "cls": info.name,
                                          "other": taken[info.name].file})
        out.append(LoadedClass(info.name, kind, name, cls, _register(cls)))
    return out


def load_sources(sources: Mapping[str, str]) -> LoadedCode:
    """Run every file (name -> source) and make what it defines usable in this process.

    A file that fails (syntax, an exception while running, a duplicate class) is left out
    and its error kept in ``problems``; the others load.

    Raises:
        CustomCodeError: the server was not started with trusted code enabled.
    """
    global _CURRENT
    require_trusted()
    with _LOCK:
        loaded = LoadedCode(read=dict(sources))
        for name in sorted(sources):
            try:
                check_name(name)
                classes = _load_one(name, sources[name], loaded.classes)
            except CustomCodeError as exc:
                loaded.problems[name] = exc
                continue
            loaded.sources[name] = sources[name]
            loaded.classes.update({c.name: c for c in classes})
        _publish(loaded)
        _CURRENT = loaded
    return loaded


def load_workspace(workspace_root: str | Path) -> LoadedCode:
    """Load every saved file of the workspace (``custom/*.py``)."""
    require_trusted()
    return load_sources(read_all(workspace_root))


def _publish(loaded: LoadedCode) -> None:
    """Hand the layer classes to the model catalog."""
    from tfcore.model import set_custom_types

    set_custom_types({c.type_name: layer_type(c) for c in loaded.classes.values()
                      if c.kind == "layer"})


def layer_type(item: LoadedClass) -> Any:
    """The catalog entry of a custom layer: its ``__init__`` parameters with defaults of a
    plain type (int, float, bool, str) become typed fields."""
    from tfcore.model import BOOL, FLOAT, INT, TEXT, LayerType, ParamSpec

    params = []
    try:
        signature = inspect.signature(item.cls.__init__)
    except (TypeError, ValueError):
        signature = None
    for p in list(signature.parameters.values())[1:] if signature else []:
        if p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL) or p.name in ("name", "dtype"):
            continue
        default = p.default
        kind = {bool: BOOL, int: INT, float: FLOAT, str: TEXT}.get(type(default))
        if kind is None:
            continue
        help_text = Text("custom.layer.param", {"param": p.name, "cls": item.name})
        params.append(ParamSpec(p.name, kind, default, help=help_text))
    doc = (inspect.getdoc(item.cls) or "").strip().splitlines()
    summary = (Text("custom.layer.help", {"summary": doc[0]}) if doc else
               Text("custom.layer.defined_in", {"file": item.file}))
    return LayerType(item.type_name, "custom",
                     Text("custom.layer.title", {"cls": item.name, "file": item.file}),
                     summary, tuple(params),
                     f"{MODULE_ROOT}.{item.file}.{item.name}")


def sources_for(type_names: set[str], loss: str | None, metrics: tuple[str, ...]) -> dict:
    """The loaded files a run needs: those defining a used layer type, loss or metric."""
    files = set()
    for item in _CURRENT.classes.values():
        if item.type_name in type_names or (item.kind == "loss" and item.name == loss) or (
                item.kind == "metric" and item.name in metrics):
            files.add(item.file)
    return {name: _CURRENT.sources[name] for name in sorted(files)}


def prepare_run(run_dir: str | Path, request: Mapping[str, Any]) -> LoadedCode | None:
    """A run's own code (``request["custom_code"]``): copied to ``<run>/custom/`` and loaded,
    so the run is reproducible from its folder. None when the run has no code.

    Raises:
        CustomCodeError: not a trusted server, or a file fails to load.
    """
    code = request.get("custom_code")
    if not code:
        return None
    if not isinstance(code, Mapping) or not all(isinstance(v, str) for v in code.values()):
        raise CustomCodeError(key="custom.err.run_json")
    require_trusted()
    folder = Path(run_dir) / "custom"
    folder.mkdir(parents=True, exist_ok=True)
    for name, source in code.items():
        (folder / f"{check_name(name)}.py").write_text(source, encoding="utf-8")
    loaded = load_sources(dict(code))
    if loaded.problems:
        raise next(iter(loaded.problems.values()))
    return loaded
