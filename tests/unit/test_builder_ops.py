"""Spec edits the page makes, the diagram's DOT, and the summary cache."""

from __future__ import annotations

from tfcore.model import spec_ops
from tfcore.model.presets import get_preset
from tfcore.model.spec import FUNCTIONAL, SEQUENTIAL
from tfcore.model.summary import summarize
from ui.builder.diagram import spec_to_dot


def test_scratch_mlp_by_edits_reaches_79510() -> None:
    spec = spec_ops.scratch_spec()
    for type_name in ("Flatten", "Dense", "Dense", "Softmax"):
        spec = spec_ops.add_layer(spec, type_name)
    spec = spec_ops.set_layer(spec, 1, config={"units": 100, "activation": "relu"})
    assert [e.name for e in spec.layers] == ["flatten", "dense", "dense_2", "softmax"]
    assert summarize(spec).total == 79_510


def test_move_duplicate_remove_rename_and_reuse() -> None:
    spec = get_preset("mlp_functional")
    assert spec_ops.move_layer_at(spec, (), 0, -1) is spec
    moved = spec_ops.move_layer_at(spec, (), 1, 1)
    assert [e.name for e in moved.layers][1:3] == ["logits", "dense"]
    dup = spec_ops.duplicate_layer(spec, 1)
    assert dup.layers[2].name == "dense_2" and dup.layers[2].inputs == ("flatten",)
    gone = spec_ops.remove_layer(spec, 3)
    assert gone.outputs == () and all("softmax" not in e.inputs for e in gone.layers)
    renamed = spec_ops.rename(spec, "logits", "scores")
    assert renamed.layer("softmax").inputs == ("scores",)
    tied = spec_ops.reuse_layer(get_preset("b1_mlp"), 1)
    assert tied.layers[-1].shares == "output"
    functional = spec_ops.reuse_layer(spec_ops.convert_kind(get_preset("tied"), FUNCTIONAL), 1)
    assert functional.layers[-1].shares == "shared" and functional.outputs == ("shared_again_2",)


def test_kind_conversion_keeps_the_model() -> None:
    functional = spec_ops.convert_kind(get_preset("mlp"), FUNCTIONAL)
    assert functional.outputs == ("softmax",) and functional.layers[0].inputs == ("image",)
    assert summarize(functional).total == 79_510
    back = spec_ops.convert_kind(functional, SEQUENTIAL)
    assert back == get_preset("mlp")


def test_diagram_shows_shapes_params_sharing_and_problems() -> None:
    spec = spec_spec = spec_ops.convert_kind(get_preset("tied"), FUNCTIONAL)
    summary = summarize(spec_spec)
    dot = spec_to_dot(spec, {r.name: (r.output_shape, r.params) for r in summary.rows},
                      bad={"output"})
    assert dot.startswith("digraph") and dot.rstrip().endswith("}")
    assert '"shared" -> "shared_again" [style=dashed' in dot
    assert "(None, 4)" in dot and "20 params" in dot
    assert 'color="#dc2626"' in dot
    assert '"in:x" -> "flatten"' in dot


def test_summary_is_cached_by_spec_json() -> None:
    spec = get_preset("cnn")
    assert summarize(spec) is summarize(get_preset("cnn"))
    changed = spec_ops.set_layer(spec, 6, config={"units": 11})
    assert summarize(changed).total != summarize(spec).total


def test_thirty_layer_model_summarizes_and_edits() -> None:
    spec = spec_ops.scratch_spec(shape=(32,))
    for _ in range(30):
        spec = spec_ops.add_layer(spec, "Dense")
    summary = summarize(spec)
    assert summary.ok and len(summary.rows) == 30
    assert summary.total == 32 * 10 + 10 + 29 * 110


def test_the_diagram_draws_its_words_in_the_pages_language_with_room_around_them() -> None:
    """The input's "Input" and the outputs' "output 1" were English on the Chinese page,
    and a long name touched its box (Graphviz reckons a narrower font than the browser's)."""
    from ui.common.i18n import catalog

    words = catalog("zh")
    spec = spec_ops.convert_kind(get_preset("mlp"), FUNCTIONAL)
    dot = spec_to_dot(spec, {}, (), words["builder.diagram.params"],
                      words["builder.diagram.shares"], words["builder.diagram.input"],
                      lambda n: words["builder.diagram.output"].format(n=n))
    assert f"{words['builder.diagram.input']} (None, 28, 28, 1)" in dot
    assert f"label={chr(34)}{words['builder.diagram.output'].format(n=1)}{chr(34)}" in dot
    assert "Input" not in dot and "output 1" not in dot
    assert 'margin="0.2,0.08"' in dot
