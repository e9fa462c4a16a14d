"""Reading what runs left: listing and administration, curves, checkpoints and their
comparison, restore, evaluate and export, a CNN's filters and feature maps at a checkpoint.

Code outside this package imports only the names below (``__all__``).
"""

from __future__ import annotations

from tfcore.runs.admin import (
    RunSummary,
    delete_old_checkpoints,
    delete_run,
    list_runs,
    rename_run,
    set_tags,
    summarize,
)
from tfcore.runs.checkpoints import (
    CheckpointList,
    list_checkpoints,
    remove_leftovers,
    resolve_prefix,
)
from tfcore.runs.ckpt_variables import list_variables
from tfcore.runs.compare import diff_checkpoints, variable_stats
from tfcore.runs.conv_view import ConvLayers, ConvView, conv_view, run_conv_layers
from tfcore.runs.curves import X_AXES, group_curves, metric_names, run_curves
from tfcore.runs.export import EXPORTERS, continue_training, export_checkpoint, export_run_zip
from tfcore.runs.fresh_copy import FreshCopy, fresh_copy_outputs
from tfcore.runs.names import checkpoint_name, checkpoint_names, run_ckpt_prefix
from tfcore.runs.restore import (
    evaluate_run,
    predict_run,
    restore_run,
    restore_spec,
    run_request,
    variable_labels,
)
from tfcore.runs.smoothing import smooth
from tfcore.runs.tensorboard import (
    TensorBoardInfo,
    open_tensorboard,
    run_url,
    running_tensorboard,
    stop_tensorboard,
)

__all__ = [
    "checkpoint_name", "checkpoint_names", "CheckpointList", "continue_training",
    "ConvLayers", "ConvView", "conv_view",
    "delete_old_checkpoints", "delete_run", "diff_checkpoints", "evaluate_run",
    "export_checkpoint", "export_run_zip", "EXPORTERS", "fresh_copy_outputs", "FreshCopy",
    "group_curves", "list_checkpoints", "list_runs", "list_variables", "metric_names",
    "open_tensorboard", "predict_run", "remove_leftovers", "rename_run", "resolve_prefix",
    "restore_run", "restore_spec", "run_ckpt_prefix", "run_curves", "run_request",
    "run_conv_layers", "run_url", "running_tensorboard", "RunSummary", "set_tags", "smooth", "stop_tensorboard",
    "summarize", "TensorBoardInfo", "variable_labels", "variable_stats", "X_AXES",
]
