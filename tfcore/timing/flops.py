"""Work per step and the machine's peak: FLOPs from the graph, a cached matmul peak.

FLOPs come from TensorFlow's graph cost analysis (the profiler's ``float_operation``
view over the traced step's graph): it counts MatMul, Conv2D and their gradients,
bias adds and element-wise ops with registered statistics. The peak is the best
FLOP/s of a large float32 matmul on the device, measured once per device, TensorFlow
version and thread setting and cached in ``<workspace>/cache/peak_flops.json``.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable


@dataclass(frozen=True)
class FlopCount:
    """FLOPs of one step and how they were counted (``graph_cost`` or ``unavailable``)."""

    flops: int | None
    method: str


@dataclass(frozen=True)
class PeakFlops:
    """Measured matmul FLOP/s of a device; ``cached`` says whether it was measured now;
    ``raised``: a model's step ran faster than the matmul measured, so the peak is that
    step's rate (:func:`raise_peak`)."""

    flops_per_s: float
    device: str
    matrix_size: int
    cached: bool
    key: str
    raised: bool = False


def graph_flops(fn: Callable, *args: Any) -> FlopCount:
    """FLOPs of one call of ``fn(*args)`` counted on its traced graph."""
    import tensorflow as tf

    try:
        from tensorflow.python.profiler import model_analyzer, option_builder

        concrete = tf.function(fn).get_concrete_function(*args)
        options = (option_builder.ProfileOptionBuilder(
            option_builder.ProfileOptionBuilder.float_operation())
            .with_empty_output().build())
        tf.get_logger().setLevel("ERROR")
        profile = model_analyzer.profile(graph=concrete.graph, options=options)
        total = int(profile.total_float_ops)
        return FlopCount(total if total > 0 else None, "graph_cost" if total > 0 else
                         "unavailable")
    except Exception:  # noqa: BLE001 - cost analysis is best effort
        return FlopCount(None, "unavailable")


def thread_settings() -> dict:
    """TensorFlow's thread pools and the CPU count this process may use."""
    import tensorflow as tf

    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        usable = os.cpu_count() or 1
    return {
        "intra_op": tf.config.threading.get_intra_op_parallelism_threads(),
        "inter_op": tf.config.threading.get_inter_op_parallelism_threads(),
        "cpu_count": os.cpu_count(),
        "usable_cpus": usable,
        "omp_num_threads": os.environ.get("OMP_NUM_THREADS"),
        "note": "0 means TensorFlow chooses (usually one thread per usable core)",
    }


def apply_threads(intra_op: int = 0, inter_op: int = 0) -> None:
    """Fix TensorFlow's thread pools (0: TensorFlow chooses); call before any TF op.

    Raises:
        TimingError: TensorFlow has already started its thread pools.
    """
    import tensorflow as tf

    from tfcore.errors import TimingError

    try:
        if intra_op:
            tf.config.threading.set_intra_op_parallelism_threads(int(intra_op))
        if inter_op:
            tf.config.threading.set_inter_op_parallelism_threads(int(inter_op))
    except RuntimeError as exc:
        raise TimingError(key="timing.error.threads", params={"message": str(exc)}) from exc


def timing_device() -> dict:
    """The device the timing runs on: first visible GPU, else the CPU, with its model."""
    import tensorflow as tf

    gpus = tf.config.list_logical_devices("GPU")
    if gpus:
        details = {}
        physical = tf.config.list_physical_devices("GPU")
        if physical:
            try:
                details = tf.config.experimental.get_device_details(physical[0])
            except (RuntimeError, ValueError):  # pragma: no cover - GPU only
                details = {}
        return {"name": gpus[0].name, "type": "GPU",
                "model": str(details.get("device_name", "GPU"))}
    return {"name": tf.config.list_logical_devices("CPU")[0].name, "type": "CPU",
            "model": _cpu_model()}


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:  # pragma: no cover - not Linux
        pass
    return "CPU"


def _cache_path() -> Path:
    from tfcore.workspace import default_workspace

    return default_workspace().root / "cache" / "peak_flops.json"


def _read_cache(path: Path) -> dict:
    """The peak cache; empty when missing or damaged (it is measured again)."""
    try:
        cache = json.loads(path.read_text()) if path.is_file() else {}
    except (OSError, ValueError):
        return {}
    return cache if isinstance(cache, dict) else {}


def _cached_rate(cache: dict, key: str) -> float | None:
    """The cached FLOP/s under ``key``, None unless it is a positive number."""
    known = cache.get(key)
    if isinstance(known, (int, float)) and not isinstance(known, bool) and known > 0:
        return float(known)
    return None


def _write_cache(path: Path, cache: dict) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(cache, indent=2))
        os.replace(tmp, path)
    except OSError:
        pass


def raise_peak(peak: PeakFlops, achieved: float) -> PeakFlops:
    """The peak after a step ran at ``achieved`` FLOP/s: unchanged when that is not above
    it; otherwise ``achieved`` (the device has shown it can), kept in the cache for the
    next timing. A peak measured while the machine was busy, or a model whose matmuls are
    more efficient than the measured one, would else read as more than 100 % of it."""
    if not achieved > peak.flops_per_s:
        return peak
    path = _cache_path()
    cache = _read_cache(path)
    cache[peak.key] = max(float(achieved), _cached_rate(cache, peak.key) or 0.0)
    _write_cache(path, cache)
    return replace(peak, flops_per_s=float(achieved), raised=True)


def measure_peak(device: dict | None = None, size: int | None = None,
                 repeats: int = 5, use_cache: bool = True) -> PeakFlops:
    """Best FLOP/s of an ``size x size`` float32 matmul on the timing device (cached)."""
    import tensorflow as tf

    device = device or timing_device()
    size = size or (8192 if device["type"] == "GPU" else 1024)
    threads = thread_settings()
    key = (f"{device['type']}|{device['model']}|tf{tf.__version__}|n{size}|"
           f"intra{threads['intra_op']}|cpus{threads['usable_cpus']}")
    path = _cache_path()
    cache: dict = {}
    if use_cache:
        cache = _read_cache(path)
        known = _cached_rate(cache, key)
        if known is not None:
            return PeakFlops(known, device["name"], size, True, key)
    with tf.device(device["name"]):
        a = tf.random.stateless_uniform((size, size), seed=(1, 2))
        b = tf.random.stateless_uniform((size, size), seed=(3, 4))
        matmul = tf.function(lambda p, q: tf.reduce_sum(tf.matmul(p, q)))
        matmul(a, b).numpy()
        best = float("inf")
        for _ in range(repeats):
            start = time.perf_counter()
            matmul(a, b).numpy()
            best = min(best, time.perf_counter() - start)
    peak = 2.0 * size ** 3 / best
    if use_cache:
        cache[key] = peak
        _write_cache(path, cache)
    return PeakFlops(peak, device["name"], size, False, key)
