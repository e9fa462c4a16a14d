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
from typing import Any, Mapping

from tfcore.errors import RunError, TFLabError
from tfcore.jsonio import now_iso, read_json
from tfcore.rundir import FAILED, FINISHED, RUNNING, STOPPED, RunPaths, RunWriter
from tfcore.training.callbacks import (
    STOP_NAN,
    STOP_REQUEST,
    CheckpointSaver,
    Heartbeat,
    Listeners,
    MetricsLogger,
    NaNGuard,
    StopPoller,
    TrainState,
)
from tfcore.training.config import shapes_fit
from tfcore.training.devices import (
    AppliedDevices,
    DeviceConfig,
    apply_device_config,
    make_strategy,
)


def _load_data(request: dict) -> Any:
    from tfcore.data import DatasetRequest, load_dataset

    return load_dataset(DatasetRequest.from_dict(request.get("dataset") or {"name": "digits28"}))


def _check_fits(model: Any, info: Any, loss: str) -> None:
    """Refuse a model whose output cannot match the dataset's labels, before training."""
    try:
        inputs = list(model.inputs or [])
        out = model.outputs[0].shape if model.outputs else None
    except (AttributeError, ValueError):  # a subclassed or deferred model: Keras checks later
        return
    if len(inputs) == 1 and not shapes_fit(inputs[0].shape[1:], info.input_shape):
        got, want = tuple(inputs[0].shape[1:]), tuple(info.input_shape)
        raise RunError(f"The model expects inputs of shape {got} but dataset {info.name!r} "
                       f"has inputs of shape {want}; choose a matching model or dataset.",
                       key="train.err.input_shape",
                       params={"model": str(got), "data": str(want), "dataset": info.name})
    if out is None or info.task != "classification" or "sparse" not in loss:
        return
    if out[-1] is not None and info.num_classes and out[-1] < info.num_classes:
        raise RunError(f"The model outputs {out[-1]} values but dataset {info.name!r} has "
                       f"{info.num_classes} classes; change the last layer's units.",
                       key="train.err.classes",
                       params={"outputs": out[-1], "classes": info.num_classes,
                               "dataset": info.name})


def _build(spec_dict: dict, x_sample: Any) -> Any:
    from tfcore.model import build_model, from_dict

    model = build_model(from_dict(spec_dict))
    if not model.built or not model.weights:
        model(x_sample[:1])            # deferred initialization: build from a first batch
    return model


def _tiny_parameters(model: Any) -> dict | None:
    """Values of every variable when the model is tiny (e.g. M1's a and b)."""
    if model.count_params() > 16:
        return None
    return {v.path: [float(x) for x in v.numpy().ravel()] for v in model.weights}


