"""One command-line vocabulary: the same flag for the same thing in every command.

:data:`CONCEPTS` is the table concept -> ``dest`` and flag spelling. Commands add such a
flag with :func:`add_flag`, which also adds the old spellings as hidden aliases (they
parse, ``--help`` shows only the canonical flag). :func:`command` makes a subcommand whose
``--help`` ends with examples.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

PROG = "python -m tfcore"


@dataclass(frozen=True)
class Concept:
    """One thing a flag names: its ``dest``, canonical flags and old spellings."""

    dest: str
    flags: tuple[str, ...]
    aliases: tuple[str, ...] = ()
    metavar: str | None = None
    help: str = ""


_CONCEPTS = (
    Concept("runs_root", ("--runs-root",), ("--runs-dir",), "DIR",
            "runs folder (default: <workspace>/runs)"),
    Concept("workspace", ("--workspace",), (), "DIR",
            "workspace folder (default: $TFLAB_WORKSPACE or ./workspace)"),
    Concept("spec", ("--spec",), (), "FILE", "model spec JSON file instead of a preset"),
    Concept("preset", ("--preset",), (), "NAME", "preset model name (see: presets)"),
    Concept("dataset", ("--dataset",), ("--data",), "NAME",
            "dataset name: digits28, circles, tfds:mnist, upload:csv:FILE ... (see: data list)"),
    Concept("option", ("-o", "--option"), (), "KEY=VALUE",
            "dataset option, repeatable: -o noise=0.2 -o target=price"),
    Concept("val", ("--val",), (), "FRACTION", "validation fraction"),
    Concept("test", ("--test",), (), "FRACTION", "test fraction"),
    Concept("epochs", ("--epochs",), (), "N", "passes over the training split"),
    Concept("steps", ("--steps",), (), "N", "number of steps"),
    Concept("batch_size", ("--batch-size",), ("--batch",), "N", "examples per batch"),
    Concept("seed", ("--seed",), (), "N", "random seed"),
    Concept("optimizer", ("--optimizer",), (), "NAME", "optimizer name"),
    Concept("lr", ("--lr",), (), "RATE", "learning rate"),
    Concept("device", ("--device",), (), "DEVICE", "device to run on"),
    Concept("ckpt", ("--ckpt",), ("--checkpoint",), "N",
            "checkpoint number (default: the latest)"),
    Concept("ckpt_prefix", ("--ckpt-prefix",), (), "NAME",
            "checkpoint file names NAME-STEP.index (default ckpt; model.ckpt as in the tutorial)"),
    Concept("logical_devices", ("--logical-devices",), (), "N",
            "split the device into N logical devices (0: no split)"),
    Concept("gpus", ("--gpus",), (), "I,J",
            "physical GPUs the process sees, e.g. 0,1 (default: all)"),
    Concept("memory_growth", ("--memory-growth",), (), "on|off",
            "GPU memory: on = allocate as needed (default), off = take it all at start"),
    Concept("memory_limit", ("--memory-limit",), (), "MB",
            "GPU memory cap per logical GPU in MiB (0: no cap)"),
    Concept("keep", ("--keep",), (), "N", "checkpoints to keep"),
    Concept("format", ("--format",), (), "FORMAT", "output format"),
    Concept("out", ("--out",), (), "DIR", "output folder"),
    Concept("steps_per_second", ("--steps-per-second",), (), "RATE",
            "at most this many training steps a second (demo pacing; default: unlimited)"),
)
CONCEPTS: dict[str, Concept] = {c.dest: c for c in _CONCEPTS}


def add_flag(parser: Any, dest: str, **kwargs: Any) -> argparse.Action:
    """Add the concept's canonical flag to ``parser`` (or a group), its aliases hidden.

    ``kwargs`` go to ``add_argument`` (type, default, help, choices ...); a ``help`` that is
    not given is the table's.
    """
    concept = CONCEPTS[dest]
    kwargs.setdefault("help", concept.help)
    if concept.metavar and kwargs.get("action") in (None, "store", "append"):
        kwargs.setdefault("metavar", concept.metavar)
    action = parser.add_argument(*concept.flags, dest=dest, **kwargs)
    hidden = {k: v for k, v in kwargs.items() if k in ("type", "action", "choices", "nargs")}
    for alias in concept.aliases:
        parser.add_argument(alias, dest=dest, help=argparse.SUPPRESS, default=argparse.SUPPRESS,
                            **hidden)
    return action


def examples_epilog(examples: Sequence[str]) -> str:
    """The ``--help`` tail: an ``examples:`` block, one command a line."""
    return "examples:\n" + "\n".join(f"  {line}" for line in examples)


def command(sub: argparse._SubParsersAction, name: str, help: str,
            examples: Sequence[str], description: str | None = None) -> argparse.ArgumentParser:
    """A subcommand whose ``--help`` ends with one or two runnable examples."""
    if not examples or not all(e.startswith(PROG + " ") for e in examples):
        raise ValueError(f"{name}: examples must start with {PROG!r}. Received: {examples!r}")
    return sub.add_parser(name, help=help, description=description or help,
                          epilog=examples_epilog(examples),
                          formatter_class=argparse.RawDescriptionHelpFormatter)


def walk(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    """Yield ``(command path, parser)`` for the parser and every nested subparser."""
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                yield from walk(child, path + (name,))
