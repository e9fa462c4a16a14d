"""Warm workers: pre-started ``python -m tfcore.training.warm`` processes, one per armed
device configuration, that have imported TensorFlow and wait for a run.

The dashboard arms the pool once (:func:`tfcore.training.jobs.prewarm`); the job manager
then hands a queued run whose DeviceConfig equals a warm worker's to it (``take`` +
``hand``) and a replacement starts in the background, ``REPLACE_DELAY`` seconds late so it
does not compete with the run it just handed over. Nothing is pre-started unless armed,
so the CLI and tests start cold workers as before. ``TFLAB_WARM_WORKER=0`` turns warm
starts off. Idle warm workers exit when this process exits (their stdin closes) and are
terminated by :meth:`WarmPool.shutdown` (registered with ``atexit``).
"""

from __future__ import annotations

import atexit
import json
import os
import select
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from tfcore import settings
from tfcore.training.devices import DeviceConfig

PROJECT_ROOT = Path(__file__).resolve().parents[2]
REPLACE_DELAY = 3.0


def warm_enabled() -> bool:
    """Whether warm workers may be used (env ``TFLAB_WARM_WORKER``, default on)."""
    return settings.warm_worker()


def worker_env() -> dict:
    """The environment of a worker process: this one, with the project importable."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(PROJECT_ROOT),
                                                    env.get("PYTHONPATH", "")) if p)
    return env


@dataclass
class WarmWorker:
    """One idle warm worker process and the device settings it applied."""

    proc: subprocess.Popen
    device: DeviceConfig
    spawned: float = field(default_factory=time.time)
    is_ready: bool = False

    @property
    def pid(self) -> int:
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc.poll() is None

    def ready(self) -> bool:
        """Whether it finished warming up (it printed ``ready``); never blocks."""
        if not self.is_ready and self.proc.stdout is not None:
            readable, _, _ = select.select([self.proc.stdout], [], [], 0)
            if readable:
                self.is_ready = self.proc.stdout.readline().strip() == b"ready"
        return self.is_ready and self.alive()

    def close(self) -> None:
        for pipe in (self.proc.stdin, self.proc.stdout):
            try:
                if pipe is not None:
                    pipe.close()
            except OSError:
                pass


class WarmPool:
    """Idle warm workers by DeviceConfig; safe to use from several threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._idle: dict[DeviceConfig, WarmWorker] = {}
        self._armed: set[DeviceConfig] = set()

    def arm(self, devices: Iterable[DeviceConfig] = (DeviceConfig(),)) -> bool:
        """Keep a warm worker ready for each of ``devices``; False when turned off."""
        if not warm_enabled():
            return False
        with self._lock:
            for device in devices:
                self._armed.add(device)
                self._ensure(device, delay=0.0)
        return True

    def _ensure(self, device: DeviceConfig, delay: float) -> None:
        current = self._idle.get(device)
        if current is not None and current.alive():
            return
        if current is not None:
            current.close()
        proc = subprocess.Popen(
            [sys.executable, "-m", "tfcore.training.warm", json.dumps(device.to_dict()),
             str(delay)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, start_new_session=True, cwd=str(PROJECT_ROOT),
            env=worker_env())
        self._idle[device] = WarmWorker(proc, device)

    def take(self, device: DeviceConfig) -> WarmWorker | None:
        """The idle warm worker for ``device`` (removed from the pool), or None; a
        replacement starts when the device is armed."""
        if not warm_enabled():
            return None
        with self._lock:
            worker = self._idle.pop(device, None)
            if worker is not None and not worker.alive():
                worker.close()
                worker = None
            if device in self._armed:
                self._ensure(device, delay=REPLACE_DELAY if worker is not None else 0.0)
        return worker

    @staticmethod
    def hand(worker: WarmWorker, run_dir: Path) -> bool:
        """Give ``worker`` its run; False when it is gone (start cold instead)."""
        try:
            assert worker.proc.stdin is not None
            worker.proc.stdin.write(json.dumps({"run_dir": str(run_dir)}).encode() + b"\n")
            worker.proc.stdin.flush()
        except (OSError, ValueError, AssertionError):
            worker.close()
            return False
        worker.close()
        return True

    def ready(self, device: DeviceConfig | None = None) -> bool:
        """Whether a warm worker for ``device`` (default CPU) is idle and warmed up."""
        device = device or DeviceConfig()
        with self._lock:
            worker = self._idle.get(device)
            return worker is not None and worker.ready()

    def idle_pids(self) -> list[int]:
        with self._lock:
            return [w.pid for w in self._idle.values()]

    def shutdown(self) -> None:
        """Disarm and end every idle warm worker (they hold no run)."""
        with self._lock:
            self._armed.clear()
            workers, self._idle = list(self._idle.values()), {}
        for worker in workers:
            worker.close()
            if worker.alive():
                worker.proc.terminate()
        for worker in workers:
            try:
                worker.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                worker.proc.kill()
                worker.proc.wait()


POOL = WarmPool()
atexit.register(POOL.shutdown)
