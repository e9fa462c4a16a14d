"""Eager vs graph vs XLA: timings, FLOP/s, sweeps, the tracing lab and AutoGraph.

Code outside this package imports only the names below (``__all__``).
"""

from __future__ import annotations

from tfcore.timing.autograph import EXAMPLES, run_custom, run_example, trusted_code_enabled
from tfcore.timing.busy import BUSY_LIMITS, Busy, busy_rule
from tfcore.timing.explain import explain
from tfcore.timing.flops import apply_threads
from tfcore.timing.measure import TimingRequest, run_timing
from tfcore.timing.modes import mode_names, mode_title
from tfcore.timing.result import TimingResult
from tfcore.timing.runner import run_in_worker
from tfcore.timing.sweep import SweepRequest, SweepResult, parse_values, run_sweep
from tfcore.timing.tracing import ARG_DTYPES, FUNCTIONS, G2_TEXT, parse_sequence, run_tracing

__all__ = [
    "apply_threads", "ARG_DTYPES", "BUSY_LIMITS", "Busy", "busy_rule", "EXAMPLES", "explain",
    "FUNCTIONS", "G2_TEXT", "mode_names",
    "mode_title", "parse_sequence", "parse_values", "run_custom", "run_example", "run_in_worker",
    "run_sweep", "run_timing", "run_tracing", "SweepRequest", "SweepResult", "TimingRequest",
    "TimingResult", "trusted_code_enabled",
]
