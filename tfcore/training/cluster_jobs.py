"""The job manager's side of cluster runs and CPU sets: start a cluster's worker processes,
notice a dead one and restart the cluster from its last backup, and give concurrent runs
disjoint CPU sets when ``TFLAB_MAX_WORKERS > 1``.

The job manager keeps what it started in ``<run dir>/cluster/pids.json`` (attempt, pid of
each local process, CPU shares, addresses; a file of its own, so the chief's status writes
never race with it); ``status.json`` gets ``restarts`` and ``events`` (what happened, e.g.
``{"key": "cluster.event.restarted", "worker": 1, "step": 40}``: worker 1 restarted from
the backup at step 40), written while no worker of the run is alive.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable, Sequence

from tfcore.jsonio import atomic_write_json, read_json
from tfcore.rundir import FAILED, RUNNING, STOPPED, RunPaths, RunWriter
from tfcore.training.cluster import (
    BACKUP_DIR,
    CLUSTER_DIR,
    CLUSTER_FILE,
    ClusterConfig,
    available_cpus,
    cluster_file_body,
    cpu_env,
    cpu_shares,
    pin,
    worker_addresses,
)
from tfcore.training.cluster_sync import backup_step
from tfcore.training.request import RunRequest, read_request

Alive = Callable[[int | None], bool]


def cpu_slot(status_of_running: Sequence[dict], slots: int) -> tuple[int | None, list[int]]:
    """The first CPU slot no running run holds, and its CPUs; (None, all CPUs) when the
    CPUs are not divided (one run at a time)."""
    cpus = available_cpus()
    if slots <= 1:
        return None, cpus
    used = {s.get("cpu_slot") for s in status_of_running}
    shares = cpu_shares(cpus, slots)
    for slot in range(slots):
        if slot not in used:
            return slot, shares[slot]
    return None, cpus


def launch(paths: RunPaths, request: RunRequest, cpus: Sequence[int], env: dict,
           project_root: Path, attempt: int = 1) -> list[subprocess.Popen]:
    """Write the cluster file (fresh loopback ports) and start every local worker, each
    pinned to its share of ``cpus``; returns the processes, the chief first. With a hosts
    list only the chief starts here (the others join from their hosts)."""
    config = request.cluster or ClusterConfig()
    addresses = worker_addresses(config)
    cluster_file = paths.root / CLUSTER_FILE
    atomic_write_json(cluster_file, cluster_file_body(paths.run_id, request.to_dict(),
                                                      addresses, attempt))
    local = config.size if config.local else 1
    shares = cpu_shares(cpus, local)
    procs = []
    for index in range(local):
        scratch = paths.root / CLUSTER_DIR / f"worker-{index}"
        (scratch / "exit.json").unlink(missing_ok=True)
        scratch.mkdir(parents=True, exist_ok=True)
        log = paths.log if index == 0 else scratch / "log.txt"
        with open(log, "ab") as out:
            procs.append(subprocess.Popen(
                [sys.executable, "-m", "tfcore.training.cluster_worker", "--join",
                 str(cluster_file), "--index", str(index), "--run-dir", str(paths.root)],
                stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                start_new_session=True, cwd=str(project_root),
                env=env | cpu_env(shares[index])))
        pin(procs[-1].pid, shares[index])
    atomic_write_json(pids_file(paths), {
        "attempt": attempt, "pids": {str(i): p.pid for i, p in enumerate(procs)},
        "cpus": [list(s) for s in shares], "workers": addresses, "local": config.local,
        "cpu_set": list(cpus)})
    return procs


def pids_file(paths: RunPaths) -> Path:
    return paths.root / CLUSTER_DIR / "pids.json"


def launched(paths: RunPaths) -> dict | None:
    """What the job manager started for a cluster run (None: not a cluster run)."""
    data = read_json(pids_file(paths), None)
    return data if isinstance(data, dict) else None


def _kill(pids: Sequence[int]) -> None:
    for pid in pids:
        try:
            os.killpg(pid, signal.SIGKILL)          # each worker leads its own session
        except (ProcessLookupError, PermissionError):
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass


def _pids(started: dict) -> dict[int, int]:
    raw = started.get("pids") or {}
    try:
        return {int(k): int(v) for k, v in raw.items()} if isinstance(raw, dict) else {}
    except (TypeError, ValueError):
        return {}


def _ended_well(paths: RunPaths, index: int) -> bool:
    data = read_json(paths.root / CLUSTER_DIR / f"worker-{index}" / "exit.json", {}) or {}
    return isinstance(data, dict) and data.get("code") == 0


def supervise(paths: RunPaths, status: dict, started: dict, alive: Alive,
              relaunch: Callable[[], Any]) -> str:
    """Check a running cluster's local processes: ``"alive"``; ``"restarted"`` (one died,
    or the chief ended because it lost a remote peer: every local worker was ended, an event
    recorded and the cluster started again, continuing from the backup; remote workers
    rejoin when their command is run again); ``"stopped"`` (a worker died after a stop
    request); ``"failed"`` (too many restarts); ``"dead"`` (nothing of the run is known
    to run here: the caller marks it interrupted)."""
    pids = _pids(started)              # a hosts list: only the chief runs here
    if not pids:
        return "alive" if alive(status.get("pid")) else "dead"
    dead = [i for i, pid in sorted(pids.items()) if not alive(pid) and
            not (i > 0 and _ended_well(paths, i))]
    if not dead:
        return "alive"
    _kill([pid for pid in pids.values() if alive(pid)])
    writer = RunWriter(paths)
    request = read_request(paths)
    config = request.cluster if request is not None and request.cluster else ClusterConfig()
    restarts = int(status.get("restarts") or 0)
    if paths.stop_request.exists():
        paths.stop_request.unlink(missing_ok=True)
        writer.set_status(state=STOPPED, phase=None, message=f"worker {dead[0]} ended "
                          "during the stop; the latest checkpoint is kept.")
        return "stopped"
    backup, ckpt = backup_step(paths.root / BACKUP_DIR), _latest_ckpt(paths)
    step, source = (backup, "backup") if backup > ckpt else (ckpt, "checkpoint")
    events = list(status.get("events") or [])
    event = {"key": "cluster.event.restarted", "worker": dead[0], "step": step,
             "source": source, "time": round(time.time(), 3)}
    if restarts >= config.max_restarts:
        events.append(event | {"key": "cluster.event.gave_up"})
        writer.set_status(state=FAILED, phase=None, events=events, error_key="cluster.err.gave_up",
                          error_params={"worker": dead[0], "restarts": restarts},
                          message=f"worker {dead[0]} died again after {restarts} restarts; "
                                  "the run stopped (the checkpoints are kept).")
        return "failed"
    events.append(event)
    writer.set_status(state=RUNNING, restarts=restarts + 1, events=events, phase="starting",
                      message=f"worker {dead[0]} restarted from {source} at step {step}")
    relaunch()
    return "restarted"


def _latest_ckpt(paths: RunPaths) -> int:
    steps = []
    for index in paths.ckpt_dir.glob("*-*.index"):
        number = index.name[:-len(".index")].rsplit("-", 1)[-1]
        if number.isdigit():
            steps.append(int(number))
    return max(steps, default=0)


def end_leftovers(paths: RunPaths, alive: Alive) -> None:
    """Once a cluster run reached a final state, end any worker still waiting (once)."""
    started = launched(paths)
    if not started or started.get("ended"):
        return
    _kill([pid for i, pid in _pids(started).items() if i > 0 and alive(pid)])
    atomic_write_json(pids_file(paths), started | {"ended": True})
