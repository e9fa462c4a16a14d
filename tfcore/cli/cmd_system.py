"""``version`` and ``devices``: what this install is and which devices it sees."""

from __future__ import annotations

import argparse

from tfcore.cli import print_json
from tfcore.cli.vocabulary import command


def _version(args: argparse.Namespace) -> int:
    from tfcore import __version__
    from tfcore.tfenv import versions

    print_json({"tfcore": __version__, **versions().to_dict()})
    return 0


def _devices(args: argparse.Namespace) -> int:
    from tfcore.tfenv import describe_devices

    print_json(describe_devices().to_dict())
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = command(sub, "version", "TF Lab, TensorFlow, Keras, CUDA versions (JSON)",
                ["python -m tfcore version"])
    p.set_defaults(func=_version)
    p = command(sub, "devices", "physical and logical devices TensorFlow sees (JSON)",
                ["python -m tfcore devices"])
    p.set_defaults(func=_devices)
