"""User-written code files in the workspace: ``<workspace>/custom/<name>.py``.

Saving checks the name and the source without running anything: the source must parse
(a syntax error is reported with its line and column) and define at least one layer, loss
or metric class, found with ``ast`` from the class's bases.
"""

from __future__ import annotations

import ast
import os
import re
from dataclasses import dataclass
from pathlib import Path

from tfcore import settings
from tfcore.errors import TFLabError

TRUSTED_ENV = settings.TRUSTED_CODE.name
FOLDER = "custom"
NAME_PATTERN = re.compile(r"^[a-z][a-z0-9_]{0,47}$")
MAX_SOURCE_BYTES = 200_000
KINDS = ("layer", "loss", "metric")


class CustomCodeError(TFLabError):
    """Bad user-written code: a bad name, a syntax error, no class, untrusted server."""

    default_key = "custom.err.generic"


def trusted_code_enabled() -> bool:
    """Whether user-written code may run (the server was started with TFLAB_TRUSTED_CODE=1)."""
    return settings.trusted_code()


def require_trusted() -> None:
    if not trusted_code_enabled():
        raise CustomCodeError(key="custom.err.untrusted",
                              params={"env": TRUSTED_ENV})


@dataclass(frozen=True)
class ClassInfo:
    """A class found in a source: its name, kind (layer/loss/metric) and line."""

    name: str
    kind: str
    line: int


def code_dir(workspace_root: str | os.PathLike[str]) -> Path:
    return Path(workspace_root) / FOLDER


def check_name(name: str) -> str:
    """The file stem if it is a plain lower-case identifier, else a CustomCodeError."""
    if not isinstance(name, str) or not NAME_PATTERN.match(name):
        raise CustomCodeError(
            key="custom.err.name",
            params={"name": str(name)[:60]})
    return name


def _kind(base: ast.expr) -> str | None:
    text = ast.unparse(base)
    last = text.rsplit(".", 1)[-1]
    if last.endswith("Loss"):
        return "loss"
    if last.endswith("Metric"):
        return "metric"
    if last in ("Layer", "Model") or text.startswith(("keras.layers.", "tf.keras.layers.")):
        return "layer"
    return None


def inspect_source(source: str, name: str = "code") -> list[ClassInfo]:
    """The layer, loss and metric classes a source defines at module level (nothing runs).

    Raises:
        CustomCodeError: too long, a syntax error (with line and column), or no class.
    """
    if not isinstance(source, str) or len(source.encode("utf-8")) > MAX_SOURCE_BYTES:
        raise CustomCodeError(key="custom.err.too_long",
                              params={"name": name, "limit": f"{MAX_SOURCE_BYTES:,}"})
    try:
        tree = ast.parse(source, filename=f"{name}.py")
    except SyntaxError as exc:
        line, col = exc.lineno or 0, exc.offset or 0
        raise CustomCodeError(key="custom.err.syntax",
                              params={"name": name, "line": line, "col": col,
                                      "msg": str(exc.msg)}) from None
    found = []
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            kind = next((k for k in map(_kind, node.bases) if k), None)
            if kind:
                found.append(ClassInfo(node.name, kind, node.lineno))
    if not found:
        raise CustomCodeError(key="custom.err.no_class",
                              params={"name": name})
    return found


def save_code(workspace_root: str | os.PathLike[str], name: str, source: str) -> list[ClassInfo]:
    """Check and write ``custom/<name>.py``; nothing is written when the check fails."""
    check_name(name)
    classes = inspect_source(source, name)
    folder = code_dir(workspace_root)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.py"
    tmp = path.with_suffix(".py.tmp")
    tmp.write_text(source, encoding="utf-8")
    os.replace(tmp, path)
    return classes


def list_codes(workspace_root: str | os.PathLike[str]) -> list[str]:
    """The saved file stems, sorted (names that break the pattern are left out)."""
    folder = code_dir(workspace_root)
    if not folder.is_dir():
        return []
    return sorted(p.stem for p in folder.glob("*.py") if NAME_PATTERN.match(p.stem))


def read_code(workspace_root: str | os.PathLike[str], name: str) -> str:
    path = code_dir(workspace_root) / f"{check_name(name)}.py"
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CustomCodeError(key="custom.err.read", params={"name": name}) from exc


def delete_code(workspace_root: str | os.PathLike[str], name: str) -> None:
    (code_dir(workspace_root) / f"{check_name(name)}.py").unlink(missing_ok=True)


def read_all(workspace_root: str | os.PathLike[str]) -> dict[str, str]:
    """Every saved file: stem -> source."""
    return {name: read_code(workspace_root, name) for name in list_codes(workspace_root)}
