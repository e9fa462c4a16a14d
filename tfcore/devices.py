"""Device discovery and the device settings a process applies before TensorFlow starts.

TensorFlow fixes its devices when it initializes, so a :class:`DeviceConfig` is applied
at the start of a worker process (see ``tfcore.worker``); the dashboard process only
looks, and turns on memory growth so it never takes a whole GPU from the workers.
"""

from __future__ import annotations

import os
import platform
from dataclasses import asdict, dataclass, field


@dataclass(frozen=True)
class DeviceInfo:
    """One device TensorFlow sees."""

    name: str
    device_type: str
    kind: str  # "physical" or "logical"
    details: dict = field(default_factory=dict)


@dataclass(frozen=True)
class DevicesReport:
    """Physical and logical devices, plus what could not be read."""

    physical: tuple[DeviceInfo, ...]
    logical: tuple[DeviceInfo, ...]
    gpu_count: int
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        return {
            "physical": [asdict(d) for d in self.physical],
            "logical": [asdict(d) for d in self.logical],
            "gpu_count": self.gpu_count,
            "notes": list(self.notes),
        }


@dataclass(frozen=True)
class VersionsReport:
    """Versions of the software stack a result was produced with."""

    tensorflow: str
    keras: str
    python: str
    numpy: str
    cuda: str | None
    cudnn: str | None
    built_with_cuda: bool

    def to_dict(self) -> dict:
        return asdict(self)


