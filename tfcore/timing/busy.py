"""Was the machine busy while timing? One rule, kept in the engine, read by page and CLI.

The rule (:func:`busy_rule`), either of two signs makes a measurement *busy*:

* ``load``: other work queued for the CPUs. The 1-minute load average is read before and
  after the timing; the timing worker itself accounts for about 1 of it, so
  ``max(load - 1, 0) / cpus`` (the larger of before and after) above
  :data:`LOAD_PER_CORE_LIMIT` means other processes competed for the cores.
* ``wall_cpu``: on the CPU, a step's elapsed (wall) time far above the process CPU time it
  used means the process waited for a core instead of computing. If any mode's median
  wall time exceeds :data:`WALL_CPU_LIMIT` times its median CPU time (and lasts at least
  :data:`MIN_STEP_S`, so timer noise cannot trigger it), the machine was busy. Not applied
  on a GPU, where a step legitimately waits for the device.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, fields
from typing import Iterable

LOAD_PER_CORE_LIMIT = 0.5
WALL_CPU_LIMIT = 1.5
MIN_STEP_S = 1e-3
BUSY_LIMITS = {"load": LOAD_PER_CORE_LIMIT, "wall_cpu": WALL_CPU_LIMIT}  # reason -> its limit


@dataclass(frozen=True)
class Busy:
    """The busy verdict and the numbers behind it.

    Attributes:
        busy: whether any sign of :func:`busy_rule` fired.
        reasons: the signs that fired, among ``"load"`` and ``"wall_cpu"``.
        load_before, load_after: the 1-minute load average around the timing (None: unknown).
        cpus: the cores this process may use.
        load_per_core: other processes' load per core (the larger of before and after).
        wall_cpu_ratio, wall_cpu_mode: the largest median wall / median CPU time, and its mode.
    """

    busy: bool = False
    reasons: tuple[str, ...] = ()
    load_before: float | None = None
    load_after: float | None = None
    cpus: int = 1
    load_per_core: float | None = None
    wall_cpu_ratio: float | None = None
    wall_cpu_mode: str = ""

    @classmethod
    def from_dict(cls, data: dict) -> "Busy":
        names = {f.name for f in fields(cls)}
        data = {k: v for k, v in data.items() if k in names}
        data["reasons"] = tuple(data.get("reasons", ()))
        return cls(**data)

    def to_dict(self) -> dict:
        out = asdict(self)
        out["reasons"] = list(self.reasons)
        return out


def load_average() -> float | None:
    """The 1-minute load average, or None where the system has none."""
    try:
        return float(os.getloadavg()[0])
    except (AttributeError, OSError):
        return None


def cpu_count() -> int:
    """Cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def busy_rule(medians: Iterable[tuple[str, float, float]], load_before: float | None,
              load_after: float | None, cpus: int, on_cpu: bool = True) -> Busy:
    """Apply the module's rule to ``(mode, median wall s, median CPU s)`` and the loads."""
    reasons = []
    loads = [max(0.0, load - 1.0) for load in (load_before, load_after) if load is not None]
    per_core = max(loads) / max(1, cpus) if loads else None
    if per_core is not None and per_core > LOAD_PER_CORE_LIMIT:
        reasons.append("load")
    ratio, worst = None, ""
    for mode, wall, cpu in medians:
        if wall >= MIN_STEP_S and cpu > 0 and (ratio is None or wall / cpu > ratio):
            ratio, worst = wall / cpu, mode
    if on_cpu and ratio is not None and ratio > WALL_CPU_LIMIT:
        reasons.append("wall_cpu")
    return Busy(busy=bool(reasons), reasons=tuple(reasons), load_before=load_before,
                load_after=load_after, cpus=cpus, load_per_core=per_core,
                wall_cpu_ratio=ratio, wall_cpu_mode=worst)
