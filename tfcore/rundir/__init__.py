"""The run directory: the only contract between a training worker (writer) and the dashboard
(readers), as TensorBoard's logdir is. Paths, states, the schema of every run file, status
and metrics files, and the stat-keyed caches that make re-reading unchanged runs free.

Code outside this package imports only the names below (``__all__``).
"""

from __future__ import annotations

from tfcore.rundir.cache import DIGESTS, cached_file, file_stamp
from tfcore.rundir.insight_format import INSIGHT_DIR, InsightMeta
from tfcore.rundir.insight_reader import (
    Insight,
    InsightGrid,
    forget_insight,
    read_grid,
    read_insight,
)
from tfcore.rundir.insight_writer import InsightWriter
from tfcore.rundir.metrics import MetricsChunk, MetricsWriter, read_metrics
from tfcore.rundir.metrics_cache import cached_metrics, forget_metrics
from tfcore.rundir.naming import run_name_base, run_names, unique_run_name
from tfcore.rundir.schema import META_FIELDS, META_JSON, RUN_FORMAT, RunProblem, check_object
from tfcore.rundir.store import (
    ACTIVE_STATES,
    DAMAGED,
    FAILED,
    FINAL_STATES,
    FINISHED,
    INTERRUPTED,
    QUEUED,
    RUNNING,
    STATES,
    STOPPED,
    STOPPING,
    RunPaths,
    RunRecord,
    RunStatus,
    RunStore,
    RunWriter,
)

__all__ = [
    "ACTIVE_STATES",
    "DAMAGED",
    "DIGESTS",
    "FAILED",
    "FINAL_STATES",
    "FINISHED",
    "INSIGHT_DIR",
    "INTERRUPTED",
    "Insight",
    "InsightGrid",
    "InsightMeta",
    "InsightWriter",
    "META_FIELDS",
    "META_JSON",
    "QUEUED",
    "RUN_FORMAT",
    "RUNNING",
    "STATES",
    "STOPPED",
    "STOPPING",
    "MetricsChunk",
    "MetricsWriter",
    "RunPaths",
    "RunProblem",
    "RunRecord",
    "RunStatus",
    "RunStore",
    "RunWriter",
    "cached_file",
    "cached_metrics",
    "check_object",
    "file_stamp",
    "forget_insight",
    "forget_metrics",
    "read_grid",
    "read_insight",
    "read_metrics",
    "run_name_base",
    "run_names",
    "unique_run_name",
]