def quiet_tensorflow() -> None:
    """Silence TensorFlow's C++ info logs unless the person asked for them."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


def configure_server_process() -> None:
    """Turn on memory growth for every GPU so the dashboard never reserves a whole card.

    Safe to call more than once; does nothing after TensorFlow has initialized.
    """
    quiet_tensorflow()
    import tensorflow as tf

    for gpu in tf.config.list_physical_devices("GPU"):
        try:
            tf.config.experimental.set_memory_growth(gpu, True)
        except (RuntimeError, ValueError):
            break  # already initialized: settings are fixed for this process


def describe_devices() -> DevicesReport:
    """The physical and logical devices of this process, with GPU details."""
    quiet_tensorflow()
    import tensorflow as tf

    notes = []
    physical = []
    for dev in tf.config.list_physical_devices():
        details = {}
        if dev.device_type == "GPU":
            try:
                details = {k: (v if isinstance(v, (int, float, str)) else str(v))
                           for k, v in tf.config.experimental.get_device_details(dev).items()}
            except (RuntimeError, ValueError) as exc:  # pragma: no cover - GPU only
                notes.append(f"{dev.name}: {exc}")
        physical.append(DeviceInfo(dev.name, dev.device_type, "physical", details))
    logical = []
    for dev in tf.config.list_logical_devices():
        details = {}
        if dev.device_type == "GPU":
            try:
                info = tf.config.experimental.get_memory_info(dev.name)
                details = {"memory_current_bytes": int(info["current"]),
                           "memory_peak_bytes": int(info["peak"])}
            except (RuntimeError, ValueError):  # pragma: no cover - GPU only
                pass
        logical.append(DeviceInfo(dev.name, dev.device_type, "logical", details))
    gpus = sum(1 for d in physical if d.device_type == "GPU")
    return DevicesReport(tuple(physical), tuple(logical), gpus, tuple(notes))


def versions() -> VersionsReport:
    """TensorFlow, Keras, CUDA and cuDNN versions of this install."""
    quiet_tensorflow()
    import keras
    import numpy as np
    import tensorflow as tf

    info = tf.sysconfig.get_build_info()
    return VersionsReport(
        tensorflow=tf.__version__,
        keras=keras.__version__,
        python=platform.python_version(),
        numpy=np.__version__,
        cuda=info.get("cuda_version"),
        cudnn=info.get("cudnn_version"),
        built_with_cuda=bool(info.get("is_cuda_build", False)),
    )


CPU, GPU, MIRRORED = "cpu", "gpu", "mirrored"
DEVICE_KINDS = (CPU, GPU, MIRRORED)


@dataclass(frozen=True)
class DeviceConfig:
    """Device settings a worker applies before TensorFlow initializes.

    Attributes:
        kind: ``cpu``, ``gpu`` (one GPU, ``gpus[0]``) or ``mirrored`` (MirroredStrategy).
        gpus: indices of the physical GPUs to make visible (empty: all).
        logical_devices: split the first device (GPU, else CPU) into this many logical
            devices (0 or 1: no split) so MirroredStrategy can run on one card or a CPU.
        memory_growth: allocate GPU memory as needed instead of all at once.
        memory_limit_mb: cap per logical GPU (0: no cap).
    """

    kind: str = CPU
    gpus: tuple[int, ...] = ()
    logical_devices: int = 0
    memory_growth: bool = True
    memory_limit_mb: int = 0

    def to_dict(self) -> dict:
        return asdict(self) | {"gpus": list(self.gpus)}

    @classmethod
    def from_dict(cls, data: dict | None) -> "DeviceConfig":
        data = dict(data or {})
        config = cls(kind=str(data.get("kind", CPU)), gpus=tuple(data.get("gpus", ()) or ()),
                     logical_devices=int(data.get("logical_devices", 0) or 0),
                     memory_growth=bool(data.get("memory_growth", True)),
                     memory_limit_mb=int(data.get("memory_limit_mb", 0) or 0))
        config.check()
        return config

    def check(self) -> None:
        """Raise DeviceError for values that can never work (before TensorFlow starts)."""
        from tfcore.errors import DeviceError

        if self.kind not in DEVICE_KINDS:
            raise DeviceError(f"Device kind must be one of {DEVICE_KINDS}. "
                              f"Received: kind={self.kind!r}", key="errors.device_kind",
                              params={"kind": self.kind})
        if not 0 <= self.logical_devices <= 16:
            raise DeviceError("logical_devices must be between 0 and 16. "
                              f"Received: logical_devices={self.logical_devices}",
                              key="errors.device_logical",
                              params={"value": self.logical_devices})
        if self.memory_limit_mb < 0:
            raise DeviceError(f"memory_limit_mb must be >= 0. Received: {self.memory_limit_mb}",
                              key="errors.device_memory", params={"value": self.memory_limit_mb})


@dataclass(frozen=True)
class AppliedDevices:
    """What a process ended up with after applying a DeviceConfig."""

    visible_gpus: tuple[str, ...]
    logical: tuple[str, ...]
    strategy: str
    replicas: int


def apply_device_config(config: DeviceConfig) -> AppliedDevices:
    """Apply device settings in a fresh process, then return the strategy to train under.

    Must run before any other TensorFlow call in the process.

    Raises:
        DeviceError: a GPU index does not exist, GPUs were asked for on a machine with
            none, or TensorFlow had already initialized.
    """
    from tfcore.errors import DeviceError

    quiet_tensorflow()
    import tensorflow as tf

    config.check()
    gpus = tf.config.list_physical_devices("GPU")
    try:
        if config.kind in (GPU, MIRRORED) and gpus:
            wanted = list(config.gpus) or list(range(len(gpus)))
            if config.kind == GPU:
                wanted = wanted[:1]
            bad = [i for i in wanted if i < 0 or i >= len(gpus)]
            if bad:
                raise DeviceError(f"GPU index {bad[0]} does not exist; this machine has "
                                  f"{len(gpus)} GPU(s).", key="errors.device_gpu_index",
                                  params={"index": bad[0], "count": len(gpus)})
            chosen = [gpus[i] for i in wanted]
            tf.config.set_visible_devices(chosen, "GPU")
            split = config.logical_devices if config.logical_devices > 1 else 0
            for n, gpu in enumerate(chosen):
                if split and n == 0:
                    limit = config.memory_limit_mb or 1024
                    tf.config.set_logical_device_configuration(
                        gpu, [tf.config.LogicalDeviceConfiguration(memory_limit=limit)] * split)
                elif config.memory_limit_mb:
                    tf.config.set_logical_device_configuration(
                        gpu, [tf.config.LogicalDeviceConfiguration(
                            memory_limit=config.memory_limit_mb)])
                elif config.memory_growth:
                    tf.config.experimental.set_memory_growth(gpu, True)
        elif config.kind == GPU:
            raise DeviceError("A GPU was asked for, but TensorFlow sees no GPU on this "
                              "machine; choose the CPU.", key="errors.device_no_gpu")
        else:
            if gpus:
                tf.config.set_visible_devices([], "GPU")
            if config.logical_devices > 1:
                cpu = tf.config.list_physical_devices("CPU")[0]
                tf.config.set_logical_device_configuration(
                    cpu, [tf.config.LogicalDeviceConfiguration()] * config.logical_devices)
    except RuntimeError as exc:
        raise DeviceError(f"Device settings could not be applied: {exc}",
                          key="errors.device_initialized", params={"message": str(exc)}) from exc
    logical = tf.config.list_logical_devices()
    if config.kind == MIRRORED:
        kind = "GPU" if any(d.device_type == "GPU" for d in logical) else "CPU"
        names = [d.name for d in logical if d.device_type == kind]
        strategy, replicas = "mirrored", len(names)
    else:
        strategy, replicas = "default", 1
    return AppliedDevices(
        visible_gpus=tuple(d.name for d in tf.config.list_physical_devices("GPU")),
        logical=tuple(d.name for d in logical), strategy=strategy, replicas=replicas)


def make_strategy(config: DeviceConfig):
    """The tf.distribute strategy for an applied config (call after apply_device_config)."""
    import tensorflow as tf

    if config.kind == MIRRORED:
        logical = tf.config.list_logical_devices()
        kind = "GPU" if any(d.device_type == "GPU" for d in logical) else "CPU"
        return tf.distribute.MirroredStrategy([d.name for d in logical if d.device_type == kind])
    if config.kind == GPU:
        return tf.distribute.OneDeviceStrategy("/GPU:0")
    return tf.distribute.OneDeviceStrategy("/CPU:0")
