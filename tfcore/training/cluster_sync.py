"""What keeps the workers of a cluster run in step: one all-reduce per step that averages
the logged values over the workers and carries every worker's stop wish (so Stop, a NaN or
SIGTERM end all workers after the same step), and the fault-tolerance backups
(``keras.callbacks.BackupAndRestore`` for ``fit``, a backup CheckpointManager for the
GradientTape loop) that a restarted cluster continues from.

Every worker runs the same loop, so every collective here is called the same number of
times on every worker; nothing collective happens while a paced loop waits.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from tfcore.jsonio import atomic_write_json, read_json
from tfcore.training.callbacks import STOP_NAN, STOP_REQUEST, Listener, Listeners, TrainState

STEP_FILE = "step.json"


def make_strategy() -> Any:
    """``MultiWorkerMirroredStrategy`` from ``TF_CONFIG`` (ring all-reduce on CPUs), with
    the Keras 3.15 work-arounds for ``fit`` under it (see :func:`patch_keras_for_workers`)."""
    import tensorflow as tf

    options = tf.distribute.experimental.CommunicationOptions(
        implementation=tf.distribute.experimental.CommunicationImplementation.RING)
    strategy = tf.distribute.MultiWorkerMirroredStrategy(communication_options=options)
    patch_keras_for_workers()
    return strategy


def patch_keras_for_workers() -> None:
    """Keras 3.15's TF trainer reduces the per-step logs with ``strategy.reduce("MEAN",
    scalar, axis=0)`` under MultiWorkerMirroredStrategy, which fails for scalars; reduce
    over the local replicas instead (the values are averaged over the workers by
    :class:`ClusterListeners`)."""
    try:
        from keras.src.backend.tensorflow import trainer
    except ImportError:                  # another Keras layout: nothing to patch
        return
    if hasattr(trainer, "_collective_all_reduce_multi_worker"):
        trainer._collective_all_reduce_multi_worker = lambda strategy: False


def prepare_model(model: Any, x_sample: Any, y_sample: Any) -> None:
    """Keras 3.15 builds a distributed model's metrics from a batch it reduces across
    workers (which fails under MultiWorkerMirroredStrategy); build them from a local
    sample instead."""
    import tensorflow as tf

    sample = (tf.convert_to_tensor(x_sample), tf.convert_to_tensor(y_sample))

    def build(iterator: Any = None, data_batch: Any = None) -> None:
        with model.distribute_strategy.scope():
            model._symbolic_build(data_batch=sample)

    model._maybe_symbolic_build = build


# A collective op that lost its peer: the cluster is restarted, the run has not failed.
PEER_LOST = frozenset({"UnavailableError", "AbortedError", "CancelledError",
                       "DeadlineExceededError"})


class Sync:
    """One all-reduce (SUM over workers) of a small float vector."""

    def __init__(self, strategy: Any) -> None:
        import tensorflow as tf

        self.tf, self.strategy = tf, strategy
        self.workers = max(1, strategy.extended._num_workers
                           if hasattr(strategy.extended, "_num_workers") else 1)
        self.local_replicas = max(1, strategy.num_replicas_in_sync // self.workers)

        def total(values: Any) -> Any:
            def per_replica() -> Any:
                ctx = tf.distribute.get_replica_context()
                first = tf.cast(tf.equal(ctx.replica_id_in_sync_group % self.local_replicas,
                                         0), tf.float32)
                return values * first          # one copy per worker, not per replica
            return strategy.reduce(tf.distribute.ReduceOp.SUM, strategy.run(per_replica),
                                   axis=None)

        self._fn = tf.function(total, reduce_retracing=True)

    def sum(self, values: Sequence[float]) -> list[float]:
        tf = self.tf
        return [float(v) for v in self._fn(tf.constant(list(values), tf.float32)).numpy()]


class ClusterListeners(Listeners):
    """Listeners of one worker; each batch end first averages the logged values over the
    workers and ORs their stop wishes (stop request, SIGTERM, NaN), so all workers see the
    same numbers and stop after the same step."""

    def __init__(self, items: Sequence[Listener], sync: Sync, stop_file: Path | None) -> None:
        super().__init__(items)
        self.sync, self.stop_file = sync, stop_file
        self.local_stop = False              # set by SIGTERM
        self.keras_extra: list[Any] = []

    def keras_callbacks(self) -> list[Any]:
        return list(self.keras_extra)

    def _wish(self) -> float:
        if self.local_stop or (self.stop_file is not None and self.stop_file.exists()):
            return 1.0
        return 0.0

    def on_batch_end(self, state: TrainState, logs: Mapping[str, float]) -> None:
        names = list(logs)
        try:
            summed = self.sync.sum([float(logs[n]) for n in names] + [self._wish()])
        except Exception as exc:
            if type(exc).__name__ in PEER_LOST:
                # The step trained on every worker (its gradients were all-reduced) and the
                # checkpoint written as this worker ends carries it: record this worker's
                # own values for it, so the records after the restart continue without a gap.
                super().on_batch_end(state, {n: float(logs[n]) for n in names})
            raise
        values = {n: v / self.sync.workers for n, v in zip(names, summed)}
        if summed[-1] > 0:
            state.request_stop(STOP_REQUEST)
        super().on_batch_end(state, values)

    def on_idle(self, state: TrainState) -> None:
        """A paced wait: nothing collective and no stop here (it takes effect at the next
        batch end on every worker at once)."""


def backup_step(folder: Path) -> int:
    """The step of the backup in ``folder`` (0: none)."""
    data = read_json(Path(folder) / STEP_FILE, {}) or {}
    try:
        return max(0, int(data.get("step") or 0))
    except (TypeError, ValueError, AttributeError):
        return 0


def _write_step(folder: Path, step: int) -> None:
    Path(folder).mkdir(parents=True, exist_ok=True)
    atomic_write_json(Path(folder) / STEP_FILE, {"step": int(step)})


def keras_backup(write_dir: Path, read_dir: Path, every: int, state: TrainState,
                 restore: bool, saved: Callable[[], None] | None = None) -> Any:
    """A ``keras.callbacks.BackupAndRestore`` that backs up every ``every`` steps into
    ``write_dir`` and restores (once, at the first ``fit`` call of this attempt, when
    ``restore``) from ``read_dir``. The engine calls ``fit`` once per epoch, so the backup
    records the engine's global step (``step.json``) instead of Keras' epoch, and is kept
    across ``fit`` calls (removed when the run finishes, see :func:`remove_backup`).
    ``saved`` runs after each backup (the chief writes the metrics up to that step, so a
    restarted run's records continue without a gap)."""
    import keras

    class EngineBackup(keras.callbacks.BackupAndRestore):
        def __init__(self) -> None:
            super().__init__(backup_dir=str(write_dir), save_freq=every,
                             delete_checkpoint=False)
            self.pending_restore = restore
            self.read_weights = Path(read_dir) / "latest.weights.h5"

        def on_train_begin(self, logs: Any = None) -> None:
            if self.pending_restore and self.read_weights.exists():
                if self.model.optimizer is not None and not self.model.optimizer.built:
                    self.model.optimizer.build(self.model.trainable_variables)
                self.model.load_weights(str(self.read_weights))
            self.pending_restore = False

        def _should_save_on_batch(self, batch: int) -> bool:
            """Every ``every`` global steps (the engine's step, not this call's batch)."""
            return state.step > 0 and state.step % every == 0

        def _save_model(self) -> None:
            super()._save_model()
            _write_step(Path(write_dir), state.step)
            if saved is not None:
                saved()

        def on_train_end(self, logs: Any = None) -> None:
            """One ``fit`` call ended, not the run: keep the backup."""

    return EngineBackup()


class TapeBackup(Listener):
    """The GradientTape loop's backup: a CheckpointManager keeping one checkpoint."""

    def __init__(self, checkpoint: Any, write_dir: Path, every: int,
                 saved: Callable[[], None] | None = None) -> None:
        import tensorflow as tf

        self.saved = saved
        self.checkpoint, self.write_dir, self.every = checkpoint, Path(write_dir), max(1, every)
        self.manager = tf.train.CheckpointManager(checkpoint, str(write_dir), max_to_keep=1,
                                                  checkpoint_name="backup")

    def on_batch_end(self, state: TrainState, logs: Mapping[str, float]) -> None:
        if state.step % self.every == 0 and state.stop_reason != STOP_NAN:
            self.checkpoint.step.assign(state.step)
            self.manager.save(checkpoint_number=state.step)
            _write_step(self.write_dir, state.step)
            if self.saved is not None:
                self.saved()


def restore_tape_backup(checkpoint: Any, read_dir: Path) -> int:
    """Restore the GradientTape loop's backup from ``read_dir``; returns its step."""
    import tensorflow as tf

    latest = tf.train.latest_checkpoint(str(read_dir))
    if not latest:
        return 0
    checkpoint.restore(latest).assert_existing_objects_matched()
    return int(checkpoint.step.numpy())


def remove_backup(folder: Path) -> None:
    """Delete a backup folder once the run finished (BackupAndRestore's
    ``delete_checkpoint``)."""
    shutil.rmtree(folder, ignore_errors=True)


def describe(strategy: Any) -> dict:
    """Status fields that describe the cluster as TensorFlow sees it."""
    resolver = strategy.cluster_resolver
    spec = resolver.cluster_spec().as_dict() if resolver is not None else {}
    return {"cluster_workers": list(spec.get("worker", [])),
            "task_index": int(getattr(resolver, "task_id", 0) or 0),
            "tf_config": json.loads(os.environ.get("TF_CONFIG", "{}") or "{}")}
