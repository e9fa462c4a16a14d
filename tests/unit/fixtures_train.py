"""Shared helpers for the training tests: requests, specs and waiting on real run dirs."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from tfcore.model.presets import get_preset
from tfcore.model.spec import ModelSpec
from tfcore.rundir.store import RunStore

# Every wait is bounded: workers share two cores with the whole team.
WAIT = 420.0


def house_linear_spec() -> ModelSpec:
    """Scenario M1: the builder's preset, y = a*x + b as one zero-initialized Dense(1)."""
    return get_preset("house_linear")


def mlp_request(**training) -> dict:
    base = {"epochs": 2, "batch_size": 50, "ckpt_every": 10}
    return {"spec": get_preset("mlp").to_dict(), "dataset": {"name": "digits28"},
            "training": base | training, "device": {"kind": "cpu"}}


def m1_request(steps: int = 10_000, **training) -> dict:
    base = {"steps": steps, "batch_size": 5, "optimizer": "sgd", "learning_rate": 1e-3,
            "loss": "half_sse", "metrics": [], "loop": "custom", "shuffle": False,
            "validate_every": 1000, "ckpt_every": 5000}
    return {"spec": house_linear_spec().to_dict(), "dataset": {"name": "house_prices"},
            "training": base | training, "device": {"kind": "cpu"}}


def wait_until(predicate, timeout: float = WAIT, poll: float = 0.1) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return
        time.sleep(poll)
    raise AssertionError(f"condition not met within {timeout} s")


def train_records(root: Path, run_id: str) -> list[dict]:
    return [r for r in RunStore(root).metrics(run_id).records if r["split"] == "train"]


def end_run(root: Path, run_id: str) -> str:
    """End a run whose ending a test does not check, without waiting for its worker to
    load TensorFlow and reach a batch (what a stop request waits for): a queued run is
    stopped, a worker is killed and the run marked interrupted. Returns the final state."""
    from tfcore.training import jobs

    status = RunStore(root).get(run_id).status
    if status.state == "queued":
        return jobs.stop_run(root, run_id)
    if status.state in ("running", "stopping") and jobs.pid_alive(status.pid):
        os.kill(status.pid, signal.SIGKILL)
        wait_until(lambda: not jobs.pid_alive(status.pid), timeout=60)
        jobs.reconcile(root)
    return RunStore(root).get(run_id).status.state
