"""The lifecycle of one training run, written once: load the data, build in the strategy's
scope, restore or start from initial weights, attach the listeners, train, evaluate, save.

What differs between a single-process run and one worker of a cluster is a
:class:`Topology`: the distribution strategy, where checkpoints are written and read, how
the workers agree (the start step, the per-step sync of :class:`ClusterListeners`), who
writes the run directory (only the chief) and which model is evaluated and saved at the end.
``tfcore.training.worker`` runs it with :class:`LocalTopology`,
``tfcore.training.cluster_train`` with its ``ClusterTopology``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tfcore.errors import RunError
from tfcore.jsonio import read_json
from tfcore.rundir import FAILED, FINISHED, STOPPED, RunPaths, RunWriter
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
from tfcore.training.fits import check_model_fits
from tfcore.training.request import RunRequest

MIXED, FLOAT32 = "mixed_float16", "float32"
MIXED_NEEDS_GPU = "mixed precision needs a GPU; trained in float32"


@dataclass
class Run:
    """What the lifecycle has made so far, handed to the topology's hooks."""

    request: RunRequest
    config: Any                      # TrainConfig
    bundle: Any                      # DatasetBundle
    data: Any                        # TrainData
    total: int
    spe: int
    model: Any = None
    optimizer: Any = None
    checkpoint: Any = None
    manager: Any = None
    state: TrainState | None = None
    logger: MetricsLogger | None = None
    listeners: Listeners | None = None


class Topology:
    """The hooks of a run's lifecycle; this base is one process that writes its own run."""

    chief = True

    def __init__(self, paths: RunPaths | None, writer: RunWriter | None) -> None:
        self.paths, self.writer = paths, writer

    def status(self, **fields: Any) -> None:
        """Record status fields (only the chief writes status.json)."""
        if self.writer is not None:
            self.writer.set_status(**fields)

    def code_dir(self) -> Path:
        """Where the run's user-written code is copied and loaded from."""
        return self.paths.root

    def strategy(self) -> Any:
        raise NotImplementedError

    def replicas(self, strategy: Any) -> int:
        return int(strategy.num_replicas_in_sync)

    def ckpt_dirs(self) -> tuple[Path, Path]:
        """Where checkpoints are written and where the latest one is read from."""
        return self.paths.ckpt_dir, self.paths.ckpt_dir

    def resume(self, run: Run, start: int) -> int:
        """The step all processes continue from, given this one's checkpoint step."""
        return start

    def load_initial(self, run: Run, path: Path) -> None:
        """Start from the weights in ``path`` (a ``.weights.h5`` file)."""
        run.model.load_weights(str(path))

    def stop_listeners(self) -> list:
        return [StopPoller(self.paths)]

    def listeners(self, items: list) -> Listeners:
        return Listeners(items)

    def before_loop(self, run: Run) -> None:
        """Last preparations of the model and listeners before the loop starts."""

    def status_fields(self, run: Run) -> dict:
        """Extra status fields recorded when training starts."""
        return {}

    def after_loop(self, run: Run, outcome: str) -> None:
        """Clean up after the loop (every process)."""

    def final_model(self, run: Run, strategy: Any) -> Any:
        """The model that is evaluated and saved."""
        return run.model

    def insight_model(self, run: Run) -> tuple[Any, Any]:
        """The model the insight recorder reads, and what refreshes it before each
        snapshot (None: it is the trained model itself)."""
        return run.model, None


class LocalTopology(Topology):
    """One process on the devices its DeviceConfig made visible: the default strategy
    on one device (as fast as a plain script), MirroredStrategy over several."""

    def __init__(self, paths: RunPaths, writer: RunWriter, device: Any, replicas: int) -> None:
        super().__init__(paths, writer)
        self.device, self._replicas = device, replicas

    def strategy(self) -> Any:
        import tensorflow as tf

        from tfcore.training.devices import MIRRORED, make_strategy

        if self._replicas > 1 or self.device.kind == MIRRORED:
            return make_strategy(self.device)
        return tf.distribute.get_strategy()

    def replicas(self, strategy: Any) -> int:
        return self._replicas


