"""The job manager: start, queue, stop, resume and re-attach training workers.

Each run trains in its own process, ``python -m tfcore.training.worker RUN_DIR``, started in its
own session so a crash (or an out-of-memory kill) never reaches the dashboard. At most
``TFLAB_MAX_WORKERS`` (default 1) run at once; the rest wait as ``queued`` with their
position in ``status.json``. :func:`reconcile` is the server-restart path: runs whose
worker is gone are marked ``interrupted`` and queued runs are started when a slot is free.
A file lock in the runs root keeps several dashboard sessions from double-starting a run.

Warm start: after :func:`prewarm` (the dashboard calls it once) a run whose DeviceConfig
equals an idle warm worker's (``tfcore.training.pool``) is handed to that process, which has
already imported TensorFlow; others start cold. ``status.json`` says which (``start``:
``warm`` | ``cold``), and the worker reports its ``phase`` (``starting``,
``loading_data``, ``building``, ``restoring`` with ``phase_checkpoint``, ``training``,
``evaluating``, ``saving``; None when done). Finished children are reaped on every
:func:`reconcile` and status read (:func:`reap`), so none stays a zombie.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Mapping

from tfcore import settings
from tfcore.errors import RunError
from tfcore.jsonio import read_json
from tfcore.procs import alive as process_alive
from tfcore.rundir import (
    INTERRUPTED,
    QUEUED,
    RUNNING,
    STOPPED,
    STOPPING,
    RunPaths,
    RunStore,
    RunWriter,
    run_name_base,
    run_names,
    unique_run_name,
)
from tfcore.training import cluster_jobs
from tfcore.training.cluster import cpu_env, pin
from tfcore.training.devices import DeviceConfig
from tfcore.training.loss_choice import settle_loss
from tfcore.training.pool import POOL, PROJECT_ROOT, warm_enabled, worker_env
from tfcore.training.request import RunRequest, read_request

_children: dict[int, subprocess.Popen] = {}


def reap() -> list[int]:
    """Wait for every worker this process started that has ended (no zombies); returns
    their pids."""
    ended = [pid for pid, child in list(_children.items()) if child.poll() is not None]
    for pid in ended:
        _children.pop(pid, None)
    return ended


def prewarm(devices: tuple[DeviceConfig, ...] | None = None) -> bool:
    """Keep a warm worker ready (default: the default CPU DeviceConfig) so Start does
    not wait for TensorFlow's import; False when ``TFLAB_WARM_WORKER=0``."""
    return POOL.arm(devices or (DeviceConfig(),))


def warm_ready(device: DeviceConfig | None = None) -> bool:
    """Whether an idle warm worker for ``device`` (default CPU) has warmed up."""
    return POOL.ready(device or DeviceConfig())


def stop_warm() -> None:
    """End the idle warm workers and stop keeping any ready."""
    POOL.shutdown()


def max_workers() -> int:
    """How many workers may train at once (env ``TFLAB_MAX_WORKERS``, default 1)."""
    return settings.max_workers()


MAX_WORKERS = max_workers()


