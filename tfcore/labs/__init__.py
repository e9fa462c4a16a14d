"""The foundations labs: tensors, GradientTape, gradient descent, tf.data pipelines,
device placement, MirroredStrategy, saving arrays.

Code outside this package imports only the names below (``__all__``).
"""

from __future__ import annotations

from tfcore.labs.arrays import list_saved, load_arrays, save_arrays
from tfcore.labs.autodiff import (
    UNARY_OPS,
    Expression,
    evaluate,
    expression_names,
    get_expression,
    tangent,
)
from tfcore.labs.mirrored import STEP, MirroredDemo, mirrored_demo
from tfcore.labs.pipeline import (
    DATASETS,
    PipelineSpec,
    first_batches,
    label_order,
    pipeline_code,
    throughput,
)
from tfcore.labs.pipeline_folders import (
    SIZES,
    FolderBatch,
    FolderSpec,
    first_folder_batch,
    folder_sources,
)
from tfcore.labs.placement import logical_devices, mix, num_gpus, place, try_all_gpus, try_gpu
from tfcore.labs.regression import (
    MAX_STEPS_PER_CALL,
    OPTIMIZERS,
    PROBLEMS,
    GradientDescentLab,
    problem_names,
    solve,
)
from tfcore.labs.tensors import CREATORS, DTYPES, OPS, TensorResult, apply_op, create_tensor

__all__ = [
    # tensors (T1) and saving arrays
    "apply_op", "create_tensor", "CREATORS", "DTYPES", "OPS", "TensorResult",
    "list_saved", "load_arrays", "save_arrays",
    # GradientTape (T2) and gradient descent (T3)
    "evaluate", "Expression", "expression_names", "get_expression", "tangent", "UNARY_OPS",
    "GradientDescentLab", "MAX_STEPS_PER_CALL", "OPTIMIZERS", "PROBLEMS", "problem_names",
    "solve",
    # tf.data pipelines, from arrays and from folders
    "DATASETS", "first_batches", "label_order", "pipeline_code", "PipelineSpec", "throughput",
    "first_folder_batch", "FolderBatch", "folder_sources", "FolderSpec", "SIZES",
    # device placement and MirroredStrategy
    "logical_devices", "mix", "num_gpus", "place", "try_all_gpus", "try_gpu",
    "mirrored_demo", "MirroredDemo", "STEP",
]
