"""What a DeviceConfig makes, seen from a fresh process (scenario D1).

TensorFlow fixes its devices when it starts, so the dashboard cannot split its own CPU to
show the logical devices a split creates. :func:`probe_devices` starts
``python -m tfcore.training.device_probe CONFIG_JSON``, which applies the settings exactly
as a training worker does (``apply_device_config``) and prints what it got as one JSON line.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from functools import lru_cache

from tfcore.errors import DeviceError, TFLabError
from tfcore.training.devices import AppliedDevices, DeviceConfig, apply_device_config

PROBE_TIMEOUT_S = 180.0


def _applied_dict(applied: AppliedDevices) -> dict:
    return {"visible_gpus": list(applied.visible_gpus), "logical": list(applied.logical),
            "strategy": applied.strategy, "replicas": applied.replicas}


@lru_cache(maxsize=32)
def probe_devices(config: DeviceConfig, timeout: float = PROBE_TIMEOUT_S) -> AppliedDevices:
    """The devices a worker with ``config`` would get: visible GPUs, logical devices (the
    split's ``/device:CPU:0``, ``/device:CPU:1`` ...), strategy and replica count.

    Cached per server process (the machine's devices do not change while it runs).

    Raises:
        DeviceError: the settings cannot be applied here (the child's message), or the
            probe did not answer within ``timeout`` seconds.
    """
    config.check()
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    try:
        done = subprocess.run([sys.executable, "-m", "tfcore.training.device_probe",
                               json.dumps(config.to_dict())], capture_output=True, text=True,
                              timeout=timeout, env=env, check=False)
    except subprocess.TimeoutExpired:
        raise DeviceError(key="devices.err.probe_timeout",
                          params={"seconds": round(timeout)}) from None
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    answer = json.loads(lines[-1]) if lines else {}
    if done.returncode != 0 or "error" in answer or "logical" not in answer:
        message = answer.get("error") or (done.stderr.strip().splitlines() or [""])[-1]
        if answer.get("key"):
            raise DeviceError(key=answer["key"], params=answer.get("params") or {})
        if not message:
            raise DeviceError(key="devices.err.no_answer", params={"code": done.returncode})
        raise DeviceError(key="devices.err.probe", params={"message": message})
    return AppliedDevices(visible_gpus=tuple(answer["visible_gpus"]),
                          logical=tuple(answer["logical"]), strategy=answer["strategy"],
                          replicas=int(answer["replicas"]))


def main(argv: list[str]) -> int:
    """Apply the DeviceConfig JSON in ``argv[0]``; print the result (or the error) as JSON."""
    try:
        config = DeviceConfig.from_dict(json.loads(argv[0]))
        print(json.dumps(_applied_dict(apply_device_config(config))), flush=True)
        return 0
    except TFLabError as exc:
        print(json.dumps({"error": exc.message, "key": exc.key, "params": exc.params},
                         default=str), flush=True)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
