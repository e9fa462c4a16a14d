"""Inside a built model: variable tables, statistics and histograms, initializers applied
per layer or variable, edits, rewinds, activations, and where a model's weights come from.

Code outside this package imports only the names below (``__all__``).
"""

from __future__ import annotations

from tfcore.weights.activations import activation_stats, model_input_shape, random_batch
from tfcore.weights.edit import add_constant, fill_slice, set_element
from tfcore.weights.init import (
    InitChoice,
    initialize_layer,
    initialize_model,
    initialize_variable,
    rewind,
)
from tfcore.weights.paths import PathStep, first_leaf, next_steps, path_parts, variable_at
from tfcore.weights.sources import has_weights, model_from_run
from tfcore.weights.stats import Histogram, TensorStats, histogram
from tfcore.weights.table import (
    VariableInfo,
    WeightTable,
    build_for_input,
    export_tensor,
    is_deferred,
    load_model_file,
    load_weights,
    parse_shape,
    safe_file_stem,
    save_weights,
    shown_path,
    spec_with_built_input,
    variable_table,
    variable_values,
)

__all__ = [
    "activation_stats", "add_constant", "build_for_input", "export_tensor", "fill_slice",
    "has_weights", "histogram", "Histogram", "InitChoice", "initialize_layer", "initialize_model",
    "initialize_variable", "is_deferred", "load_model_file", "load_weights", "model_from_run",
    "model_input_shape", "parse_shape", "random_batch", "rewind", "safe_file_stem", "save_weights",
    "set_element", "shown_path", "spec_with_built_input", "TensorStats", "variable_table",
    "variable_values",
    "VariableInfo", "WeightTable",
    # the path browser (scenario B4)
    "first_leaf", "next_steps", "path_parts", "PathStep", "variable_at",
]
