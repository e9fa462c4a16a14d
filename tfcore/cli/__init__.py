"""The command line: each ``tfcore/cli/cmd_*.py`` module adds its subcommands.

A command module defines ``register(subparsers)`` and sets ``func`` on its parsers; the
function receives the parsed ``argparse.Namespace`` and returns an exit code. Engine
errors (:class:`tfcore.errors.TFLabError`) print their message and exit with code 2.
"""

from __future__ import annotations

import argparse
import importlib
import json
import pkgutil
import sys
from typing import Any, Sequence

from tfcore import __version__
from tfcore.errors import TFLabError

EXIT_OK, EXIT_FAILURE, EXIT_USER_ERROR = 0, 1, 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m tfcore",
        description="TF Lab engine: everything a dashboard page does, from a script.",
    )
    parser.add_argument("--version", action="version", version=f"tfcore {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("cmd_"):
            importlib.import_module(f"{__name__}.{info.name}").register(sub)
    return parser


def print_json(obj: Any) -> None:
    """Print one JSON document on stdout."""
    print(json.dumps(obj, indent=2, ensure_ascii=False, default=str))


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_USER_ERROR if args.command is None and argv else EXIT_OK
    try:
        return int(args.func(args) or EXIT_OK)
    except TFLabError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        details = exc.details
        if isinstance(details, (list, tuple)):
            for item in details:
                print(f"  - {item}", file=sys.stderr)
        return EXIT_USER_ERROR