def apply_precision(mixed: bool) -> tuple[str, list[str]]:
    """Set Keras' global dtype policy for this run: ``mixed_float16`` when asked and a GPU
    is visible, else ``float32`` (with a note when mixed precision was asked). Returns the
    policy's name and the notes."""
    import keras
    import tensorflow as tf

    policy = MIXED if mixed and tf.config.list_logical_devices("GPU") else FLOAT32
    keras.mixed_precision.set_global_policy(policy)
    return policy, [MIXED_NEEDS_GPU] if mixed and policy == FLOAT32 else []


def load_data(request: RunRequest) -> Any:
    from tfcore.data import load_dataset

    return load_dataset(request.dataset)


def build_model(spec: Any, x_sample: Any) -> Any:
    """The Keras model of a spec document, built (a deferred one from a first batch)."""
    from tfcore.model import build_model as build, from_dict

    model = build(from_dict(dict(spec)))
    if not model.built or not model.weights:
        model(x_sample[:1])            # deferred initialization: build from a first batch
    return model


def build_in_scope(strategy: Any, run: Run) -> None:
    """Model, built optimizer and checkpoint (with its step counter) created in the
    strategy's scope, so their variables are mirrored; the model is checked against the data."""
    import tensorflow as tf

    from tfcore.training.config import make_optimizer

    with strategy.scope():
        run.model = build_model(run.request.spec, run.bundle.x_train)
        check_model_fits(run.model, run.bundle.info, run.config.loss)
        run.optimizer = make_optimizer(run.config, run.total, run.spe)
        run.optimizer.build(run.model.trainable_variables)
        run.checkpoint = tf.train.Checkpoint(step=tf.Variable(0, dtype=tf.int64),
                                             model=run.model, optimizer=run.optimizer)


def train(request: RunRequest, topology: Topology) -> dict:
    """Train one run (or one worker's part of it); returns the final status fields, empty
    for a worker that is not the chief."""
    import keras

    from tfcore.custom import prepare_run
    from tfcore.training.config import steps_per_epoch
    from tfcore.training.plan import TrainData

    prepare_run(topology.code_dir(), request.to_dict())   # user-written code: copied, loaded
    config = request.train_config()
    policy, notes = apply_precision(config.mixed_precision)
    keras.utils.set_random_seed(config.seed)
    topology.status(phase="loading_data")
    bundle = load_data(request)
    data = TrainData(bundle.x_train, bundle.y_train, bundle.x_val, bundle.y_val)
    run = Run(request, config, bundle, data, config.total_steps(data.n_train),
              steps_per_epoch(data.n_train, config.batch_size))
    strategy = topology.strategy()
    replicas = topology.replicas(strategy)
    topology.status(phase="building")
    build_in_scope(strategy, run)
    start = _restore(run, topology)
    started_from = _initial_weights(run, topology) if start == 0 else None
    before = (read_json(topology.paths.status_json, {}) or {}) if topology.chief and start \
        else {}
    run.state = TrainState(total_steps=run.total, steps_per_epoch=run.spe,
                           batch_size=config.batch_size, replicas=replicas, step=start,
                           start_step=start, epoch=start // run.spe + 1,
                           elapsed_before=float(before.get("elapsed") or 0.0))
    items: list = [NaNGuard(), *topology.stop_listeners()]
    if topology.chief:
        run.logger = MetricsLogger(topology.paths, config.log_every,
                                   min(config.max_records_per_sec, 20.0))
        run.logger.write_graph(run.model, bundle.x_train[:1])
        items.append(run.logger)
    items.append(CheckpointSaver(run.checkpoint, run.manager, config.ckpt_every))
    if topology.chief and config.insight:
        items.append(_insight_recorder(run, topology, start, notes))
    run.listeners = topology.listeners(items)
    topology.before_loop(run)
    if topology.chief:
        run.listeners.items.append(Heartbeat(topology.writer))
    topology.status(total_steps=run.total, steps_per_epoch=run.spe, resumed_from=start or None,
                    notes=notes, dtype_policy=policy, phase="training", phase_checkpoint=None,
                    batch_size=config.batch_size,
                    per_replica_batch=max(1, config.batch_size // max(1, replicas)),
                    **({"started_from": started_from} if started_from else {}),
                    **topology.status_fields(run))
    outcome = run_loop(run.model, data, config, strategy, run.state, run.listeners,
                       run.optimizer)
    topology.after_loop(run, outcome)
    if not topology.chief:
        return {}
    return _finish(run, topology, strategy, outcome)


def _insight_recorder(run: Run, topology: Topology, start: int, notes: list) -> Any:
    """The chief's insight recorder (``insight/``); a note in status.json if it stops."""
    from tfcore.training.insight import InsightRecorder

    def report(note: str) -> None:
        notes.append(note)
        topology.status(notes=notes)

    model, refresh = topology.insight_model(run)
    return InsightRecorder(topology.paths, model, run.bundle, run.config, start, report,
                           refresh)


def _initial_weights(run: Run, topology: Topology) -> dict | None:
    """Load the weights a new run starts from: the request's ``initial_weights`` (the
    Weights lab's, a continued run's), else the spec's own (an imported file's). Returns
    what status.json records of them: the workspace-relative file and where it came from.

    Raises:
        SpecError: the file is missing or does not fit the model (located).
    """
    from tfcore.errors import SpecError
    from tfcore.workspace import default_workspace

    spec = run.request.model_spec()
    initial, source = ((run.request.initial_weights, "request") if run.request.initial_weights
                       else (spec.weights, "spec"))
    if not initial:
        return None
    path = default_workspace().confine(initial)
    if topology.chief and not path.is_file():   # only the chief reads it
        raise SpecError(key="spec.weights_missing", params={"name": spec.name, "path": initial})
    try:
        topology.load_initial(run, path)
    except Exception as exc:  # noqa: BLE001 - Keras and h5py raise many kinds; all located
        reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:300]
        raise SpecError(key="spec.weights_damaged",
                        params={"name": spec.name, "path": initial, "reason": reason}) from exc
    return {"weights": initial, "from": source}


