"""One worker's part of a cluster run under MultiWorkerMirroredStrategy: the run lifecycle
(``tfcore.training.lifecycle``) with the cluster's hooks.

Every worker runs the same loop (``fit`` or GradientTape) on its shard of every global
batch. The chief (index 0) writes the run directory through the usual listeners (metrics,
TensorBoard, status, checkpoints); the other workers save their checkpoints and backups
into a scratch folder of their own, as TensorFlow's multi-worker guide prescribes (all
workers must take part in saving). The workers agree on the start step; initial weights
are read by the chief and sent to every worker. At the end the chief evaluates the test
split and saves ``model.keras`` from a plain copy of the trained weights (no collective op
left).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from tfcore.errors import RunError
from tfcore.rundir import FINISHED, RunPaths, RunWriter
from tfcore.training.cluster import BACKUP_DIR, SHARD_POLICY
from tfcore.training.cluster_sync import (
    ClusterListeners,
    Sync,
    TapeBackup,
    backup_step,
    keras_backup,
    prepare_model,
    remove_backup,
    restore_tape_backup,
)
from tfcore.training.lifecycle import Run, Topology, build_model, train
from tfcore.training.request import RunRequest


class Folders:
    """Where one worker writes and reads its checkpoints and backups."""

    def __init__(self, paths: RunPaths | None, scratch: Path, chief: bool) -> None:
        local_run = paths is not None and paths.root.exists()
        self.ckpt_write = paths.ckpt_dir if chief and paths else scratch / "ckpt"
        self.backup_write = paths.root / BACKUP_DIR if chief and paths \
            else scratch / BACKUP_DIR
        # the chief's files when this host sees them (local cluster, shared storage)
        self.ckpt_read = paths.ckpt_dir if local_run else self.ckpt_write
        self.backup_read = paths.root / BACKUP_DIR if local_run else self.backup_write


class ClusterTopology(Topology):
    """The hooks of one cluster worker: the strategy it joined, its folders, the
    all-reduce that keeps the workers in step, and the backups."""

    def __init__(self, paths: RunPaths | None, writer: RunWriter | None, strategy: Any,
                 scratch: Path, listeners_out: list) -> None:
        super().__init__(paths, writer)
        self.chief = writer is not None
        self._strategy, self.scratch, self.listeners_out = strategy, scratch, listeners_out
        self.folders = Folders(paths, scratch, self.chief)
        self.sync = Sync(strategy)
        self.backup_at, self.from_backup = 0, False

    def code_dir(self) -> Path:
        return self.paths.root if self.paths is not None else self.scratch

    def strategy(self) -> Any:
        return self._strategy

    def ckpt_dirs(self) -> tuple[Path, Path]:
        return self.folders.ckpt_write, self.folders.ckpt_read

    def resume(self, run: Run, start: int) -> int:
        """The newer of the checkpoint and the fault-tolerance backup; every worker must
        continue from the same step."""
        self.backup_at = backup_step(self.folders.backup_read)
        self.from_backup = self.backup_at > start
        if self.from_backup and run.config.loop != "fit":
            start = restore_tape_backup(run.checkpoint, self.folders.backup_read)
        elif self.from_backup:
            start = self.backup_at        # fit: BackupAndRestore loads it at the first fit
        agreed = self.sync.sum([float(start)])[0] / self.sync.workers
        if abs(agreed - start) > 0.5:
            raise RunError(key="cluster.err.steps", params={"step": start, "average": agreed})
        return start

    def load_initial(self, run: Run, path: Path) -> None:
        """The chief reads the file (a remote worker may not see it) and every worker
        receives its values."""
        if self.chief:
            run.model.load_weights(str(path))
        broadcast_weights(self.sync, run.model, self.chief)

    def stop_listeners(self) -> list:
        return []                       # ClusterListeners carries every worker's stop wish

    def listeners(self, items: list) -> ClusterListeners:
        listeners = ClusterListeners(items, self.sync,
                                     self.paths.stop_request if self.chief else None)
        self.listeners_out.append(listeners)
        return listeners

    def before_loop(self, run: Run) -> None:
        from tfcore.training.loops import compile_for_fit

        config, state, strategy = run.config, run.state, self._strategy
        flush = (lambda: run.logger.flush(state)) if run.logger is not None else None
        every = run.request.cluster.backup_every
        if config.loop == "fit":
            with strategy.scope():
                compile_for_fit(run.model, run.optimizer, config, 1)
            per_replica = max(1, config.batch_size // strategy.num_replicas_in_sync)
            prepare_model(run.model, run.bundle.x_train[:per_replica],
                          run.bundle.y_train[:per_replica])
            run.listeners.keras_extra = [keras_backup(
                self.folders.backup_write, self.folders.backup_read, every, state,
                self.from_backup, flush)]
        else:
            run.listeners.items.append(TapeBackup(run.checkpoint, self.folders.backup_write,
                                                  every, flush))

    def status_fields(self, run: Run) -> dict:
        return {"replicas": self._strategy.num_replicas_in_sync, "shard_policy": SHARD_POLICY,
                "backup_step": self.backup_at if self.from_backup else None}

    def after_loop(self, run: Run, outcome: str) -> None:
        if outcome == FINISHED:
            remove_backup(self.folders.backup_write)
            if not self.chief:                  # keep log.txt; exit.json comes next
                remove_backup(self.scratch / "ckpt")

    def final_model(self, run: Run, strategy: Any) -> Any:
        """The trained weights in a model outside the strategy (evaluate and save it
        without the other workers)."""
        from tfcore.training.config import make_optimizer
        from tfcore.training.loops import compile_for_fit

        plain = build_model(run.request.spec, run.bundle.x_train)
        plain.set_weights(run.model.get_weights())
        compile_for_fit(plain, make_optimizer(run.config, run.total, run.spe), run.config, 1)
        return plain


    def insight_model(self, run: Run) -> tuple[Any, Any]:
        """A plain copy of the model outside the strategy, filled with this worker's
        trained weights before each snapshot: the chief's probe runs no collective op, so
        the other workers only wait at the next step's all-reduce."""
        plain = build_model(run.request.spec, run.bundle.x_train)
        return plain, lambda: plain.set_weights(run.model.get_weights())


def broadcast_weights(sync: Sync, model: Any, chief: bool) -> None:
    """Give every worker the chief's floating-point weights (one all-reduce: the chief
    adds its values, the others zeros)."""
    weights = model.get_weights()
    floats = [i for i, w in enumerate(weights) if np.issubdtype(w.dtype, np.floating)]
    if not floats:
        return
    flat = np.concatenate([weights[i].ravel() for i in floats]).astype(np.float32)
    summed = np.asarray(sync.sum(flat if chief else np.zeros_like(flat)), np.float32)
    offset = 0
    for i in floats:
        size = weights[i].size
        weights[i] = summed[offset:offset + size].reshape(weights[i].shape) \
            .astype(weights[i].dtype)
        offset += size
    model.set_weights(weights)


def train_cluster(paths: RunPaths | None, writer: RunWriter | None, request: RunRequest,
                  strategy: Any, scratch: Path, listeners_out: list) -> dict:
    """Train this worker's part; returns the chief's final status fields (empty for the
    other workers). ``listeners_out`` receives the ClusterListeners (for SIGTERM)."""
    return train(request, ClusterTopology(paths, writer, strategy, scratch, listeners_out))
