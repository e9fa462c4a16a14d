"""The run directory: the only contract between a training worker (writer) and the dashboard
(readers), as TensorBoard's logdir is. Paths, states, status and metrics files.

Code outside this package imports only the names below (``__all__``).
"""

from __future__ import annotations

from tfcore.rundir.store import (
    ACTIVE_STATES,
    FAILED,
    FINAL_STATES,
    FINISHED,
    INTERRUPTED,
    QUEUED,
    RUNNING,
    STOPPED,
    STOPPING,
    MetricsWriter,
    RunPaths,
    RunRecord,
    RunStore,
    RunWriter,
    read_metrics,
)

__all__ = [
    "ACTIVE_STATES", "FAILED", "FINAL_STATES", "FINISHED", "INTERRUPTED", "MetricsWriter",
    "QUEUED", "read_metrics", "RUNNING", "RunPaths", "RunRecord", "RunStore", "RunWriter",
    "STOPPED", "STOPPING",
]
