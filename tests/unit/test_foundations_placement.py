"""Device placement lab (D2): .device, try_gpu fallback, mixing devices, unknown device."""

from __future__ import annotations

import pytest

from tfcore.errors import DeviceError
from tfcore.labs.placement import (
    check_device,
    logical_devices,
    mix,
    num_gpus,
    place,
    try_all_gpus,
    try_gpu,
)


def test_cpu_placement_and_device_string() -> None:
    placed = place("cpu:0", shape=(2, 2), seed=3)
    assert placed.requested == "/CPU:0" and placed.device.endswith("CPU:0")
    assert placed.values.shape == (2, 2)
    assert "/CPU:0" in logical_devices()


def test_try_gpu_falls_back_to_cpu() -> None:
    gpus = num_gpus()
    assert try_gpu(0) == ("/GPU:0" if gpus else "/CPU:0")
    assert try_gpu(gpus) == "/CPU:0"      # one past the last GPU is never there
    assert try_all_gpus() == ([f"/GPU:{i}" for i in range(gpus)] or ["/CPU:0"])


def test_unknown_device_is_refused_with_the_list() -> None:
    with pytest.raises(DeviceError, match="/CPU:0") as info:
        check_device(f"/GPU:{num_gpus() + 3}")
    assert info.value.key == "foundations.err.device_unknown"


def test_mixing_devices() -> None:
    result = mix("/CPU:0", "/CPU:0")
    assert result.result_device == "/CPU:0" and not result.copied
    if num_gpus():
        moved = mix("/CPU:0", "/GPU:0", run_on="/GPU:0")
        assert moved.result_device == "/GPU:0" and moved.copied
