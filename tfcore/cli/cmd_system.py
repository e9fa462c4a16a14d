"""``version`` and ``devices``: what this install is and which devices it sees."""

from __future__ import annotations

import argparse

from tfcore.cli import print_json


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
    p = sub.add_parser("version", help="TF Lab, TensorFlow, Keras, CUDA versions (JSON)")
    p.set_defaults(func=_version)
    p = sub.add_parser("devices", help="physical and logical devices TensorFlow sees (JSON)")
    p.set_defaults(func=_devices)
