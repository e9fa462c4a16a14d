"""``presets`` and ``spec``: list and show the tutorials' models; check a spec and emit code."""

from __future__ import annotations

import argparse

from tfcore.cli.inputs import int_range, read_spec_file
from tfcore.cli.vocabulary import command
from tfcore.errors import SpecError


def _presets(args: argparse.Namespace) -> int:
    from tfcore.model import get_preset, preset_names

    if args.action == "show":
        if not args.name:
            raise SpecError("Name a preset: python -m tfcore presets show NAME.",
                            key="spec.no_preset", params={"name": ""})
        print(get_preset(args.name).to_json())
        return 0
    for name in preset_names():
        print(name)
    return 0


def format_summary(summary) -> str:
    """The summary as a text table, like ``model.summary()``."""
    rows = [("Layer (type)", "Output shape", "Param #")]
    for row in summary.rows:
        shared = f" -> shares {row.shares}" if row.shares else ""
        rows.append((f"{row.name} ({row.type}){shared}", row.output_shape,
                     "?" if row.params is None else f"{row.params:,}"))
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    lines = ["  ".join(cell.ljust(widths[i]) for i, cell in enumerate(r)) for r in rows]
    lines.insert(1, "-" * len(lines[0]))
    lines += ["-" * len(lines[0]), f"Total params: {summary.total:,}",
              f"Trainable params: {summary.trainable:,}",
              f"Non-trainable params: {summary.non_trainable:,}"]
    if summary.deferred:
        lines.append("No input shape: the model has no weights until it is first called.")
    return "\n".join(lines)


def _check(args: argparse.Namespace) -> int:
    from tfcore.model import summarize

    spec = read_spec_file(args.file)
    summary = summarize(spec, args.param_limit)
    if summary.problems:
        raise SpecError(f"{args.file}: {len(summary.problems)} problem(s).",
                        key="spec.invalid", params={"count": len(summary.problems)},
                        details=[str(p) for p in summary.problems])
    print(format_summary(summary))
    return 0


def _code(args: argparse.Namespace) -> int:
    from tfcore.model import generate

    print(generate(read_spec_file(args.file), args.style))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = command(sub, "presets", "the tutorials' models: list names, or show one as JSON",
                ["python -m tfcore presets",
                 "python -m tfcore presets show cnn > cnn.json"])
    p.add_argument("action", nargs="?", choices=["list", "show"], default="list")
    p.add_argument("name", nargs="?", help="preset name (for show)")
    p.set_defaults(func=_presets)

    spec = command(sub, "spec", "check a model spec file or generate its Keras code",
                   ["python -m tfcore spec check cnn.json",
                    "python -m tfcore spec code cnn.json --style sequential"])
    actions = spec.add_subparsers(dest="spec_command", metavar="ACTION", required=True)
    check = command(actions, "check", "validate and print the summary table "
                                      "(exit 2 with located problems)",
                    ["python -m tfcore spec check cnn.json",
                     "python -m tfcore spec check cnn.json --param-limit 100000"])
    check.add_argument("file", help="model spec JSON file")
    check.add_argument("--param-limit", type=int_range(1), default=None, metavar="N",
                       help="refuse models with more parameters (default 50,000,000)")
    check.set_defaults(func=_check)
    code = command(actions, "code", "print runnable Keras 3 code for the spec",
                   ["python -m tfcore spec code cnn.json",
                    "python -m tfcore spec code cnn.json --style subclass > model.py"])
    code.add_argument("file", help="model spec JSON file")
    code.add_argument("--style", choices=["sequential", "functional", "subclass"],
                      default="functional")
    code.set_defaults(func=_code)
