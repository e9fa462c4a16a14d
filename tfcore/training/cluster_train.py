"""Train one worker's part of a cluster run under MultiWorkerMirroredStrategy.

Every worker runs the same loop (``fit`` or GradientTape) on its shard of every global
batch. The chief (index 0) writes the run directory through the usual listeners (metrics,
TensorBoard, status, checkpoints); the other workers save their checkpoints and backups
into a scratch folder of their own, as TensorFlow's multi-worker guide prescribes (all
workers must take part in saving). At the end the chief evaluates the test split and saves
``model.keras`` from a plain copy of the trained weights (no collective op left).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tfcore.errors import RunError
from tfcore.rundir import FAILED, FINISHED, RunPaths, RunWriter
from tfcore.training.callbacks import (
    CheckpointSaver,
    Heartbeat,
    MetricsLogger,
    NaNGuard,
    TrainState,
)
from tfcore.training.cluster import BACKUP_DIR, SHARD_POLICY, ClusterConfig
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
from tfcore.training.worker import (
    _build,
    _load_data,
    _tiny_parameters,
    build_in_scope,
    nan_error,
    result_fields,
    run_loop,
)


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


def train_cluster(paths: RunPaths | None, writer: RunWriter | None, request: dict,
                  strategy: Any, scratch: Path, listeners_out: list) -> dict:
    """Train this worker's part; returns the chief's final status fields (empty for the
    other workers). ``listeners_out`` receives the ClusterListeners (for SIGTERM)."""
    import keras
    import tensorflow as tf

    from tfcore.training.analysis import write_analysis
    from tfcore.training.config import TrainConfig, steps_per_epoch
    from tfcore.training.evaluate import evaluate_split
    from tfcore.training.loops import TrainData, compile_for_fit

    chief = writer is not None
    status = writer.set_status if chief else (lambda **_: None)
    if paths is not None:
        _prepare_custom(paths, request)
    config = TrainConfig.from_dict(request.get("training"))
    cluster = ClusterConfig.from_dict(request.get("cluster"))
    folders = Folders(paths, scratch, chief)
    keras.utils.set_random_seed(config.seed)
    status(phase="loading_data")
    bundle = _load_data(request)
    data = TrainData(bundle.x_train, bundle.y_train, bundle.x_val, bundle.y_val)
    spe = steps_per_epoch(data.n_train, config.batch_size)
    total = config.total_steps(data.n_train)
    replicas = strategy.num_replicas_in_sync
    status(phase="building")
    model, optimizer, checkpoint = build_in_scope(strategy, request, bundle, config, total, spe)
    manager = tf.train.CheckpointManager(checkpoint, str(folders.ckpt_write),
                                         max_to_keep=config.keep,
                                         checkpoint_name=config.ckpt_prefix)
    sync = Sync(strategy)
    start = 0
    latest = tf.train.latest_checkpoint(str(folders.ckpt_read)) if folders.ckpt_read.exists() \
        else None
    if latest:
        status(phase="restoring", phase_checkpoint=_number(latest))
        checkpoint.restore(latest).assert_existing_objects_matched()
        start = int(checkpoint.step.numpy())
    backup_at = backup_step(folders.backup_read)
    from_backup = backup_at > start
    if from_backup and config.loop != "fit":
        start = restore_tape_backup(checkpoint, folders.backup_read)
    elif from_backup:
        start = backup_at                # fit: BackupAndRestore loads it at the first fit
    agreed = sync.sum([float(start)])[0] / sync.workers
    if abs(agreed - start) > 0.5:
        raise RunError(f"The workers would continue from different steps ({start} here, "
                       f"{agreed:g} on average); give every worker the same checkpoints.",
                       key="cluster.err.steps", params={"step": start})
    state = TrainState(total_steps=total, steps_per_epoch=spe, batch_size=config.batch_size,
                       replicas=replicas, step=start, start_step=start,
                       epoch=start // spe + 1)
    if chief and start:
        before = writer.status.extra
        state.elapsed_before = float(before.get("elapsed") or 0.0)
    items: list = [NaNGuard()]
    logger = None
    if chief:
        logger = MetricsLogger(paths, config.log_every, min(config.max_records_per_sec, 20.0))
        items += [logger]
    items += [CheckpointSaver(checkpoint, manager, config.ckpt_every)]
    listeners = ClusterListeners(items, sync, paths.stop_request if chief else None)
    listeners_out.append(listeners)
    flush = (lambda: logger.flush(state)) if logger is not None else None
    if config.loop == "fit":
        with strategy.scope():
            compile_for_fit(model, optimizer, config, 1)
        per_replica = max(1, config.batch_size // replicas)
        prepare_model(model, bundle.x_train[:per_replica], bundle.y_train[:per_replica])
        listeners.keras_extra = [keras_backup(folders.backup_write, folders.backup_read,
                                              cluster.backup_every, state, from_backup, flush)]
    else:
        listeners.items.append(TapeBackup(checkpoint, folders.backup_write,
                                          cluster.backup_every, flush))
    if chief:
        listeners.items.append(Heartbeat(writer))
        status(total_steps=total, steps_per_epoch=spe, resumed_from=start or None,
               phase="training", phase_checkpoint=None, batch_size=config.batch_size,
               per_replica_batch=max(1, config.batch_size // max(1, replicas)),
               replicas=replicas, shard_policy=SHARD_POLICY,
               backup_step=backup_at if from_backup else None)
    outcome = run_loop(model, data, config, strategy, state, listeners, optimizer)
    if outcome == FINISHED:
        remove_backup(folders.backup_write)
    if not chief:
        if outcome == FINISHED:                 # keep log.txt; exit.json comes next
            remove_backup(scratch / "ckpt")
        return {}
    fields = result_fields(state)
    if outcome == FAILED:
        logger.close()
        raise nan_error(state, config)
    plain = _plain_copy(request, bundle, model, config, total, spe)
    if outcome == FINISHED:
        status(phase="evaluating")
        test = evaluate_split(plain, bundle.x_test, bundle.y_test, config)
        logger.log_test(state, test.metrics)
        fields["test_metrics"] = test.metrics
        write_analysis(paths, bundle, test.predictions, plain)
    logger.close()
    status(phase="saving")
    plain.save(str(paths.model))
    fields["parameters"] = _tiny_parameters(plain)
    fields["checkpoints"] = [Path(p).name for p in manager.checkpoints]
    return fields | {"state": outcome, "phase": None}


def _prepare_custom(paths: RunPaths, request: dict) -> None:
    """User-written losses and metrics, as the single-process worker loads them."""
    try:
        from tfcore.custom import prepare_run
    except ImportError:                 # no custom-code support in this checkout
        return
    prepare_run(paths.root, request)


def _plain_copy(request: dict, bundle: Any, model: Any, config: Any, total: int,
                spe: int) -> Any:
    """The trained weights in a model outside the strategy (evaluate and save it without
    the other workers)."""
    from tfcore.training.config import make_optimizer
    from tfcore.training.loops import compile_for_fit

    plain = _build(request["spec"], bundle.x_train)
    plain.set_weights(model.get_weights())
    compile_for_fit(plain, make_optimizer(config, total, spe), config, 1)
    return plain


def _number(prefix: str) -> int | None:
    try:
        return int(Path(prefix).name.rsplit("-", 1)[-1])
    except ValueError:
        return None
