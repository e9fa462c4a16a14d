"""Eager vs tf.function vs XLA vs Keras's own train step, timed honestly on one model.

Method: the model is built once and its initial weights copied into every mode's own
model; every mode sees the same batches (synthetic data with a fixed seed matching the
model's input and label space, or a real dataset); the first call (tracing and
compiling) is timed apart; warm-up steps follow; then the modes run interleaved in
rounds (the order rotates each round) so a slowdown of the machine hits all alike.
Every step is synchronized (its loss is read back) and timed on its own.

Public API: :class:`TimingRequest`, :func:`run_timing` -> :class:`TimingResult`
(see :mod:`tfcore.timing.result`); modes live in :mod:`tfcore.timing.modes`; whether the
machine was busy meanwhile is decided by :mod:`tfcore.timing.busy`.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, fields, replace
from datetime import datetime, timezone
from typing import Any, Callable, Optional

import numpy as np

from tfcore.errors import TFLabError, TimingError
from tfcore.messages import Names
from tfcore.model import ModelSpec
from tfcore.timing.busy import busy_rule, cpu_count, load_average
from tfcore.timing.modes import MODES, check_modes, infer_loss, make_workbench
from tfcore.timing.result import ModeResult, TimingResult, short_error, speedups, summarize

Progress = Optional[Callable[[float, str], None]]
MAX_POOL_BYTES = 256 * 2**20
SYNTHETIC = "synthetic"
CLOCKS = ("wall", "cpu")


@dataclass(frozen=True)
class TimingRequest:
    """What to time.

    Attributes:
        spec: the model.
        batch_size, steps: timed steady-state steps per mode (after first call and warm-up).
        modes: names from :data:`tfcore.timing.modes.MODES`.
        workload: ``"step"`` (training step) or ``"forward"``.
        warmup: untimed steps per mode after the first call.
        rounds: the timed steps are split into this many interleaved rounds.
        data: ``"synthetic"`` or a dataset name for :func:`tfcore.data.load_dataset`.
        clock: ``"wall"`` (elapsed time) or ``"cpu"`` (this process's CPU time: steadier
            on a shared machine; both are always recorded, this one drives the speedups).
    """

    spec: ModelSpec
    batch_size: int = 50
    steps: int = 20
    modes: tuple[str, ...] = ("eager", "graph", "xla")
    workload: str = "step"
    warmup: int = 2
    rounds: int = 4
    seed: int = 0
    learning_rate: float = 1e-3
    data: str = SYNTHETIC
    clock: str = "wall"

    def check(self) -> None:
        """Raise TimingError for values that cannot be timed (echoing them)."""
        limits = {"batch_size": (1, 100_000), "steps": (1, 100_000), "warmup": (0, 10_000),
                  "rounds": (1, 1_000)}
        for name, (low, high) in limits.items():
            value = getattr(self, name)
            if not isinstance(value, int) or not low <= value <= high:
                raise TimingError(key="timing.error.range",
                                  params={"name": name, "low": low, "high": high,
                                          "value": value})
        if not self.learning_rate > 0:
            raise TimingError(key="timing.error.positive",
                              params={"name": "learning_rate", "value": self.learning_rate})
        if self.clock not in CLOCKS:
            raise TimingError(key="timing.error.clock",
                              params={"clock": self.clock, "choices": Names(CLOCKS)})
        check_modes(self.modes, self.workload)
        if not self.spec.inputs:
            raise TimingError(key="timing.error.no_input", params={"model": self.spec.name})

    def to_dict(self) -> dict:
        out = asdict(self)
        out["spec"] = self.spec.to_dict()
        out["modes"] = list(self.modes)
        return out

    @classmethod
    def from_dict(cls, data: dict) -> "TimingRequest":
        from tfcore.model import from_dict

        data = dict(data)
        data["spec"] = from_dict(data["spec"])
        data["modes"] = tuple(data.get("modes", ()))
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})


def _step_counts(steps: int, rounds: int) -> list[int]:
    rounds = max(1, min(rounds, steps))
    return [steps // rounds + (1 if r < steps % rounds else 0) for r in range(rounds)]


def make_batches(model: Any, loss: Any, request: TimingRequest, count: int) -> list:
    """``count`` (x, y) tensor batches: synthetic with a fixed seed, or from a dataset."""
    import tensorflow as tf

    rng = np.random.default_rng(request.seed)
    n = request.batch_size
    if request.data != SYNTHETIC:
        return _dataset_batches(model, request, count)
    batches = []
    for _ in range(count):
        xs = []
        for tensor in model.inputs:
            shape = (n,) + tuple(int(d or 1) for d in tensor.shape[1:])
            if "int" in str(tensor.dtype):
                xs.append(tf.constant(rng.integers(0, 10, shape), dtype=tensor.dtype))
            else:
                xs.append(tf.constant(rng.random(shape, dtype=np.float32)))
        if loss.kind == "classification":
            y = tf.constant(rng.integers(0, loss.num_classes, (n,) + loss.output_shape[:-1]),
                            dtype=tf.int32)
        else:
            y = tf.constant(rng.standard_normal((n,) + loss.output_shape).astype(np.float32))
        batches.append((xs[0] if len(xs) == 1 else xs, y))
    return batches


def _dataset_batches(model: Any, request: TimingRequest, count: int) -> list:
    import tensorflow as tf

    from tfcore.data import DatasetRequest, load_dataset

    bundle = load_dataset(DatasetRequest(request.data, seed=request.seed))
    x, y = bundle.split("train")
    want = tuple(int(d or 1) for d in model.inputs[0].shape[1:])
    if tuple(x.shape[1:]) != want:
        raise TimingError(key="timing.error.data_shape",
                          params={"data": request.data, "got": str(tuple(x.shape[1:])),
                                  "want": str(want)})
    n = request.batch_size
    if len(x) < n:
        raise TimingError(key="timing.error.data_small",
                          params={"data": request.data, "count": len(x), "batch": n})
    per = len(x) // n
    return [(tf.constant(x[(i % per) * n:(i % per + 1) * n]),
             tf.constant(y[(i % per) * n:(i % per + 1) * n])) for i in range(count)]


def _sync(value: Any) -> float:
    """Wait for the step to finish by reading its loss back."""
    return float(np.asarray(value).reshape(-1)[0]) if value is not None else 0.0


@dataclass
class _Runner:
    name: str
    step: Any = None
    batch: int = 0
    first_call_s: float = 0.0
    first_call_cpu_s: float = 0.0
    warm_s: float = 0.0
    first_loss: float | None = None
    times: list = None
    cpu_times: list = None
    error: str | None = None

    def call(self, batches: list) -> tuple[float, float, float]:
        """One synchronized step: (wall seconds, process CPU seconds, loss)."""
        x, y = batches[self.batch % len(batches)]
        self.batch += 1
        start, cpu = time.perf_counter(), time.process_time()
        loss = _sync(self.step(x, y))
        return time.perf_counter() - start, time.process_time() - cpu, loss


def run_timing(request: TimingRequest, progress: Progress = None,
               measure_peak_flops: bool = True) -> TimingResult:
    """Time every requested mode; see the module docstring for the method.

    Raises:
        TimingError: the request is invalid, or every mode failed.
        SpecError: the model cannot be built.
    """
    request.check()
    from tfcore.model import build_model
    from tfcore.tfenv import quiet_tensorflow, versions
    from tfcore.timing.flops import (graph_flops, measure_peak, raise_peak, thread_settings,
                                     timing_device)

    quiet_tensorflow()
    import keras
    import tensorflow as tf

    report = progress or (lambda fraction, message: None)
    began = time.perf_counter()
    load_before = load_average()
    keras.utils.set_random_seed(request.seed)
    base = build_model(request.spec)
    loss = infer_loss(base)
    weights = base.get_weights()
    total = 1 + request.warmup + request.steps
    bytes_per = request.batch_size * 4 * sum(
        int(np.prod([int(d or 1) for d in t.shape[1:]])) for t in base.inputs)
    pool = max(1, min(total, MAX_POOL_BYTES // max(1, bytes_per)))
    report(0.0, "data")
    device = timing_device()
    with tf.device(device["name"]):  # batches live on the timed device: no copy per step
        batches = [tf.nest.map_structure(tf.identity, batch)
                   for batch in make_batches(base, loss, request, pool)]

    runners = [_Runner(name, times=[], cpu_times=[]) for name in request.modes]
    for index, runner in enumerate(runners):
        report(0.05 + 0.25 * index / len(runners), f"first call: {runner.name}")
        try:
            bench = make_workbench(request.spec, weights, loss, request.learning_rate)
            runner.step = MODES[runner.name].make(bench, request.workload)
            runner.first_call_s, runner.first_call_cpu_s, runner.first_loss = runner.call(
                batches)
            for _ in range(request.warmup):
                runner.warm_s += runner.call(batches)[0]
        except TFLabError:
            raise
        except Exception as exc:  # noqa: BLE001 - one mode failing must not hide the others
            runner.error = short_error(exc)

    live = [r for r in runners if r.error is None]
    if not live:
        raise TimingError(key="timing.error.all_failed",
                          params={"errors": "; ".join(f"{r.name}: {r.error}" for r in runners)})
    counts = _step_counts(request.steps, request.rounds)
    done, goal = 0, request.steps * len(live)
    for round_index, count in enumerate(counts):
        shift = round_index % len(live)
        for runner in live[shift:] + live[:shift]:
            for _ in range(count):
                wall, cpu, _ = runner.call(batches)
                runner.times.append(wall)
                runner.cpu_times.append(cpu)
            done += count
            report(0.3 + 0.6 * done / goal, f"round {round_index + 1}/{len(counts)}: "
                                             f"{runner.name}")

    load_after = load_average()
    report(0.92, "flops")
    flops = _count_flops(base, loss, request, batches[0], graph_flops, weights)
    peak = None
    if measure_peak_flops:
        report(0.95, "peak")
        peak = measure_peak(device)
    results = [summarize(r.name, r.first_call_s, r.times, r.cpu_times, r.warm_s,
                         r.first_loss, flops.flops, peak.flops_per_s if peak else None,
                         request.clock, r.first_call_cpu_s)
               if r.error is None else ModeResult(r.name, error=r.error) for r in runners]
    results = [replace(r, batches=1 + request.warmup + r.steps) if r.ok else r
               for r in results]
    best = max((r.achieved_flops for r in results if r.ok and r.achieved_flops), default=0.0)
    if peak is not None and best > peak.flops_per_s:   # no share of the peak above 100 %
        peak = raise_peak(peak, best)
        results = [replace(r, utilization=r.achieved_flops / peak.flops_per_s)
                   if r.ok and r.achieved_flops else r for r in results]
    report(1.0, "done")
    return TimingResult(
        model=request.spec.name, params=int(base.count_params()), workload=request.workload,
        batch_size=request.batch_size, steps=request.steps, warmup=request.warmup,
        rounds=len(counts), data=request.data, clock=request.clock, modes=tuple(results),
        speedups=speedups(results, seed=request.seed), flops_per_step=flops.flops,
        flops_method=flops.method, peak_flops=peak.flops_per_s if peak else None,
        peak_cached=bool(peak and peak.cached), peak_raised=bool(peak and peak.raised),
        device=device,
        versions=versions().to_dict(), threads=thread_settings(),
        loss=f"{loss.kind}" + (f" ({loss.num_classes} classes, "
                               f"{'logits' if loss.from_logits else 'probabilities'})"
                               if loss.kind == "classification" else ""),
        wall_s=time.perf_counter() - began,
        created=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        request={k: v for k, v in request.to_dict().items() if k != "spec"},
        busy=busy_rule([(r.mode, r.wall_median_s, r.cpu_median_s) for r in results if r.ok],
                       load_before, load_after, cpu_count(),
                       on_cpu=device.get("type") != "GPU"))


def _count_flops(base: Any, loss: Any, request: TimingRequest, batch: tuple,
                 graph_flops: Callable, weights: list) -> Any:
    """FLOPs of one workload step, counted on a throwaway copy of the model."""
    from tfcore.timing.modes import python_step

    bench = make_workbench(request.spec, weights, loss, request.learning_rate)
    return graph_flops(python_step(bench, request.workload), *batch)
