"""``version`` and ``devices``: what this install is and which devices it sees.

``devices`` with device flags first applies them in this fresh process, as a training
worker does (scenario D1), then lists what they made: ``--logical-devices 2`` shows the
two logical CPUs (or GPUs) a split creates, ``--gpus 1`` only the second GPU.
"""

from __future__ import annotations

import argparse

from tfcore.cli import print_json
from tfcore.cli.device_flags import add_device_flags, asked_for_settings, device_config
from tfcore.cli.vocabulary import command


def _version(args: argparse.Namespace) -> int:
    from tfcore import __version__
    from tfcore.tfenv import versions

    print_json({"tfcore": __version__, **versions().to_dict()})
    return 0


def _devices(args: argparse.Namespace) -> int:
    from tfcore.tfenv import describe_devices

    applied = None
    if asked_for_settings(args):
        from tfcore.training import DeviceConfig, apply_device_config

        config = DeviceConfig.from_dict(device_config(args))
        applied = apply_device_config(config)      # before anything else starts TensorFlow
    report = describe_devices().to_dict()
    if applied is not None:
        report["applied"] = {"config": config.to_dict(), "logical": list(applied.logical),
                             "visible_gpus": list(applied.visible_gpus),
                             "strategy": applied.strategy,
                             "number_of_devices": applied.replicas}
    print_json(report)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = command(sub, "version", "TF Lab, TensorFlow, Keras, CUDA versions (JSON)",
                ["python -m tfcore version"])
    p.set_defaults(func=_version)
    p = command(sub, "devices", "physical and logical devices TensorFlow sees (JSON); with "
                "device flags, after applying them as a worker does",
                ["python -m tfcore devices",
                 "python -m tfcore devices --device mirrored --logical-devices 2"])
    add_device_flags(p, device_default=None)
    p.set_defaults(func=_devices)
