"""Every catalog layer type survives a run: train a few steps in a real worker, then
restore, evaluate and export its checkpoint in every format (issue 12, item 7; issue 15:
the catalog is now every built-in Keras layer).

Several small models, grouped by input rank (``fixtures_live_layers``), together use every
type but the ones in :data:`EXCLUDED`, which cannot be part of a model trained on the
``digits8`` images; each of those is built, saved and restored by a separate path
(:func:`test_excluded_types_build_save_and_restore`). Application layers (MobileNetV2,
ResNet50, VGG16, EfficientNetB0) are left out: each is millions of weights and tens of
seconds to export on two shared cores; they are the same Keras ``Functional`` models the
other layers already exercise (and test_builder_import_apps.py round-trips them).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.fixtures_live_layers import image_spec, sequence_spec, vector_spec
from tests.unit.fixtures_train import WAIT
from tfcore.model import from_dict, layer_types
from tfcore.rundir import RunStore
from tfcore.runs.export import EXPORTERS, export_checkpoint
from tfcore.runs.restore import evaluate_run, restore_run
from tfcore.training import jobs

pytestmark = pytest.mark.slow


def _layer(name: str, type_: str, inputs: list[str], **config) -> dict:
    return {"name": name, "type": type_, "config": config, "inputs": inputs}


def all_layers_spec() -> dict:
    """A Functional model on 8x8x1 digits that uses every non-application catalog type."""
    L = _layer
    layers = [
        L("conv2d", "Conv2D", ["image"], filters=4, kernel_size=[3, 3], padding="same",
          activation="relu"),
        L("bn", "BatchNormalization", ["conv2d"]),
        L("maxpool2d", "MaxPooling2D", ["bn"], pool_size=[2, 2]),
        L("avgpool2d", "AveragePooling2D", ["maxpool2d"], pool_size=[2, 2]),
        L("gap2d", "GlobalAveragePooling2D", ["avgpool2d"]),
        L("seq", "Reshape", ["image"], target_shape=[8, 8]),
        L("conv1d", "Conv1D", ["seq"], filters=4, kernel_size=3, padding="same"),
        L("maxpool1d", "MaxPooling1D", ["conv1d"], pool_size=2),
        L("lstm", "LSTM", ["maxpool1d"], units=4, return_sequences=True, dropout=0.2),
        L("gru", "GRU", ["lstm"], units=4, dropout=0.2),
        L("gap1d", "GlobalAveragePooling1D", ["conv1d"]),
        L("flat", "Flatten", ["image"]),
        L("embed", "Embedding", ["flat"], input_dim=32, output_dim=2),
        L("embed_flat", "Flatten", ["embed"]),
        L("dense", "Dense", ["flat"], units=4, activation="relu"),
        L("drop", "Dropout", ["dense"], rate=0.5),
        L("lnorm", "LayerNormalization", ["drop"]),
        L("act", "Activation", ["lnorm"], activation="tanh"),
        L("linear", "Linear", ["act"], units=4, kernel_initializer="glorot_uniform"),
        L("center", "MeanCenter", ["linear"]),
        L("mydense", "MyDense", ["center"], units=4),
        L("emb_dense", "Dense", ["embed_flat"], units=4),
        L("add", "Add", ["gap2d", "gru"]),
        L("mul", "Multiply", ["gap1d", "mydense"]),
        L("avg", "Average", ["add", "mul", "emb_dense"]),
        {"name": "block", "type": "Block", "config": {}, "inputs": ["avg"],
         "layers": [{"name": "block_dense", "type": "Dense", "config": {"units": 4}}]},
        L("cat", "Concatenate", ["block", "avg", "gap2d"]),
        L("logits", "Dense", ["cat"], units=10),
        L("softmax", "Softmax", ["logits"]),
    ]
    return {"format": 1, "name": "all_layers", "kind": "functional",
            "inputs": [{"name": "image", "shape": [8, 8, 1], "dtype": "float32"}],
            "layers": layers, "outputs": ["softmax"]}


def fixed_hidden_spec() -> dict:
    """FixedHiddenMLP returns one number per batch, so it gets its own tiny model whose
    scalar rides along (added to every logit) into an ordinary classifier."""
    L = _layer
    return {"format": 1, "name": "fixed_hidden_clf", "kind": "functional",
            "inputs": [{"name": "image", "shape": [8, 8, 1], "dtype": "float32"}],
            "layers": [L("flat", "Flatten", ["image"]),
                       L("to20", "Dense", ["flat"], units=20),
                       L("fixed", "FixedHiddenMLP", ["to20"], units=20, batch_axis=True),
                       L("logits", "Dense", ["flat"], units=10),
                       L("plus", "Add", ["logits", "fixed"]),
                       L("softmax", "Softmax", ["plus"])],
            "outputs": ["softmax"]}


def _types(layers: list[dict]) -> set[str]:
    out = set()
    for layer in layers:
        out.add(layer["type"])
        out |= _types(layer.get("layers") or [])
    return out


SPECS = {"all_layers": all_layers_spec, "fixed_hidden": fixed_hidden_spec,
         "image_layers": image_spec, "sequence_layers": sequence_spec,
         "vector_layers": vector_spec}
EXCLUDED = {
    "StringLookup": "takes strings; the digits are numbers",
    "TextVectorization": "takes strings; the digits are numbers",
    "HashedCrossing": "crosses two categorical features given as a tuple of scalars",
    "MaxNumBoundingBoxes": "takes a dict of images and bounding boxes",
    "Equalization": "in a Functional model Keras 3.15 traces it into a graph cycle",
}


def test_the_specs_cover_every_non_application_type() -> None:
    covered = set().union(*(_types(make()["layers"]) for make in SPECS.values()))
    wanted = {n for n, t in layer_types().items() if t.category != "application"}
    assert wanted - covered == set(EXCLUDED)
    assert len(wanted) >= 137
    for make in SPECS.values():
        from_dict(make())                         # valid specs


def test_excluded_types_build_save_and_restore(tmp_path: Path) -> None:
    """Each excluded type in a model of the inputs it takes: saved to ``.keras``, loaded
    back in safe mode, same outputs (and, for lookups, the same vocabulary)."""
    import keras
    import numpy as np

    from tfcore.model import InputSpec, LayerSpec, ModelSpec, build_model

    def run(name, inputs, layer, call=None):
        spec = ModelSpec(name, "functional", tuple(inputs),
                         (LayerSpec("x", layer[0], layer[1], tuple(i.name for i in inputs),
                                    call=call),), outputs=("x",))
        return build_model(spec)

    cases = [
        (run("strings", [InputSpec("s", (1,), "string")], ("StringLookup", {
            "vocabulary": ["a", "b"]})), [np.array([["a"], ["b"], ["z"]])]),
        (run("text", [InputSpec("s", (1,), "string")], ("TextVectorization", {
            "vocabulary": ["hello", "world"], "output_sequence_length": 3})),
         [np.array([["hello world"], ["world"], ["x"]])]),
        (run("cross", [InputSpec("a", (), "int64"), InputSpec("b", (), "int64")],
             ("HashedCrossing", {"num_bins": 8})), [np.array([1, 2, 3]), np.array([4, 5, 6])]),
    ]
    for model, data in cases:
        model.save(tmp_path / f"{model.name}.keras")
        back = keras.saving.load_model(tmp_path / f"{model.name}.keras", safe_mode=True)
        first = model(data if len(data) > 1 else data[0])
        again = back(data if len(data) > 1 else data[0])
        assert np.array_equal(np.asarray(first), np.asarray(again)), model.name
    assert np.asarray(cases[0][0](cases[0][1][0])).ravel().tolist() == [1, 2, 0]
    from tfcore.model.catalog import create_layer

    images = np.arange(2 * 8 * 8 * 3, dtype="float32").reshape(2, 8, 8, 3) % 255
    equal = create_layer(LayerSpec("eq", "Equalization"))
    assert equal(images).shape == (2, 8, 8, 3)
    boxes = create_layer(LayerSpec("boxes", "MaxNumBoundingBoxes", {
        "max_number": 2, "keras_config": {"bounding_box_format": "xyxy"}}))
    out = boxes({"images": images, "bounding_boxes": {
        "boxes": np.zeros((2, 3, 4), "float32"), "labels": np.zeros((2, 3), "int32")}})
    assert out["bounding_boxes"]["boxes"].shape == (2, 2, 4)


@pytest.fixture(scope="module")
def started(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, str]]:
    """Start every spec's run at once, one runs root each (so each has its own worker
    slot): the workers train side by side while the tests restore and export in turn.
    The workers get a workspace of their own (not the one of the test that came first)."""
    out = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TFLAB_WORKSPACE", str(tmp_path_factory.mktemp("layers_workspace")))
        for which, make in sorted(SPECS.items()):
            root = tmp_path_factory.mktemp(f"{which}_runs")
            request = {"spec": make(), "dataset": {"name": "digits8"},
                       "training": {"steps": 6, "batch_size": 16, "ckpt_every": 3,
                                    "loop": "custom", "validate_every": 1},
                       "device": {"kind": "cpu"}}
            out[which] = (root, jobs.start_run(root, request))
    yield out
    for root, run_id in out.values():
        if RunStore(root).get(run_id).status.state in ("running", "queued"):
            jobs.stop_run(root, run_id)


@pytest.mark.parametrize("which", sorted(SPECS))
def test_train_restore_evaluate_export_every_format(which: str, started: dict,
                                                    tmp_path: Path) -> None:
    root, run_id = started[which]
    assert jobs.wait_for(root, run_id, timeout=WAIT) == "finished", \
        RunStore(root).get(run_id).status.message
    run_dir = root / run_id
    assert jobs.checkpoint_steps(RunStore(root).paths(run_id)) == [3, 6]
    restored = restore_run(run_dir, require_complete=True, with_optimizer=True)
    assert restored.step == 6 and restored.report.complete
    assert not restored.report.missing
    result = evaluate_run(run_dir)
    assert result.report.complete and result.examples > 0
    assert result.metrics["loss"] > 0 and 0 <= result.metrics["sparse_categorical_accuracy"] <= 1
    for fmt in sorted(EXPORTERS):
        exported = export_checkpoint(run_dir, tmp_path / "exports", fmt)
        assert exported.path.is_file() and exported.size > 0, fmt
