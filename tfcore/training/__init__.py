"""Training runs: configuration and its registries (settings, optimizers, schedules, losses,
metrics, loops, device kinds), devices and strategies, the loops
and their listeners, the job manager that starts worker processes, evaluation and analysis.

Code outside this package imports only the names below (``__all__``).
"""

from __future__ import annotations

from tfcore.training.analysis import read_analysis
from tfcore.training.cluster import (
    CLUSTER_FILE,
    MAX_WORKERS_PER_RUN,
    SHARD_POLICY,
    ClusterConfig,
    join_command,
)
from tfcore.training.config import (
    CKPT_PREFIXES,
    LOSSES,
    METRICS,
    OPTIMIZERS,
    SCHEDULES,
    TrainConfig,
    default_loss_and_metrics,
    make_optimizer,
    shapes_fit,
)
from tfcore.training.device_probe import probe_devices
from tfcore.training.devices import (
    CLUSTER,
    CPU,
    GPU,
    MIRRORED,
    AppliedDevices,
    DeviceConfig,
    apply_device_config,
)
from tfcore.training.evaluate import evaluate_split
from tfcore.training.registry import DEVICE_KINDS, LOOP_KINDS, SETTINGS
from tfcore.training.jobs import (
    checkpoint_steps,
    pid_alive,
    prewarm,
    reconcile,
    resume_run,
    start_run,
    stop_run,
    wait_for,
)
from tfcore.training.fits import (
    FitProblem,
    ModelShapes,
    check_request_fits,
    check_spec_fits,
    fit_problems,
    spec_shapes,
)
from tfcore.training.loss_choice import LossChoice, choose_for_spec, settle_loss
from tfcore.training.request import RunRequest
from tfcore.training.tape_code import tape_loop_code


def worker_main(argv: list[str]) -> int:
    """``python -m tfcore worker``: join a cluster run as one of its workers."""
    from tfcore.training.cluster_worker import main

    return main(argv)

__all__ = [
    "AppliedDevices", "apply_device_config", "CKPT_PREFIXES", "CLUSTER", "CLUSTER_FILE",
    "ClusterConfig", "CPU", "default_loss_and_metrics", "join_command", "MAX_WORKERS_PER_RUN",
    "SHARD_POLICY", "worker_main",
    "DeviceConfig", "evaluate_split", "GPU", "LOSSES", "make_optimizer", "METRICS",
    "MIRRORED", "OPTIMIZERS", "probe_devices", "read_analysis", "SCHEDULES", "shapes_fit",
    "tape_loop_code", "TrainConfig", "DEVICE_KINDS", "LOOP_KINDS", "SETTINGS",
    # the job manager: start, stop, resume and re-attach worker processes
    "checkpoint_steps", "pid_alive", "prewarm", "reconcile", "resume_run", "start_run",
    "stop_run", "wait_for",
    "check_request_fits", "check_spec_fits", "fit_problems", "FitProblem",
    "ModelShapes", "RunRequest", "spec_shapes",
    # the last layer's output and the loss: ok / the matching loss / refuse
    "choose_for_spec", "LossChoice", "settle_loss",
]
