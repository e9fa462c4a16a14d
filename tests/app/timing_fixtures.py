"""A timing document built from injected numbers (no TensorFlow): eager 150 ms wall for
42 ms of CPU, graph 2.7 ms (issue 23's busy machine)."""

from __future__ import annotations

from tfcore.timing.busy import Busy
from tfcore.timing.result import TimingResult, speedups, summarize


def fake_result(busy: Busy) -> TimingResult:
    """Two modes with three repeats each, on the wall clock, carrying ``busy``."""
    eager = summarize("eager", 0.5, [0.148, 0.150, 0.300], [0.042, 0.041, 0.043], 0.0, 1.0,
                      None, None, first_call_cpu_s=0.4)
    graph = summarize("graph", 2.0, [0.003, 0.0025, 0.0027], [0.0026, 0.0024, 0.0026], 0.0,
                      1.0, None, None)
    modes = (eager, graph)
    return TimingResult("mlp", 1, "step", 8, 3, 0, 1, "synthetic", "wall", modes,
                        speedups(modes), None, "none", None, False,
                        {"name": "/device:CPU:0", "type": "CPU"}, {}, {}, "classification",
                        1.0, "now", busy=busy)
