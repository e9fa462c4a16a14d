"""Models as data: the spec JSON, the layer catalog, validation and shapes, Keras builds,
code generation in three styles, `.keras` import, the tutorials' presets, summaries and saved models.

Code outside this package imports only the names below (``__all__``).
"""

from __future__ import annotations

from tfcore.model.build import build_model
from tfcore.model.canvas_graph import BLOCK_INPUT as CANVAS_BLOCK_INPUT
from tfcore.model.canvas_graph import block_view
from tfcore.model.canvas_graph import graph as canvas_drawing
from tfcore.model.canvas_ops import NEW_INPUT as CANVAS_NEW_INPUT
from tfcore.model.canvas_ops import OUTPUTS as CANVAS_OUTPUTS
from tfcore.model.canvas_ops import apply_event_at as apply_canvas_event
from tfcore.model.catalog import CATEGORIES, get_type, layer_types, set_custom_types
from tfcore.model.codegen import STYLES, generate
from tfcore.model.import_graph import model_to_spec
from tfcore.model.initializers import (
    INITIALIZERS,
    initializer_names,
    make_initializer,
    zeroed_uniform_class,
)
from tfcore.model.initial_weights import (
    load_initial_weights,
    open_checked,
    prune_imported,
    weights_problem,
)
from tfcore.model.keras_import import (
    ImportResult,
    check_keras_file,
    import_keras,
    import_keras_weights,
)
from tfcore.model.params import (
    BOOL,
    CHOICE,
    FLOAT,
    INIT,
    INT,
    JSON,
    RAW_KEY,
    REG,
    REGULARIZERS,
    SHAPE,
    SIZE,
    TEXT,
    ParamSpec,
)
from tfcore.model.params import LayerType
from tfcore.model.presets import get_preset, preset_names, preset_title
from tfcore.model.spec import (
    DTYPES,
    FUNCTIONAL,
    KINDS,
    SEQUENTIAL,
    InputSpec,
    LayerSpec,
    ModelSpec,
    from_dict,
    from_json,
)
from tfcore.model.spec_ops import (
    BLOCK,
    add_layer_at,
    block_children,
    convert_kind,
    duplicate_layer_at,
    group_into_block,
    move_layer_at,
    path_of,
    remove_layer_at,
    reuse_layer,
    scratch_spec,
    set_layer_at,
    ungroup,
    unique_name,
)
from tfcore.model.drafts import (Draft, new_draft_id, read_draft, spec_digest, valid_draft_id,
                                  write_draft)
from tfcore.model.spec_ops import rename as rename_layer
from tfcore.model.store import delete_spec, list_specs, load_spec, rename_spec, save_spec
from tfcore.model.summary import ModelSummary, deferred_demo, summarize
from tfcore.model.try_it import TryResult, default_shapes, try_it
from tfcore.model.validate import Validation, check_values, validate

__all__ = [
    "BOOL", "build_model", "CATEGORIES", "check_keras_file", "check_values", "CHOICE", "deferred_demo", "DTYPES",
    "FLOAT", "from_dict", "from_json", "FUNCTIONAL", "generate", "get_preset", "get_type",
    "import_keras", "import_keras_weights", "ImportResult", "load_initial_weights", "INIT",
    "open_checked", "prune_imported", "weights_problem", "delete_spec", "rename_spec",
    "initializer_names", "INITIALIZERS", "InputSpec", "INT", "JSON", "KINDS", "layer_types",
    "LayerType",
    "LayerSpec", "make_initializer", "model_to_spec", "ModelSpec", "ModelSummary", "ParamSpec",
    "preset_names", "preset_title", "RAW_KEY", "REG", "REGULARIZERS", "scratch_spec",
    "SEQUENTIAL", "set_custom_types",
    "SHAPE", "SIZE", "STYLES", "summarize", "TEXT",
    "validate", "Validation", "zeroed_uniform_class",
    # nested blocks (scenario B3): path-based edits, group and ungroup
    "add_layer_at", "block_children", "duplicate_layer_at", "group_into_block",
    "move_layer_at", "path_of", "remove_layer_at", "set_layer_at", "ungroup",
    # the builder's other edits, and saved models
    "BLOCK", "convert_kind", "rename_layer", "reuse_layer", "unique_name",
    "list_specs", "load_spec", "save_spec",
    "Draft", "new_draft_id", "read_draft", "spec_digest", "valid_draft_id", "write_draft",
    # the canvas: its events as spec edits, the drawing of one level
    "apply_canvas_event", "block_view", "CANVAS_BLOCK_INPUT", "canvas_drawing",
    "CANVAS_NEW_INPUT", "CANVAS_OUTPUTS",
    # run a model on a random input (scenario B1)
    "default_shapes", "try_it", "TryResult",
]
