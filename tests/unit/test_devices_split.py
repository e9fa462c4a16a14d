"""D1 and D3 in fresh processes: the logical devices a split creates (``devices`` command,
``probe_devices``), the visible-GPU choice refused on a machine without GPUs, and the
MirroredStrategy lab's "Number of devices: 2" with a mirrored variable's per-replica values.

Each case starts a fresh TensorFlow process (the test process has fixed its own devices).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import ROOT
from tfcore.errors import DeviceError
from tfcore.labs import mirrored_demo
from tfcore.tfenv import describe_devices
from tfcore.training import DeviceConfig, probe_devices

TIMEOUT = 300
CPUS = ["/device:CPU:0", "/device:CPU:1", "/device:CPU:2"]


def _devices_cli(*flags: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tfcore", "devices", *flags], cwd=ROOT,
                          capture_output=True, text=True, timeout=TIMEOUT, check=False)


def test_devices_command_lists_the_logical_cpus_a_split_creates() -> None:
    done = _devices_cli("--device", "mirrored", "--logical-devices", "3")
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    assert [d["name"] for d in report["logical"] if d["device_type"] == "CPU"] == CPUS
    assert [d["name"] for d in report["physical"] if d["device_type"] == "CPU"] == \
        ["/physical_device:CPU:0"]                     # one physical CPU, three logical
    applied = report["applied"]
    assert applied["logical"] == CPUS and applied["strategy"] == "mirrored"
    assert applied["number_of_devices"] == 3
    assert applied["config"]["logical_devices"] == 3


def test_devices_command_without_flags_applies_nothing() -> None:
    done = _devices_cli()
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    assert "applied" not in report
    assert len([d for d in report["logical"] if d["device_type"] == "CPU"]) == 1


@pytest.mark.skipif(describe_devices().gpu_count > 0, reason="checks a machine without GPUs")
def test_a_gpu_choice_on_a_machine_without_gpus_is_a_clear_error() -> None:
    done = _devices_cli("--device", "mirrored", "--gpus", "0")
    assert done.returncode == 2 and "sees no GPU" in done.stderr, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    with pytest.raises(DeviceError) as info:
        probe_devices(DeviceConfig(kind="gpu", gpus=(0,)))
    assert info.value.key == "errors.device_no_gpu"


def test_probe_devices_sees_the_split_as_a_worker_would() -> None:
    applied = probe_devices(DeviceConfig(kind="mirrored", logical_devices=2))
    assert applied.logical[:2] == tuple(CPUS[:2]) and applied.replicas == 2
    assert applied.strategy == "mirrored"
    # the result is cached per server process: the same config does not start a process
    assert probe_devices(DeviceConfig(kind="mirrored", logical_devices=2)) is applied


def test_mirrored_strategy_lab_over_two_logical_cpus() -> None:
    demo = mirrored_demo(2)
    assert demo.number_of_devices == 2
    assert [d.rsplit("/", 1)[-1] for d in demo.devices] == ["device:CPU:0", "device:CPU:1"]
    assert demo.variable_type == "MirroredVariable"
    assert [c.values for c in demo.created] == [(1.0, 2.0, 3.0)] * 2
    assert [c.values for c in demo.updated] == [(1.5, 2.5, 3.5)] * 2
    assert [c.device for c in demo.created] == list(demo.devices)
    assert demo.replica_ids == (0, 1) and demo.replica_id_sum == 1
    assert "print('Number of devices: {}'.format(strategy.num_replicas_in_sync))" in demo.code
    with pytest.raises(DeviceError):
        mirrored_demo(9)
