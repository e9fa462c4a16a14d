"""The device flags ``train`` and ``devices`` share: ``--device``, ``--logical-devices``,
``--gpus``, ``--memory-growth``, ``--memory-limit`` -> a ``DeviceConfig`` dict.

Scenario D1: which physical GPUs a process sees (``tf.config.set_visible_devices``),
memory growth, a fixed memory limit, and N logical devices carved from one device.
"""

from __future__ import annotations

import argparse

from tfcore.cli.inputs import arg_error, int_range, shown
from tfcore.cli.vocabulary import add_flag
from tfcore.errors import RunError
from tfcore.messages import names
from tfcore.training import DEVICE_KINDS, SETTINGS

_LOGICAL = SETTINGS["logical_devices"]           # DeviceConfig's own bounds
_MEMORY = SETTINGS["memory_limit_mb"]
# The --device spellings: the registry's kinds the shared flags set up (cpu | gpu:N | mirrored).
FLAG_KINDS = {kind.name: kind.flag for kind in DEVICE_KINDS.values() if kind.flag}


def gpu_list(text: str) -> tuple[int, ...]:
    """argparse type: comma-separated GPU indices, ``0,1``; an empty text means all."""
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if not all(p.isdigit() and int(p) < 64 for p in parts):
        raise arg_error("cli.arg.gpu_list", value=shown(text))
    if len(set(parts)) != len(parts):
        raise arg_error("cli.arg.gpu_twice", value=shown(text))
    return tuple(int(p) for p in parts)


def on_off(text: str) -> bool:
    """argparse type: ``on`` / ``off`` (also true/false, yes/no, 1/0)."""
    value = text.strip().lower()
    if value in ("on", "true", "yes", "1"):
        return True
    if value in ("off", "false", "no", "0"):
        return False
    raise arg_error("cli.arg.on_off", value=shown(text))


def add_device_flags(parser: argparse.ArgumentParser, device_default: str | None) -> None:
    """The five device flags (one vocabulary: ``tfcore.cli.vocabulary``)."""
    add_flag(parser, "device", default=device_default, help=" | ".join(FLAG_KINDS.values()))
    add_flag(parser, "logical_devices", type=int_range(_LOGICAL.low, _LOGICAL.high),
             default=_LOGICAL.default)
    add_flag(parser, "gpus", type=gpu_list, default=())
    add_flag(parser, "memory_growth", type=on_off, default=True)
    add_flag(parser, "memory_limit", type=int_range(_MEMORY.low, _MEMORY.high),
             default=_MEMORY.default)


def device_config(args: argparse.Namespace, default_kind: str = "cpu") -> dict:
    """The DeviceConfig dict the flags ask for (checked by ``DeviceConfig.from_dict``).

    Raises:
        RunError: ``--device`` is not cpu, gpu, gpu:N or mirrored, or names a GPU that
            ``--gpus`` also names differently.
    """
    from tfcore.training import DeviceConfig

    text = args.device or default_kind
    kind, _, index = text.partition(":")
    if kind not in FLAG_KINDS or (index and not index.isdigit()) \
            or (index and not FLAG_KINDS[kind].endswith(":N")):
        choices = names(FLAG_KINDS.values())
        raise RunError(key="train.err.device_arg", params={"value": text, "choices": choices})
    gpus = tuple(args.gpus or ())
    if index:
        if gpus and gpus != (int(index),):
            raise RunError(key="cli.err.gpus_twice",
                           params={"device": text, "gpus": ",".join(map(str, gpus))})
        gpus = (int(index),)
    if kind == "cpu" and gpus:
        raise RunError(key="cli.err.gpus_cpu", params={"gpus": ",".join(map(str, gpus))})
    config = {"kind": kind, "gpus": list(gpus), "logical_devices": args.logical_devices,
              "memory_growth": bool(args.memory_growth), "memory_limit_mb": args.memory_limit}
    DeviceConfig.from_dict(config)          # refuse what can never work, before any run
    return config


def asked_for_settings(args: argparse.Namespace) -> bool:
    """Whether any device flag differs from its default (``devices`` then applies them)."""
    return bool(args.device or args.logical_devices or args.gpus or not args.memory_growth
                or args.memory_limit)
