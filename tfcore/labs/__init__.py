"""The foundations labs: tensors, GradientTape, gradient descent, tf.data pipelines,
device placement, MirroredStrategy, saving arrays.

Code outside this package imports only the names below (``__all__``).
"""

from __future__ import annotations

from tfcore.labs import (
    arrays,
    autodiff,
    mirrored,
    pipeline,
    pipeline_folders,
    placement,
    regression,
    tensors,
)
from tfcore.labs.autodiff import evaluate
from tfcore.labs.mirrored import MirroredDemo, mirrored_demo
from tfcore.labs.pipeline import PipelineSpec, label_order, pipeline_code
from tfcore.labs.placement import logical_devices, place, try_all_gpus, try_gpu
from tfcore.labs.regression import solve
from tfcore.labs.tensors import apply_op, create_tensor

__all__ = [
    "apply_op", "arrays", "autodiff", "create_tensor", "evaluate", "label_order",
    "logical_devices", "mirrored", "mirrored_demo", "MirroredDemo", "pipeline", "pipeline_code",
    "pipeline_folders",
    "PipelineSpec", "place", "placement",
    "regression", "solve", "tensors", "try_all_gpus", "try_gpu",
]
