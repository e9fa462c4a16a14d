"""The command line: each ``tfcore/cli/cmd_*.py`` module adds its subcommands.

A command module defines ``register(subparsers)`` and sets ``func`` on its parsers; the
function receives the parsed ``argparse.Namespace`` and returns an exit code. Flags come
from one vocabulary (``vocabulary.py``: one spelling per concept, old spellings as hidden
aliases); typed inputs are checked at the boundary (``inputs.py``).

Exit codes: 0 done; 2 a user error (bad argument, file or value: one ``error: ...`` line
on stderr, never a traceback); 1 a failed run or an unexpected error (a bug: a short
message and a hint to rerun with ``--debug``, which shows the traceback).
"""

from __future__ import annotations

import argparse
import importlib
import json
import pkgutil
import sys
import traceback
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from tfcore import __version__
from tfcore import settings
from tfcore.errors import TFLabError
from tfcore.messages import render

__all__ = ["main"]          # what code outside the command line calls

EXIT_OK, EXIT_FAILURE, EXIT_USER_ERROR = 0, 1, 2
MAX_LINE_CHARS = 400
EXAMPLES = ("python -m tfcore presets",
            "python -m tfcore train --preset mlp --dataset digits28 --epochs 3")


def build_parser() -> argparse.ArgumentParser:
    from tfcore.cli.vocabulary import PROG, examples_epilog, walk

    parser = argparse.ArgumentParser(
        prog=PROG, formatter_class=argparse.RawDescriptionHelpFormatter,
        description="TF Lab engine: everything a dashboard page does, from a script.",
        epilog=examples_epilog(EXAMPLES))
    parser.add_argument("--version", action="version", version=f"tfcore {__version__}")
    parser.add_argument("--debug", action="store_true",
                        help="show the traceback of an unexpected error")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("cmd_"):
            importlib.import_module(f"{__name__}.{info.name}").register(sub)
    for path, child in walk(parser):
        if path:  # --debug also after the subcommand; SUPPRESS keeps the global one
            child.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                               help="show the traceback of an unexpected error")
    return parser


def print_json(obj: Any) -> None:
    """Print one JSON document on stdout."""
    print(json.dumps(obj, indent=2, ensure_ascii=False, default=str))


def readable(text: str) -> str:
    """One printable line: control characters escaped, a very long line shortened."""
    text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(text))
    if len(text) > MAX_LINE_CHARS:
        half = MAX_LINE_CHARS // 2
        text = f"{text[:half]} ... {text[-half:]}"
    return text


def _error(message: str, details: Any = None) -> None:
    lines = str(message).splitlines() or [""]
    print(f"error: {readable(lines[0])}", file=sys.stderr)
    for line in lines[1:]:
        print(f"  {readable(line)}", file=sys.stderr)
    if isinstance(details, (list, tuple)):
        for item in details:
            print(f"  - {readable(item)}", file=sys.stderr)


@contextmanager
def _workspace(path: str | None) -> Iterator[None]:
    """Point ``TFLAB_WORKSPACE`` at ``--workspace`` while the command runs (workers too)."""
    if not path:
        yield
        return
    from tfcore.cli.inputs import check_workspace

    with settings.overridden(settings.WORKSPACE, str(check_workspace(path).resolve())):
        yield


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    debug = bool(getattr(args, "debug", False))
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_USER_ERROR if args.command is None and argv else EXIT_OK
    try:
        with _workspace(getattr(args, "workspace", None)):
            return int(args.func(args) or EXIT_OK)
    except TFLabError as exc:
        if debug:
            traceback.print_exc()
        lang = settings.cli_lang()                       # TFLAB_LANG=zh: the Chinese catalog text
        details = exc.details if not isinstance(exc.details, (list, tuple)) else [
            d.text(lang) if callable(getattr(d, "text", None)) else d for d in exc.details]
        _error(exc.text(lang), details)
        return EXIT_USER_ERROR
    except KeyboardInterrupt:
        _error(_say("cli.err.interrupted"))
        return 130
    except OSError as exc:
        if exc.filename is None:
            return _unexpected(exc, debug)
        if debug:
            traceback.print_exc()
        from tfcore.cli.inputs import shown

        _error(_say("cli.err.os", path=shown(exc.filename), reason=exc.strerror or str(exc)))
        return EXIT_USER_ERROR
    except Exception as exc:  # noqa: BLE001 - the boundary: a bug is reported, not hidden
        return _unexpected(exc, debug)


def _say(key: str, **params: Any) -> str:
    """The catalog's ``key`` with ``params`` in ``TFLAB_LANG``."""
    return render(key, params, settings.cli_lang()) or key


def _unexpected(exc: BaseException, debug: bool) -> int:
    if debug:
        traceback.print_exc()
    first = (str(exc).strip().splitlines() or [""])[0]
    _error(_say("cli.err.unexpected", kind=type(exc).__name__, message=first))
    if not debug:
        print(_say("cli.err.bug"), file=sys.stderr)
    return EXIT_FAILURE
