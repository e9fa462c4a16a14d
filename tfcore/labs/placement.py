"""Device placement lab (D2): put tensors on a device, read ``.device``, mix devices.

``try_gpu(i)`` returns ``/GPU:i`` when that GPU exists and ``/CPU:0`` otherwise;
``try_all_gpus()`` every GPU, or ``[/CPU:0]`` when there is none.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tfcore.errors import DeviceError
from tfcore.messages import Names

CPU = "/CPU:0"


def logical_devices() -> list[str]:
    """Names like ``/CPU:0``, ``/GPU:0`` of the logical devices this process can use."""
    import tensorflow as tf

    names = []
    for dev in tf.config.list_logical_devices():
        kind, index = dev.name.rsplit("device:", 1)[-1].split(":")
        names.append(f"/{kind}:{index}")
    return names


def num_gpus() -> int:
    import tensorflow as tf

    return len(tf.config.list_logical_devices("GPU"))


def try_gpu(i: int = 0) -> str:
    """``/GPU:i`` if this process has at least ``i + 1`` GPUs, else ``/CPU:0``."""
    return f"/GPU:{i}" if num_gpus() >= i + 1 else CPU


def try_all_gpus() -> list[str]:
    """Every GPU as ``/GPU:i``; ``[/CPU:0]`` when there is none."""
    return [f"/GPU:{i}" for i in range(num_gpus())] or [CPU]


def check_device(name: str) -> str:
    """Return ``name`` normalized (``/GPU:0``) if this process has it.

    Raises:
        DeviceError: the device does not exist here; the message lists those that do.
    """
    text = (name or "").strip()
    norm = text if text.startswith("/") else f"/{text}"
    norm = norm.upper().replace("/DEVICE:", "/")
    available = logical_devices()
    if norm not in available:
        raise DeviceError(key="foundations.err.device_unknown",
                          params={"device": text, "available": Names(available)})
    return norm


@dataclass(frozen=True)
class Placement:
    """A tensor created under ``tf.device(requested)``: where it actually lives."""

    requested: str
    device: str
    values: np.ndarray
    code: str


def place(device: str, shape: tuple[int, ...] = (2, 3), seed: int = 0) -> Placement:
    """Create a seeded uniform tensor under ``tf.device(device)`` and read its ``.device``.

    Raises:
        DeviceError: an unknown device.
    """
    import tensorflow as tf

    dev = check_device(device)
    with tf.device(dev):
        value = tf.random.stateless_uniform(shape, seed=(seed, 0))
    return Placement(dev, value.device, value.numpy(),
                     f"with tf.device('{dev}'):\n"
                     f"    x = tf.random.stateless_uniform({list(shape)}, seed=({seed}, 0))\n"
                     "x.device")


@dataclass(frozen=True)
class MixResult:
    """An operation on two tensors living on different devices."""

    a_device: str
    b_device: str
    run_on: str
    result_device: str
    copied: bool
    code: str


def mix(device_a: str, device_b: str, run_on: str | None = None) -> MixResult:
    """Add a tensor on ``device_a`` to one on ``device_b``, optionally under ``tf.device(run_on)``.

    TensorFlow copies an input to the device that runs the op; ``copied`` says one of the
    inputs had to move.

    Raises:
        DeviceError: an unknown device.
    """
    import tensorflow as tf

    a_dev, b_dev = check_device(device_a), check_device(device_b)
    target = check_device(run_on) if run_on else None
    with tf.device(a_dev):
        a = tf.ones((2, 2))
    with tf.device(b_dev):
        b = tf.ones((2, 2))
    if target:
        with tf.device(target):
            c = a + b
    else:
        c = a + b
    short = _short(c.device)
    where = f"with tf.device('{target}'):\n    c = a + b" if target else "c = a + b"
    return MixResult(_short(a.device), _short(b.device), target or "", short,
                     copied=_short(a.device) != short or _short(b.device) != short,
                     code=f"with tf.device('{a_dev}'):\n    a = tf.ones((2, 2))\n"
                          f"with tf.device('{b_dev}'):\n    b = tf.ones((2, 2))\n"
                          f"{where}\nc.device")


def _short(full: str) -> str:
    """``/job:localhost/replica:0/task:0/device:GPU:0`` -> ``/GPU:0``."""
    if "device:" not in full:
        return full
    return "/" + full.rsplit("device:", 1)[-1]
