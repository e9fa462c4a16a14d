"""What TensorFlow sees in this process: devices, versions, quiet logs.

TensorFlow fixes its devices when it initializes, so a :class:`DeviceConfig` is applied
at the start of a worker process (see ``tfcore.training.worker``); the dashboard process only
looks, and turns on memory growth so it never takes a whole GPU from the workers.
"""

from __future__ import annotations

import importlib.util
import os
import platform
from dataclasses import asdict, dataclass, field
from importlib import metadata
from pathlib import Path


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
    """TensorFlow, Keras, CUDA and cuDNN versions of this install, read without importing
    TensorFlow (a 5-15 s import the dashboard does not wait for): the packages' metadata
    and TensorFlow's generated build-info file. Falls back to the imported modules when
    the metadata is missing."""
    try:
        return _report(_installed(TF_DISTRIBUTIONS), metadata.version("keras"), _build_info())
    except (metadata.PackageNotFoundError, OSError, ImportError, AttributeError):
        quiet_tensorflow()
        import keras
        import tensorflow as tf

        return _report(tf.__version__, keras.__version__, tf.sysconfig.get_build_info())


TF_DISTRIBUTIONS = ("tensorflow", "tensorflow-cpu", "tensorflow-gpu", "tf-nightly")


def _report(tensorflow: str, keras: str, info: dict) -> VersionsReport:
    import numpy as np

    return VersionsReport(
        tensorflow=tensorflow,
        keras=keras,
        python=platform.python_version(),
        numpy=np.__version__,
        cuda=info.get("cuda_version"),
        cudnn=info.get("cudnn_version"),
        built_with_cuda=bool(info.get("is_cuda_build", False)),
    )


def _installed(names: tuple[str, ...]) -> str:
    """The version of the first installed distribution of ``names``."""
    for name in names:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    raise metadata.PackageNotFoundError(names[0])


def _build_info() -> dict:
    """``tf.sysconfig.get_build_info()`` without importing TensorFlow: its generated
    ``tensorflow/python/platform/build_info.py`` (it imports only ``collections``)."""
    spec = importlib.util.find_spec("tensorflow")      # a top-level package: not imported
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("tensorflow")
    path = Path(list(spec.submodule_search_locations)[0]) / "python" / "platform" / \
        "build_info.py"
    module_spec = importlib.util.spec_from_file_location("_tflab_tf_build_info", path)
    if module_spec is None or module_spec.loader is None:
        raise ImportError(str(path))
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return dict(module.build_info)
