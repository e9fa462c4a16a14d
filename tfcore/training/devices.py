"""Device discovery and the device settings a process applies before TensorFlow starts.

TensorFlow fixes its devices when it initializes, so a :class:`DeviceConfig` is applied
at the start of a worker process (see ``tfcore.training.worker``); the dashboard process only
looks, and turns on memory growth so it never takes a whole GPU from the workers.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from tfcore.tfenv import quiet_tensorflow
from tfcore.training.registry import DEVICE_KINDS, SETTINGS, check_choice

CPU, GPU, MIRRORED = "cpu", "gpu", "mirrored"
CLUSTER = "cluster"     # MultiWorkerMirroredStrategy over worker processes (training.cluster)


@dataclass(frozen=True)
class DeviceConfig:
    """Device settings a worker applies before TensorFlow initializes.

    Attributes:
        kind: ``cpu``, ``gpu`` (one GPU, ``gpus[0]``), ``mirrored`` (MirroredStrategy) or
            ``cluster`` (MultiWorkerMirroredStrategy; the layout is ``run.json["cluster"]``,
            see ``tfcore.training.cluster``; each worker applies nothing else).
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

        check_choice("kind", self.kind, DEVICE_KINDS, DeviceError)
        SETTINGS["logical_devices"].check(self.logical_devices, DeviceError)
        SETTINGS["memory_limit_mb"].check(self.memory_limit_mb, DeviceError)


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
                raise DeviceError(key="errors.device_gpu_index",
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
        elif config.kind == GPU or (config.kind == MIRRORED and config.gpus):
            raise DeviceError(key="errors.device_no_gpu")
        else:
            if gpus:
                tf.config.set_visible_devices([], "GPU")
            if config.logical_devices > 1:
                cpu = tf.config.list_physical_devices("CPU")[0]
                tf.config.set_logical_device_configuration(
                    cpu, [tf.config.LogicalDeviceConfiguration()] * config.logical_devices)
    except RuntimeError as exc:
        raise DeviceError(key="errors.device_initialized",
                          params={"message": str(exc)}) from exc
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
