"""The same eager-vs-graph comparison over batch sizes or hidden widths.

Shows where graph mode stops helping: with few, large operations (big batches, wide
layers) the per-op Python overhead that tf.function removes is a small share of the step.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable, Optional

from tfcore.errors import TimingError
from tfcore.messages import Names
from tfcore.model import LayerSpec, ModelSpec
from tfcore.timing.measure import TimingRequest, run_timing
from tfcore.timing.result import TimingResult

SWEEP_AXES = ("batch", "width")
MAX_POINTS = 12


def with_hidden_width(spec: ModelSpec, width: int) -> ModelSpec:
    """The spec with every Dense layer but the last (the output) set to ``width`` units.

    Raises:
        TimingError: the model has no hidden Dense layer to widen.
    """
    dense = [entry.name for entry in spec.all_layers() if entry.type == "Dense"]
    hidden = set(dense[:-1])
    if not hidden:
        raise TimingError(key="timing.error.no_hidden",
                          params={"model": spec.name})

    def widen(entries: tuple[LayerSpec, ...]) -> tuple[LayerSpec, ...]:
        out = []
        for entry in entries:
            if entry.name in hidden:
                entry = replace(entry, config={**dict(entry.config), "units": int(width)})
            out.append(replace(entry, layers=widen(entry.layers)))
        return tuple(out)

    return replace(spec, layers=widen(spec.layers))


@dataclass(frozen=True)
class SweepRequest:
    """A base timing and the axis (``batch`` or ``width``) and values to sweep."""

    base: TimingRequest
    axis: str
    values: tuple[int, ...]

    def check(self) -> None:
        if self.axis not in SWEEP_AXES:
            raise TimingError(key="timing.error.axis",
                              params={"axis": self.axis, "choices": Names(SWEEP_AXES)})
        if not 1 <= len(self.values) <= MAX_POINTS or any(v < 1 for v in self.values):
            raise TimingError(key="timing.error.sweep_values",
                              params={"values": list(self.values), "max": MAX_POINTS})

    def point(self, value: int) -> TimingRequest:
        if self.axis == "batch":
            return replace(self.base, batch_size=int(value))
        return replace(self.base, spec=with_hidden_width(self.base.spec, int(value)))


@dataclass(frozen=True)
class SweepResult:
    """One timing per sweep value, in order."""

    axis: str
    values: tuple[int, ...]
    points: tuple[TimingResult, ...]

    def rows(self) -> list[dict]:
        """Flat rows (value, mode, median, p10, p90, speedup vs eager, achieved FLOP/s)."""
        rows = []
        for value, result in zip(self.values, self.points):
            for mode in result.modes:
                if not mode.ok:
                    continue
                speed = result.speedup(mode.mode)
                rows.append({"value": value, "mode": mode.mode, "median_s": mode.median_s,
                             "p10_s": mode.p10_s, "p90_s": mode.p90_s,
                             "speedup": speed.ratio if speed else 1.0,
                             "per_example_s": mode.median_s / result.batch_size,
                             "params": result.params, "flops_per_step": result.flops_per_step,
                             "achieved_flops": mode.achieved_flops,
                             "utilization": mode.utilization})
        return rows

    def to_dict(self) -> dict:
        return {"sweep": self.axis, "values": list(self.values),
                "points": [p.to_dict() for p in self.points], "rows": self.rows()}

    @classmethod
    def from_dict(cls, data: dict) -> "SweepResult":
        return cls(data["sweep"], tuple(data["values"]),
                   tuple(TimingResult.from_dict(p) for p in data["points"]))


def run_sweep(request: SweepRequest,
              progress: Optional[Callable[[float, str], None]] = None) -> SweepResult:
    """Run one timing per value (the device's peak is measured once, then cached)."""
    request.check()
    for value in request.values:
        request.point(value).check()
    points = []
    count = len(request.values)
    for index, value in enumerate(request.values):
        def scaled(fraction: float, message: str, index: int = index, value: Any = value) -> None:
            if progress:
                progress((index + fraction) / count, f"{request.axis}={value}: {message}")

        points.append(run_timing(request.point(value), scaled))
    return SweepResult(request.axis, tuple(request.values), tuple(points))


def parse_values(text: str) -> tuple[int, ...]:
    """``"8, 32,128"`` -> (8, 32, 128).

    Raises:
        TimingError: a value is not a positive integer, or none is given.
    """
    try:
        values = tuple(int(v) for v in text.replace(" ", "").split(",") if v)
    except ValueError:
        raise TimingError(key="timing.error.values", params={"name": "values", "value": text}
                          ) from None
    if not values or any(v < 1 for v in values):
        raise TimingError(key="timing.error.values", params={"name": "values", "value": text})
    return values
