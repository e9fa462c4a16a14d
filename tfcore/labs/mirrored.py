"""MirroredStrategy lab (D3): "Number of devices: N" and a variable mirrored on each replica.

The dashboard's own TensorFlow has fixed its devices, so the demo runs in a fresh process
(``python -m tfcore.labs.mirrored N``) that first splits the CPU into ``N`` logical devices
(``N`` = 0: the devices this machine has, every GPU or the one CPU), then creates a
``tf.distribute.MirroredStrategy``, a variable in its scope, and reads the variable's
per-replica copies with ``strategy.experimental_local_results``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass

from tfcore.errors import DeviceError

MAX_LOGICAL = 8
TIMEOUT_S = 180.0
START = [1.0, 2.0, 3.0]
STEP = [0.5, 0.5, 0.5]


@dataclass(frozen=True)
class ReplicaValue:
    """One replica's copy of a mirrored value: where it lives and what it holds."""

    device: str
    values: tuple[float, ...]


@dataclass(frozen=True)
class MirroredDemo:
    """What the strategy reported (``num_replicas_in_sync``) and the variable's copies."""

    number_of_devices: int
    devices: tuple[str, ...]
    variable_type: str
    created: tuple[ReplicaValue, ...]        # right after tf.Variable(START) in scope
    updated: tuple[ReplicaValue, ...]        # after v.assign_add(STEP) outside a replica
    replica_ids: tuple[int, ...]             # strategy.run(replica id) per replica
    replica_id_sum: int                      # strategy.reduce(SUM, ...)
    code: str


def demo_code(logical: int) -> str:
    """The script the lab runs, as a person would write it."""
    split = (f"cpu = tf.config.list_physical_devices('CPU')[0]\n"
             f"tf.config.set_logical_device_configuration(\n"
             f"    cpu, [tf.config.LogicalDeviceConfiguration()] * {logical})\n"
             f"devices = [d.name for d in tf.config.list_logical_devices('CPU')]\n"
             f"strategy = tf.distribute.MirroredStrategy(devices)\n") if logical else \
        "strategy = tf.distribute.MirroredStrategy()\n"
    return (split + "print('Number of devices: {}'.format(strategy.num_replicas_in_sync))\n"
            f"with strategy.scope():\n    v = tf.Variable({START})\n"
            "[(c.device, c.numpy()) for c in strategy.experimental_local_results(v)]\n"
            f"v.assign_add({STEP})\n"
            "ids = strategy.run(lambda: tf.distribute.get_replica_context()"
            ".replica_id_in_sync_group)\n"
            "strategy.experimental_local_results(ids)\n"
            "strategy.reduce(tf.distribute.ReduceOp.SUM, ids, axis=None)")


def mirrored_demo(logical: int = 2, timeout: float = TIMEOUT_S) -> MirroredDemo:
    """Run the MirroredStrategy demo over ``logical`` logical CPUs (0: this machine's own
    devices) in a fresh process.

    Raises:
        DeviceError: ``logical`` is out of range, or the process failed or did not answer.
    """
    if isinstance(logical, bool) or not isinstance(logical, int) \
            or not 0 <= logical <= MAX_LOGICAL:
        raise DeviceError(key="devices.err.logical_count",
                          params={"value": repr(logical), "max": MAX_LOGICAL})
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    try:
        done = subprocess.run([sys.executable, "-m", "tfcore.labs.mirrored", str(logical)],
                              capture_output=True, text=True, timeout=timeout, env=env,
                              check=False)
    except subprocess.TimeoutExpired:
        raise DeviceError(key="devices.err.probe_timeout",
                          params={"seconds": round(timeout)}) from None
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        message = (done.stderr.strip().splitlines() or ["no answer"])[-1]
        raise DeviceError(key="devices.err.probe", params={"message": message})
    data = json.loads(lines[-1])
    return MirroredDemo(
        number_of_devices=int(data["number_of_devices"]), devices=tuple(data["devices"]),
        variable_type=data["variable_type"],
        created=tuple(ReplicaValue(d, tuple(v)) for d, v in data["created"]),
        updated=tuple(ReplicaValue(d, tuple(v)) for d, v in data["updated"]),
        replica_ids=tuple(data["replica_ids"]), replica_id_sum=int(data["replica_id_sum"]),
        code=demo_code(logical))


def _copies(strategy, value) -> list:
    return [[c.device, [float(x) for x in c.numpy().ravel()]]
            for c in strategy.experimental_local_results(value)]


def _run(logical: int) -> dict:
    """The demo itself (in the fresh process)."""
    import tensorflow as tf

    if logical:
        tf.config.set_visible_devices([], "GPU")
        cpu = tf.config.list_physical_devices("CPU")[0]
        tf.config.set_logical_device_configuration(
            cpu, [tf.config.LogicalDeviceConfiguration()] * logical)
        strategy = tf.distribute.MirroredStrategy(
            [d.name for d in tf.config.list_logical_devices("CPU")])
    else:
        strategy = tf.distribute.MirroredStrategy()
    with strategy.scope():
        v = tf.Variable(START)
    created = _copies(strategy, v)
    v.assign_add(STEP)
    ids = strategy.run(lambda: tf.distribute.get_replica_context().replica_id_in_sync_group)
    total = strategy.reduce(tf.distribute.ReduceOp.SUM, ids, axis=None)
    return {"number_of_devices": int(strategy.num_replicas_in_sync),
            "devices": list(strategy.extended.worker_devices),
            "variable_type": type(v).__name__, "created": created,
            "updated": _copies(strategy, v),
            "replica_ids": [int(i) for i in strategy.experimental_local_results(ids)],
            "replica_id_sum": int(total)}


if __name__ == "__main__":
    from tfcore.tfenv import quiet_tensorflow

    quiet_tensorflow()
    print(json.dumps(_run(int(sys.argv[1]))), flush=True)
