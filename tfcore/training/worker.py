"""``python -m tfcore.training.worker RUN_DIR``: the process that trains one run.

Order matters: device settings are applied before anything else touches TensorFlow.
Everything the worker produces goes into its run directory (see ``tfcore.rundir.store``); a
failure ends in ``status.json`` with state ``failed``, the message and the traceback.
"""

from __future__ import annotations

import os
import signal
import sys
import time
import traceback
from pathlib import Path
from typing import Any

from tfcore.errors import RunError, TFLabError
from tfcore.jsonio import now_iso, read_json
from tfcore.rundir import FAILED, RUNNING, RunPaths, RunWriter
from tfcore.training.devices import AppliedDevices, apply_device_config
from tfcore.training.request import RunRequest


def train_run(paths: RunPaths, writer: RunWriter, request: RunRequest, replicas: int) -> dict:
    """Build, restore, train and evaluate one run in this process (the lifecycle with a
    :class:`~tfcore.training.lifecycle.LocalTopology`); returns the final status fields."""
    from tfcore.training.lifecycle import LocalTopology, train

    return train(request, LocalTopology(paths, writer, request.device, replicas))


def run(run_dir: str, applied: AppliedDevices | None = None) -> int:
    """Train the run in ``run_dir``; returns the process exit code.

    Args:
        applied: the devices a warm worker already applied (its DeviceConfig equals the
            run's); None applies the run's own device settings first (a cold start).
    """
    paths = RunPaths(Path(run_dir).resolve())
    writer = RunWriter(paths)
    writer.set_status(state=RUNNING, pid=os.getpid(), phase="starting")
    started = time.time()
    signal.signal(signal.SIGTERM, lambda *_: paths.stop_request.write_text("SIGTERM"))
    code = 0
    try:
        body = read_json(paths.run_json)
        if not isinstance(body, dict):
            raise RunError(key="train.err.run_json", params={"path": str(paths.run_json)})
        request = RunRequest.from_dict(body)
        applied = applied or apply_device_config(request.device)
        writer.set_status(state=RUNNING, pid=os.getpid(), replicas=applied.replicas,
                          strategy=applied.strategy, devices=list(applied.logical),
                          visible_gpus=list(applied.visible_gpus), started=now_iso(), message=None,
                          traceback=None, queue_position=None, error_key=None)
        fields = train_run(paths, writer, request, applied.replicas)
        writer.set_status(**fields, wall_seconds=round(time.time() - started, 2),
                          ended=now_iso())
    except BaseException as exc:  # noqa: BLE001 - every failure must end in status.json
        code = 1
        fail_status(writer, exc, started)
        print(traceback.format_exc(), file=sys.stderr)
    finally:
        try:
            paths.stop_request.unlink(missing_ok=True)
        except OSError:
            pass
    _advance_queue(paths.root.parent)
    return code


def fail_status(writer: Any, exc: BaseException, started: float) -> None:
    """Record a failure in status.json: its message and key, the traceback, the wall time."""
    key = exc.key if isinstance(exc, TFLabError) else None
    params = exc.params if isinstance(exc, TFLabError) else {}
    message = exc.message if isinstance(exc, TFLabError) else f"{type(exc).__name__}: {exc}"
    writer.set_status(state=FAILED, message=message, error_key=key, error_params=params,
                      traceback=traceback.format_exc(), ended=now_iso(),
                      wall_seconds=round(time.time() - started, 2), phase=None)


def _advance_queue(runs_root: Path) -> None:
    """Start the next queued run now that this slot is free."""
    try:
        from tfcore.training import jobs

        jobs.reconcile(runs_root, exclude_pid=os.getpid())
    except Exception:  # noqa: BLE001 - the queue also advances from the dashboard
        traceback.print_exc()


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: python -m tfcore.training.worker RUN_DIR", file=sys.stderr)
        sys.exit(2)
    sys.exit(run(sys.argv[1]))