def _restore(run: Run, topology: Topology) -> int:
    """Open the checkpoint folder and restore its latest checkpoint; returns the step all
    processes continue from."""
    import tensorflow as tf

    write, read = topology.ckpt_dirs()
    run.manager = tf.train.CheckpointManager(run.checkpoint, str(write),
                                             max_to_keep=run.config.keep,
                                             checkpoint_name=run.config.ckpt_prefix)
    latest = tf.train.latest_checkpoint(str(read)) if Path(read).exists() else None
    start = 0
    if latest:
        topology.status(phase="restoring", phase_checkpoint=checkpoint_number(latest))
        run.checkpoint.restore(latest).assert_existing_objects_matched()
        start = int(run.checkpoint.step.numpy())
    return topology.resume(run, start)


def _finish(run: Run, topology: Topology, strategy: Any, outcome: str) -> dict:
    """The chief's end: the NaN error, or evaluate the test split, save the model and
    return the final status fields."""
    from tfcore.training.analysis import write_analysis
    from tfcore.training.evaluate import evaluate_split

    fields = result_fields(run.state)
    if outcome == FAILED:
        run.logger.close()
        raise nan_error(run.state, run.config)
    model = topology.final_model(run, strategy)
    if outcome == FINISHED:
        topology.status(phase="evaluating")
        test = evaluate_split(model, run.bundle.x_test, run.bundle.y_test, run.config)
        run.logger.log_test(run.state, test.metrics)
        fields["test_metrics"] = test.metrics
        write_analysis(topology.paths, run.bundle, test.predictions, model)
    run.logger.close()
    topology.status(phase="saving")
    model.save(str(topology.paths.model))
    fields["parameters"] = tiny_parameters(model)
    fields["checkpoints"] = [Path(p).name for p in run.manager.checkpoints]
    return fields | {"state": outcome, "phase": None}


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
    return RunError(key="train.err.nan", params={"step": state.step, "loss": str(loss),
                                                 "lr": config.learning_rate})


def tiny_parameters(model: Any) -> dict | None:
    """Values of every variable when the model is tiny (e.g. M1's a and b)."""
    if model.count_params() > 16:
        return None
    return {v.path: [float(x) for x in v.numpy().ravel()] for v in model.weights}


def checkpoint_number(prefix: str) -> int | None:
    try:
        return int(Path(prefix).name.rsplit("-", 1)[-1])
    except ValueError:
        return None
