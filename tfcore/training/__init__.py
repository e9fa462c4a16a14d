"""Training runs: configuration (optimizers, losses, metrics), devices and strategies, the loops
and their listeners, the job manager that starts worker processes, evaluation and analysis.

Code outside this package imports only the names below (``__all__``).
"""

from __future__ import annotations

from tfcore.training import jobs
from tfcore.training.analysis import read_analysis
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
    CPU,
    GPU,
    MIRRORED,
    AppliedDevices,
    DeviceConfig,
    apply_device_config,
)
from tfcore.training.evaluate import evaluate_split

__all__ = [
    "AppliedDevices", "apply_device_config", "CKPT_PREFIXES", "CPU", "default_loss_and_metrics",
    "DeviceConfig", "evaluate_split", "GPU", "jobs", "LOSSES", "make_optimizer", "METRICS",
    "MIRRORED", "OPTIMIZERS", "probe_devices", "read_analysis", "SCHEDULES", "shapes_fit",
    "TrainConfig",
]