def train_run(paths: RunPaths, writer: RunWriter, request: dict, device: DeviceConfig,
              replicas: int) -> dict:
    """Build, restore, train and evaluate one run; returns the final status fields."""
    import keras
    import tensorflow as tf

    from tfcore.training.analysis import write_analysis
    from tfcore.training.config import TrainConfig, steps_per_epoch
    from tfcore.training.evaluate import evaluate_split
    from tfcore.training.loops import TrainData

    from tfcore.custom import prepare_run

    prepare_run(paths.root, request)      # user-written code: copied into the run, loaded
    config = TrainConfig.from_dict(request.get("training"))
    notes = []
    if config.mixed_precision:
        if tf.config.list_logical_devices("GPU"):
            keras.mixed_precision.set_global_policy("mixed_float16")
        else:
            notes.append("mixed precision needs a GPU; trained in float32")
    keras.utils.set_random_seed(config.seed)
    writer.set_status(phase="loading_data")
    bundle = _load_data(request)
    data = TrainData(bundle.x_train, bundle.y_train, bundle.x_val, bundle.y_val)
    spe = steps_per_epoch(data.n_train, config.batch_size)
    total = config.total_steps(data.n_train)
    # One device: the default strategy (no per-epoch distributed iterators, as fast as a
    # plain script); visible devices were already narrowed by apply_device_config.
    strategy = make_strategy(device) if replicas > 1 or device.kind == "mirrored" \
        else tf.distribute.get_strategy()
    writer.set_status(phase="building")
    model, optimizer, checkpoint = build_in_scope(strategy, request, bundle, config, total, spe)
    manager = tf.train.CheckpointManager(checkpoint, str(paths.ckpt_dir), max_to_keep=config.keep,
                                         checkpoint_name=config.ckpt_prefix)
    start = 0
    if manager.latest_checkpoint:
        writer.set_status(phase="restoring",
                          phase_checkpoint=_checkpoint_number(manager.latest_checkpoint))
        checkpoint.restore(manager.latest_checkpoint).assert_existing_objects_matched()
        start = int(checkpoint.step.numpy())
    elif request.get("initial_weights"):
        from tfcore.workspace import default_workspace

        model.load_weights(str(default_workspace().confine(request["initial_weights"])))
    before = read_json(paths.status_json, {}) or {}
    state = TrainState(total_steps=total, steps_per_epoch=spe, batch_size=config.batch_size,
                       replicas=replicas, step=start, start_step=start,
                       epoch=start // spe + 1,
                       elapsed_before=float(before.get("elapsed") or 0.0) if start else 0.0)
    logger = MetricsLogger(paths, config.log_every, min(config.max_records_per_sec, 20.0))
    saver = CheckpointSaver(checkpoint, manager, config.ckpt_every)
    beat = Heartbeat(writer)
    listeners = Listeners([NaNGuard(), StopPoller(paths), logger, saver, beat])
    writer.set_status(total_steps=total, steps_per_epoch=spe, resumed_from=start or None,
                      notes=notes, phase="training", phase_checkpoint=None,
                      batch_size=config.batch_size,
                      per_replica_batch=max(1, config.batch_size // max(1, replicas)))
    outcome = run_loop(model, data, config, strategy, state, listeners, optimizer)
    fields = result_fields(state)
    if outcome == FAILED:
        logger.close()
        raise nan_error(state, config)
    if outcome == FINISHED:
        writer.set_status(phase="evaluating")
        test = evaluate_split(model, bundle.x_test, bundle.y_test, config)
        logger.log_test(state, test.metrics)
        fields["test_metrics"] = test.metrics
        write_analysis(paths, bundle, test.predictions, model)
    logger.close()
    writer.set_status(phase="saving")
    model.save(str(paths.model))
    fields["parameters"] = _tiny_parameters(model)
    fields["checkpoints"] = [Path(p).name for p in manager.checkpoints]
    return fields | {"state": outcome, "phase": None}


def _checkpoint_number(prefix: str) -> int | None:
    try:
        return int(Path(prefix).name.rsplit("-", 1)[-1])
    except ValueError:
        return None


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
        request = read_json(paths.run_json)
        if not isinstance(request, dict):
            raise RunError(f"{paths.run_json} is missing or unreadable.", key="train.err.run_json",
                           params={"path": str(paths.run_json)})
        device = DeviceConfig.from_dict(request.get("device"))
        applied = applied or apply_device_config(device)
        writer.set_status(state=RUNNING, pid=os.getpid(), replicas=applied.replicas,
                          strategy=applied.strategy, devices=list(applied.logical),
                          visible_gpus=list(applied.visible_gpus), started=now_iso(), message=None,
                          traceback=None, queue_position=None, error_key=None)
        fields = train_run(paths, writer, request, device, applied.replicas)
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


def run_loop(model: Any, data: Any, config: Any, strategy: Any, state: Any, listeners: Any,
             optimizer: Any) -> str:
    """Train with the configured loop; returns the outcome (finished, stopped, failed) after
    the listeners heard it, whatever ended the loop."""
    from tfcore.training.loops import LOOPS

    listeners.on_train_start(state)
    try:
        LOOPS[config.loop](model, data, config, strategy, state, listeners, optimizer)
    finally:
        outcome = {None: FINISHED, STOP_REQUEST: STOPPED, STOP_NAN: FAILED}[state.stop_reason]
        listeners.on_train_end(state, outcome)
    return outcome


def result_fields(state: Any) -> dict[str, Any]:
    """What status.json records of a run's training when it ends."""
    return {"step": state.step, "epoch": state.epoch,
            "samples_per_sec": round(state.samples_per_sec, 2),
            "elapsed": round(state.elapsed, 2),
            "last": dict(state.last_logs), "last_val": dict(state.last_val)}


def nan_error(state: Any, config: Any) -> RunError:
    """The located error of a loss that became NaN or infinite."""
    loss = state.last_logs.get("loss")
    return RunError(f"The loss became {loss} at step {state.step}; training stopped. "
                    f"Try a smaller learning rate (now {config.learning_rate}).",
                    key="train.err.nan", params={"step": state.step, "loss": str(loss),
                                                 "lr": config.learning_rate})


def fail_status(writer: Any, exc: BaseException, started: float) -> None:
    """Record a failure in status.json: its message and key, the traceback, the wall time."""
    key = exc.key if isinstance(exc, TFLabError) else None
    params = exc.params if isinstance(exc, TFLabError) else {}
    message = exc.message if isinstance(exc, TFLabError) else f"{type(exc).__name__}: {exc}"
    writer.set_status(state=FAILED, message=message, error_key=key, error_params=params,
                      traceback=traceback.format_exc(), ended=now_iso(),
                      wall_seconds=round(time.time() - started, 2), phase=None)


def build_in_scope(strategy: Any, request: Mapping[str, Any], bundle: Any, config: Any,
                   total: int, spe: int) -> tuple[Any, Any, Any]:
    """Model, built optimizer and checkpoint (with its step counter) created in the
    strategy's scope, so their variables are mirrored; the model is checked against the
    data. Shared by the local worker and a cluster's workers."""
    import tensorflow as tf

    from tfcore.training.config import make_optimizer

    with strategy.scope():
        model = _build(request["spec"], bundle.x_train)
        _check_fits(model, bundle.info, config.loss)
        optimizer = make_optimizer(config, total, spe)
        optimizer.build(model.trainable_variables)
        checkpoint = tf.train.Checkpoint(step=tf.Variable(0, dtype=tf.int64), model=model,
                                         optimizer=optimizer)
    return model, optimizer, checkpoint


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
