"""What a person types on the command line, checked at the boundary.

Argument types (:func:`path_arg`, :func:`run_id_arg`, :func:`int_range`,
:func:`dataset_option`) make argparse refuse a bad value with ``argument --flag: ...``
and exit 2. :func:`read_spec_file` and :func:`runs_root` turn a bad file or folder into a
typed error that names the path and the reason.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Callable
from pathlib import Path

from tfcore.errors import RunError, SpecError, WorkspaceError
from tfcore.messages import Text, render
from tfcore.settings import cli_lang

MAX_PATH_CHARS = 4096           # PATH_MAX on Linux
MAX_NAME_BYTES = 255            # NAME_MAX: one file or folder name
MAX_SPEC_BYTES = 20 * 1024**2   # a spec is text; the engine refuses longer ones too
SHOWN_CHARS = 200


def shown(text: object) -> str:
    """``repr`` of a value a person typed, shortened in the middle when it is long."""
    raw = str(text)
    text = repr(raw)
    if len(text) <= SHOWN_CHARS:
        return text
    half = SHOWN_CHARS // 2 - 2
    return f"{text[:half]}...{text[-half:]} ({len(raw):,} characters)"


def path_problem(text: str) -> Text | None:
    """Why ``text`` cannot be a path on this system (a ``cli.path.*`` text), or None."""
    if not text.strip():
        return Text("cli.path.empty")
    if "\x00" in text:
        return Text("cli.path.nul", {"path": shown(text)})
    if len(text) > MAX_PATH_CHARS:
        return Text("cli.path.long", {"path": shown(text), "limit": MAX_PATH_CHARS})
    longest = max((len(part.encode("utf-8", "surrogateescape"))
                   for part in text.split(os.sep)), default=0)
    if longest > MAX_NAME_BYTES:
        return Text("cli.path.name_long",
                    {"path": shown(text), "size": longest, "limit": MAX_NAME_BYTES})
    return None


def arg_error(key: str, **params: object) -> argparse.ArgumentTypeError:
    """An argparse refusal: the catalog's ``key`` with ``params``, in ``TFLAB_LANG``."""
    return argparse.ArgumentTypeError(render(key, params, cli_lang()) or key)


def path_arg(text: str) -> str:
    """argparse type: a path that this system can look up (not empty, no NUL, not too long)."""
    problem = path_problem(text)
    if problem:
        raise argparse.ArgumentTypeError(problem[cli_lang()])
    return text


def run_id_arg(text: str) -> str:
    """argparse type: a run id (or a run's folder). Run ids never start with ``-``."""
    if text.startswith("-"):
        raise arg_error("cli.arg.run_id", value=shown(text), folder=text[:40])
    return path_arg(text)


def int_range(low: int, high: int | None = None) -> Callable[[str], int]:
    """argparse type: an integer from ``low`` to ``high`` (no upper bound when None)."""
    key = "cli.arg.int_range" if high is not None else "cli.arg.int_min"

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise arg_error(key, low=low, high=high, value=shown(text)) from None
        if value < low or (high is not None and value > high):
            raise arg_error(key, low=low, high=high, value=value)
        return value

    return parse


def fraction_arg(text: str) -> float:
    """argparse type: a split fraction, a number in [0, 1)."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0.0 <= value < 1.0:
        raise arg_error("cli.arg.fraction", value=shown(text))
    return value


def dataset_option(text: str) -> tuple[str, object]:
    """argparse type: ``key=value``; the value is read as JSON when it parses (numbers,
    true, lists), else kept as text."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise arg_error("cli.arg.key_value", value=shown(text))
    try:
        return key.strip(), json.loads(value)
    except (ValueError, RecursionError):
        return key.strip(), value


def read_spec_file(path: str):
    """The model spec in a JSON file.

    Raises:
        SpecError: the file is missing, a folder, too big, not UTF-8 text (a ``.keras``
            model, say), empty, not JSON, or not a valid spec; the message names the path.
    """
    from tfcore.model import from_json

    where = shown(path)
    problem = path_problem(path)
    if problem:
        raise SpecError(key="cli.err.path", params={"problem": problem})
    file = Path(path)
    try:
        if file.is_dir():
            raise SpecError(key="cli.err.spec_dir", params={"path": where})
        if not file.is_file():
            raise SpecError(key="spec.no_file", params={"path": where})
        size = file.stat().st_size
        if size > MAX_SPEC_BYTES:
            raise SpecError(key="cli.err.spec_big",
                            params={"path": where, "size": size, "limit": MAX_SPEC_BYTES})
        raw = file.read_bytes()
    except OSError as exc:
        raise SpecError(key="cli.err.read", params={"path": where,
                                                    "reason": exc.strerror or str(exc)}) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        archive = raw[:2] == b"PK"              # a .keras model or another zip archive
        raise SpecError(key="cli.err.spec_keras" if archive else "cli.err.spec_binary",
                        params={"path": where, "offset": exc.start}) from None
    if not text.strip():
        raise SpecError(key="cli.err.spec_empty", params={"path": where})
    try:
        return from_json(text)
    except SpecError as exc:
        raise SpecError(key="cli.err.in_file", details=exc.details, params={
            "path": where, "problem": Text(exc.key, exc.params)}) from None
    except RecursionError:
        raise SpecError(key="cli.err.spec_deep", params={"path": where}) from None


def runs_root(args: argparse.Namespace, must_exist: bool = False) -> Path:
    """The runs folder: ``--runs-root``, else ``<workspace>/runs``.

    Raises:
        RunError: ``--runs-root`` is a file, or is missing while ``must_exist``.
    """
    from tfcore.workspace import default_workspace

    given = getattr(args, "runs_root", None)
    if not given:
        return default_workspace().runs
    root = Path(given)
    if root.exists() and not root.is_dir():
        raise RunError(key="cli.err.runs_root_file", params={"path": shown(given)})
    if must_exist and not root.is_dir():
        raise RunError(key="cli.err.runs_root_missing", params={"path": shown(given)})
    return root


def check_workspace(text: str) -> Path:
    """The folder named by ``--workspace``; a file there is refused.

    Raises:
        WorkspaceError: the path names a file.
    """
    root = Path(text)
    if root.exists() and not root.is_dir():
        raise WorkspaceError(key="cli.err.workspace_file", params={"path": shown(text)})
    return root