@contextmanager
def _locked(runs_root: Path) -> Iterator[None]:
    runs_root.mkdir(parents=True, exist_ok=True)
    with open(runs_root / ".jobs.lock", "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def pid_alive(pid: int | None) -> bool:
    """Whether ``pid`` is a live training process (zombies and pids reused by a
    non-Python program are not)."""
    if not pid:
        return False
    reap()
    child = _children.get(pid)
    if child is not None:
        if child.poll() is None:
            return True
        _children.pop(pid, None)
        return False
    if not process_alive(pid, reap=True):
        return False
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return True  # no /proc: trust kill(0)
    return b"tfcore" in cmdline or b"python" in cmdline   # else: a reused pid


def start_run(runs_root: Path, request: Mapping[str, Any], run_id: str | None = None) -> str:
    """Create a run directory from ``request`` (the ``run.json`` body) and queue it;
    it starts at once when a worker slot is free.

    Raises:
        SpecError, RunError, DeviceError, DatasetError: the request is invalid.
    """
    from tfcore.tfenv import versions

    runs_root = Path(runs_root)
    checked = RunRequest.from_dict(request)       # refuse what can never train, before
    checked.check()                               # anything is written
    body, _ = settle_loss(checked.to_dict())     # the loss the last layer's output needs
    body["versions"] = versions().to_dict()
    with _locked(runs_root):                      # a name no other run of the folder has
        body["name"] = unique_run_name(run_name_base(body), run_names(runs_root))
        writer = RunWriter.create(runs_root, body, run_id)
        writer.set_status(queued_at=time.time())
    reconcile(runs_root)
    return writer.paths.run_id


def _launch(paths: RunPaths, running: list[dict] | None = None) -> int:
    """Start a queued run: hand it to a warm worker with its device settings, else
    start a cold worker (a cluster run: its worker processes). Status is written before
    the worker can write its own. With ``TFLAB_MAX_WORKERS > 1`` the run gets the first
    free CPU slot (affinity and thread limits; such runs start cold)."""
    request = read_request(paths)       # None: the (cold) worker reports what is wrong
    device = request.device if request is not None else None
    slot, cpus = cluster_jobs.cpu_slot(running or [], max_workers())
    if request is not None and request.is_cluster:
        return _launch_cluster(paths, request, slot, cpus)
    divided = slot is not None
    warm = POOL.take(device) if device is not None and warm_enabled() and not divided \
        else None
    if warm is not None:
        RunWriter(paths).set_status(state=RUNNING, pid=warm.pid, queue_position=None,
                                    launched=time.time(), start="warm", phase="starting")
        if POOL.hand(warm, paths.root):
            _children[warm.pid] = warm.proc
            return warm.pid
    writer = RunWriter(paths)
    writer.set_status(state=RUNNING, pid=None, queue_position=None, launched=time.time(),
                      start="cold", phase="starting", cpu_slot=slot,
                      cpu_set=list(cpus) if divided else None)
    env = worker_env() | (cpu_env(cpus) if divided else {})
    with open(paths.log, "ab") as log:
        proc = subprocess.Popen([sys.executable, "-m", "tfcore.training.worker", str(paths.root)],
                                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True, cwd=str(PROJECT_ROOT), env=env)
    if divided:
        pin(proc.pid, cpus)
    _children[proc.pid] = proc
    writer.set_status(pid=proc.pid)
    return proc.pid


def _launch_cluster(paths: RunPaths, request: RunRequest, slot: int | None, cpus: list[int],
                    attempt: int = 1) -> int:
    """Start a cluster run's local worker processes (the chief's pid is the run's)."""
    RunWriter(paths).set_status(state=RUNNING, pid=None, queue_position=None,
                                launched=time.time(), start="cold", phase="starting",
                                cpu_slot=slot, cpu_set=list(cpus) if slot is not None else None)
    procs = cluster_jobs.launch(paths, request, cpus, worker_env(), PROJECT_ROOT, attempt)
    for proc in procs:
        _children[proc.pid] = proc
    RunWriter(paths).set_status(pid=procs[0].pid)
    return procs[0].pid


def _supervise_cluster(record: Any, started: dict) -> str:
    """A running cluster run: restart it when a local worker died (see
    ``cluster_jobs.supervise``)."""
    status = dict(read_json(record.paths.status_json, {}) or {})

    def relaunch() -> None:
        request = read_request(record.paths)
        if request is None:                  # run.json went bad: the restarts run out
            return
        cpus = started.get("cpu_set") or cluster_jobs.cpu_slot([], 1)[1]
        attempt = int(started.get("attempt") or 1) + 1
        procs = cluster_jobs.launch(record.paths, request, cpus, worker_env(), PROJECT_ROOT,
                                    attempt)
        for proc in procs:
            _children[proc.pid] = proc
        RunWriter(record.paths).set_status(pid=procs[0].pid)
    return cluster_jobs.supervise(record.paths, status, started, pid_alive, relaunch)


def _mark_interrupted(paths: RunPaths) -> None:
    current = read_json(paths.status_json, {}) or {}
    if current.get("state") in (RUNNING, STOPPING):   # re-read: it may have just finished
        RunWriter(paths).set_status(state=INTERRUPTED, message="The worker process ended "
                                    "without finishing (killed or crashed).",
                                    error_key="train.err.interrupted")


@dataclass(frozen=True)
class ReconcileReport:
    """What one reconcile pass found and did."""

    running: tuple[str, ...]
    interrupted: tuple[str, ...]
    started: tuple[str, ...]
    queued: tuple[str, ...]


def reconcile(runs_root: Path, exclude_pid: int | None = None) -> ReconcileReport:
    """Mark runs whose worker is gone ``interrupted``; start queued runs in free slots;
    refresh queue positions. Safe to call often and from several processes."""
    runs_root = Path(runs_root)
    store = RunStore(runs_root)
    reap()
    with _locked(runs_root):
        running, interrupted, queued = [], [], []
        holders: list[dict] = []            # status of runs holding a CPU slot
        for record in store.list():
            state = record.status.state
            extra = record.status.extra
            cluster = cluster_jobs.launched(record.paths) \
                if state not in (QUEUED, INTERRUPTED) else None
            mine = exclude_pid is not None and record.status.pid == exclude_pid
            if cluster and state in (RUNNING, STOPPING) and not mine:
                outcome = _supervise_cluster(record, cluster)
                if outcome in ("alive", "restarted"):
                    running.append(record.run_id)
                    holders.append(dict(extra))
                    continue
                if outcome != "dead":
                    continue
            elif cluster and state not in (RUNNING, STOPPING):
                cluster_jobs.end_leftovers(record.paths, pid_alive)
            if state in (RUNNING, STOPPING):
                pid = record.status.pid
                if pid != exclude_pid and pid_alive(pid):
                    running.append(record.run_id)
                    holders.append(dict(extra))
                elif pid != exclude_pid:
                    _mark_interrupted(record.paths)
                    interrupted.append(record.run_id)
            elif state == QUEUED:
                queued.append(record)
        queued.sort(key=lambda r: (float(r.status.extra.get("queued_at") or 0), r.run_id))
        free = max(0, max_workers() - len(running))
        started = []
        for record in queued[:free]:
            _launch(record.paths, holders)
            holders.append(dict(read_json(record.paths.status_json, {}) or {}))
            started.append(record.run_id)
        busy = running + started            # what the waiting runs wait for
        waiting = queued[free:]
        for position, record in enumerate(waiting, start=1):
            extra = record.status.extra
            if extra.get("queue_position") != position or extra.get("waiting_for") != busy:
                RunWriter(record.paths).set_status(queue_position=position,
                                                   waiting_for=list(busy))
    return ReconcileReport(tuple(running), tuple(interrupted), tuple(started),
                           tuple(r.run_id for r in waiting))


def stop_run(runs_root: Path, run_id: str) -> str:
    """Ask a run to stop: a queued run stops at once, a running one after its current
    batch (with a final checkpoint). Returns the state the run is now in.

    Raises:
        RunError: the run does not exist or is not queued or running.
    """
    runs_root = Path(runs_root)
    store = RunStore(runs_root)
    with _locked(runs_root):
        record = store.get(run_id)
        state = record.status.state
        if state == QUEUED:
            RunWriter(record.paths).set_status(state=STOPPED, queue_position=None)
            return STOPPED
        if state in (RUNNING, STOPPING):
            if pid_alive(record.status.pid):
                store.request_stop(run_id)
                return STOPPING
            _mark_interrupted(record.paths)
            return INTERRUPTED
    raise RunError(key="train.err.not_active", params={"run": run_id, "state": state})


def resume_run(runs_root: Path, run_id: str) -> str:
    """Queue a stopped or interrupted run again; its worker continues from the latest
    checkpoint (step count, optimizer state, metrics). Returns the run id.

    Raises:
        RunError: the run does not exist or is not stopped or interrupted.
    """
    runs_root = Path(runs_root)
    store = RunStore(runs_root)
    with _locked(runs_root):
        record = store.get(run_id)
        state = record.status.state
        if state not in (STOPPED, INTERRUPTED):
            raise RunError(key="train.err.not_resumable", params={"run": run_id, "state": state})
        record.paths.stop_request.unlink(missing_ok=True)
        resumes = int(record.status.extra.get("resumes") or 0) + 1
        RunWriter(record.paths).set_status(state=QUEUED, queued_at=time.time(), pid=None,
                                           message=None, traceback=None, error_key=None,
                                           resumes=resumes)
    reconcile(runs_root)
    return run_id


def checkpoint_steps(paths: RunPaths) -> list[int]:
    """Steps of the checkpoints a run keeps, oldest first (any prefix: ``ckpt-N.index``,
    ``model.ckpt-N.index``)."""
    steps = []
    for index in paths.ckpt_dir.glob("*-*.index"):
        number = index.name[:-len(".index")].rsplit("-", 1)[-1]
        if number.isdigit():
            steps.append(int(number))
    return sorted(steps)


def wait_for(runs_root: Path, run_id: str, timeout: float = 600.0,
             poll: float = 0.2) -> str:
    """Block until a run reaches a final state (for the CLI and tests); returns it."""
    from tfcore.rundir import FINAL_STATES

    store = RunStore(Path(runs_root))
    deadline = time.time() + timeout
    while time.time() < deadline:
        state = store.get(run_id).status.state
        if state in FINAL_STATES:
            return state
        reconcile(Path(runs_root))
        time.sleep(poll)
    raise RunError(key="train.err.timeout", params={"run": run_id, "seconds": timeout})
