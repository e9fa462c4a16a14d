"""Frozen results of a timing: per-mode statistics, speedups, and the whole document."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any, Sequence

import numpy as np

from tfcore.timing.busy import Busy


@dataclass(frozen=True)
class ModeResult:
    """One mode's measurement.

    Attributes:
        first_call_s: the first call alone (tracing and compiling included).
        times_s: every timed steady-state step, in order, on the result's clock.
        median_s, p10_s, p90_s, mean_s: statistics of ``times_s``.
        wall_median_s, cpu_median_s: the median on both clocks (elapsed, process CPU).
        wall_times_s, cpu_times_s: every timed step on both clocks (the repeats).
        min_s, max_s: the fastest and slowest repeat on the result's clock.
        first_call_cpu_s: the first call's process CPU time.
        total_s: first call + warm-up + timed steps (the time for ``batches`` batches).
        first_loss: loss of the first step (same weights and batch in every mode).
        achieved_flops: FLOPs per step / median step time (FLOP/s).
        utilization: achieved_flops / the device's measured matmul peak.
        error: why the mode could not run (then the times are empty).
    """

    mode: str
    first_call_s: float = 0.0
    median_s: float = 0.0
    p10_s: float = 0.0
    p90_s: float = 0.0
    mean_s: float = 0.0
    total_s: float = 0.0
    batches: int = 0
    steps: int = 0
    first_loss: float | None = None
    achieved_flops: float | None = None
    utilization: float | None = None
    times_s: tuple[float, ...] = ()
    wall_median_s: float = 0.0
    cpu_median_s: float = 0.0
    wall_times_s: tuple[float, ...] = ()
    cpu_times_s: tuple[float, ...] = ()
    min_s: float = 0.0
    max_s: float = 0.0
    first_call_cpu_s: float = 0.0
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and bool(self.times_s)


@dataclass(frozen=True)
class Speedup:
    """How many times faster ``mode`` is than ``baseline``: a ratio of median step times.

    ``low`` and ``high`` are the 10th and 90th percentiles of the ratio over bootstrap
    resamples of both modes' step times: the spread of the estimate. ``statistic`` names
    the statistic of the repeats the ratio compares (the median: robust to a few slow
    steps on a shared machine).
    """

    mode: str
    baseline: str
    ratio: float
    low: float
    high: float
    statistic: str = "median"


TIME_LISTS = ("times_s", "wall_times_s", "cpu_times_s")


@dataclass(frozen=True)
class TimingResult:
    """The whole timing document the CLI prints and the page draws."""

    model: str
    params: int
    workload: str
    batch_size: int
    steps: int
    warmup: int
    rounds: int
    data: str
    clock: str
    modes: tuple[ModeResult, ...]
    speedups: tuple[Speedup, ...]
    flops_per_step: int | None
    flops_method: str
    peak_flops: float | None
    peak_cached: bool
    device: dict
    versions: dict
    threads: dict
    loss: str
    wall_s: float
    created: str
    request: dict = field(default_factory=dict)
    busy: Busy = field(default_factory=Busy)
    peak_raised: bool = False       # a mode ran above the measured peak: it is the peak

    def mode(self, name: str) -> ModeResult:
        for result in self.modes:
            if result.mode == name:
                return result
        raise KeyError(name)

    def speedup(self, mode: str, baseline: str = "eager") -> Speedup | None:
        for item in self.speedups:
            if item.mode == mode and item.baseline == baseline:
                return item
        return None

    def to_dict(self) -> dict:
        out = asdict(self)
        for mode in out["modes"]:
            for key in TIME_LISTS:
                mode[key] = list(mode[key])
        out["busy"]["reasons"] = list(out["busy"]["reasons"])
        return out

    @classmethod
    def from_dict(cls, data: dict) -> "TimingResult":
        data = dict(data)
        data["modes"] = tuple(_mode_from_dict(m) for m in data.get("modes", ()))
        data["speedups"] = tuple(Speedup(**s) for s in data.get("speedups", ()))
        data["busy"] = Busy.from_dict(data.get("busy") or {})
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})


def _mode_from_dict(data: dict) -> ModeResult:
    data = dict(data)
    for key in TIME_LISTS:
        data[key] = tuple(float(t) for t in data.get(key, ()))
    names = {f.name for f in fields(ModeResult)}
    return ModeResult(**{k: v for k, v in data.items() if k in names})


def summarize(mode: str, first_call_s: float, times: Sequence[float],
              cpu_times: Sequence[float], warm_s: float, first_loss: float | None,
              flops: int | None, peak: float | None, clock: str = "wall",
              first_call_cpu_s: float = 0.0) -> ModeResult:
    """Statistics of one mode's step times on ``clock`` (``wall`` or ``cpu``)."""
    wall = np.asarray(times, dtype=float)
    cpu = np.asarray(cpu_times, dtype=float)
    arr = cpu if clock == "cpu" else wall
    median = float(np.median(arr))
    achieved = flops / median if flops and median > 0 else None
    return ModeResult(
        mode=mode, first_call_s=first_call_s, median_s=median,
        p10_s=float(np.percentile(arr, 10)), p90_s=float(np.percentile(arr, 90)),
        mean_s=float(arr.mean()), total_s=first_call_s + warm_s + float(wall.sum()),
        wall_median_s=float(np.median(wall)), cpu_median_s=float(np.median(cpu)),
        wall_times_s=tuple(float(t) for t in wall), cpu_times_s=tuple(float(t) for t in cpu),
        min_s=float(arr.min()), max_s=float(arr.max()), first_call_cpu_s=first_call_cpu_s,
        steps=len(arr), first_loss=first_loss, achieved_flops=achieved,
        utilization=(achieved / peak) if achieved and peak else None,
        times_s=tuple(float(t) for t in arr))


def speedups(results: Sequence[ModeResult], resamples: int = 400,
             seed: int = 0) -> tuple[Speedup, ...]:
    """Every ok mode against eager (and against graph), with bootstrap spread."""
    ok = {r.mode: r for r in results if r.ok}
    rng = np.random.default_rng(seed)
    out = []
    for baseline in ("eager", "graph"):
        if baseline not in ok:
            continue
        base = np.asarray(ok[baseline].times_s)
        for name, result in ok.items():
            if name == baseline or (baseline == "graph" and name == "eager"):
                continue
            other = np.asarray(result.times_s)
            if np.median(other) <= 0 or np.median(base) <= 0:
                continue
            ratio = float(np.median(base) / np.median(other))
            boot_b = np.median(rng.choice(base, (resamples, base.size)), axis=1)
            boot_o = np.median(rng.choice(other, (resamples, other.size)), axis=1)
            boot = boot_b / np.maximum(boot_o, 1e-12)
            out.append(Speedup(name, baseline, ratio, float(np.percentile(boot, 10)),
                               float(np.percentile(boot, 90))))
    return tuple(out)


def summary_fields() -> list[str]:
    """Top-level fields every timing document has (the tests check them)."""
    return [f.name for f in fields(TimingResult)]


def jsonable(value: Any) -> Any:
    """Plain JSON types for numpy scalars inside a result dict."""
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def short_error(exc: BaseException) -> str:
    """``Type: first line of the message`` (at most 300 characters) for a table cell."""
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text.splitlines()[0][:300] if text else ''}"
