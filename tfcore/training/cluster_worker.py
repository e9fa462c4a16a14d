"""One worker process of a cluster run:
``python -m tfcore.training.cluster_worker --join CLUSTER_FILE --index I [--run-dir DIR]``
(``python -m tfcore worker --join ... --index I`` on another host).

``TF_CONFIG`` is set from the cluster file before TensorFlow is imported, then the
MultiWorkerMirroredStrategy is created first thing (it waits until every worker has
joined). The chief (index 0, started by the job manager with ``--run-dir``) writes the run
directory; another worker writes only its scratch folder: ``<run dir>/cluster/worker-I``
on this machine, else ``<temp>/tflab-<run id>/worker-I``, and an ``exit.json`` there when
it ends, so the job manager can tell a finished worker from a dead one.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import tempfile
import time
import traceback
from pathlib import Path

from tfcore.errors import TFLabError
from tfcore.jsonio import atomic_write_json, now_iso
from tfcore.training.cluster import CLUSTER_DIR, read_cluster_file, tf_config
from tfcore.training.cluster_sync import PEER_LOST
from tfcore.training.worker import fail_status


EXIT_PEER_LOST = 3


def scratch_folder(run_dir: Path | None, run_id: str, index: int) -> Path:
    """Where a non-chief worker keeps its checkpoints and backups."""
    if run_dir is not None and run_dir.exists():
        return run_dir / CLUSTER_DIR / f"worker-{index}"
    return Path(tempfile.gettempdir()) / f"tflab-{run_id}" / f"worker-{index}"


def run(cluster_file: Path, index: int, run_dir: Path | None) -> int:
    """Join the cluster as worker ``index`` and train; returns the exit code."""
    body = read_cluster_file(cluster_file)
    workers = body["workers"]
    if not 0 <= index < len(workers):
        print(f"error: --index must be 0 to {len(workers) - 1}. Received: {index}",
              file=sys.stderr)
        return 2
    os.environ["TF_CONFIG"] = json.dumps(tf_config(workers, index))
    chief = index == 0
    if chief and run_dir is None:
        print("error: worker 0 is the chief; the job manager starts it with the run "
              "directory. Start workers 1 and up here.", file=sys.stderr)
        return 2
    writer = paths = None
    started = time.time()
    if run_dir is not None and run_dir.exists():      # a local worker reads the chief's files
        from tfcore.rundir import RunPaths

        paths = RunPaths(run_dir.resolve())
    if chief:
        from tfcore.rundir import RUNNING, RunWriter

        writer = RunWriter(paths)
        writer.set_status(state=RUNNING, pid=os.getpid(), phase="connecting",
                          cluster_workers=list(workers), traceback=None,
                          error_key=None, queue_position=None, started=now_iso())
    scratch = scratch_folder(run_dir, body["run_id"], index)
    scratch.mkdir(parents=True, exist_ok=True)
    listeners: list = []
    stop_early = []

    def on_term(*_: object) -> None:
        if listeners:
            listeners[0].local_stop = True
        else:
            stop_early.append(True)
    signal.signal(signal.SIGTERM, on_term)
    code = 0
    try:
        from tfcore.tfenv import quiet_tensorflow

        quiet_tensorflow()
        from tfcore.training.cluster_sync import make_strategy

        connecting = _watch_while_connecting(writer, paths, stop_early) if chief else None
        strategy = make_strategy()
        if connecting is not None:
            connecting.set()
        if chief:
            writer.set_status(phase="starting", replicas=strategy.num_replicas_in_sync,
                              strategy="multi_worker_mirrored",
                              devices=[f"/job:worker/replica:0/task:{i}/device:CPU:0"
                                       for i in range(len(workers))])
        from tfcore.training.cluster_train import train_cluster
        from tfcore.training.request import RunRequest

        fields = train_cluster(paths, writer, RunRequest.from_dict(body["request"]), strategy,
                               scratch, listeners)
        if chief:
            writer.set_status(**fields, wall_seconds=round(time.time() - started, 2),
                              ended=now_iso())
    except BaseException as exc:  # noqa: BLE001 - every failure must end in status.json
        code = 1
        if type(exc).__name__ in PEER_LOST:
            code = EXIT_PEER_LOST           # the job manager restarts the cluster
            if chief:
                writer.set_status(phase="lost_worker", message=f"a worker was lost: "
                                  f"{type(exc).__name__}; restarting from the backup")
        elif chief:
            fail_status(writer, exc, started)
        print(traceback.format_exc(), file=sys.stderr, flush=True)
    finally:
        if chief:
            paths.stop_request.unlink(missing_ok=True)
        else:
            scratch.mkdir(parents=True, exist_ok=True)
            atomic_write_json(scratch / "exit.json", {"code": code, "attempt": body.get("attempt"),
                                                      "ended": now_iso()})
    if chief and code != EXIT_PEER_LOST:
        _advance_queue(paths.root.parent)
    return code


def _watch_while_connecting(writer, paths, stop_early: list):
    """While the strategy waits for every worker to join (nothing else can run), a Stop
    or SIGTERM ends the chief at once as *stopped*; returns the event that ends the watch."""
    import threading

    joined = threading.Event()

    def watch() -> None:
        while not joined.wait(0.5):
            if stop_early or paths.stop_request.exists():
                from tfcore.rundir import STOPPED

                paths.stop_request.unlink(missing_ok=True)
                writer.set_status(state=STOPPED, phase=None, ended=now_iso(),
                                  message="stopped while waiting for the workers to join")
                os._exit(0)
    threading.Thread(target=watch, daemon=True).start()
    return joined


def _advance_queue(runs_root: Path) -> None:
    from tfcore.training.worker import _advance_queue as advance   # the one implementation

    advance(runs_root)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tfcore.training.cluster_worker")
    parser.add_argument("--join", required=True, type=Path, help="the cluster file")
    parser.add_argument("--index", required=True, type=int, help="this worker's index")
    parser.add_argument("--run-dir", type=Path, default=None, help="the chief's run directory")
    args = parser.parse_args(argv)
    try:
        return run(args.join, args.index, args.run_dir)
    except TFLabError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
