"""A rename in the Forms editor (spec_ops.rename) keeps the node's place on the canvas."""

from __future__ import annotations

from dataclasses import replace

from tfcore.model import canvas_ops, from_json, get_preset, spec_ops


def _placed(spec, **positions):
    return replace(spec, layout={**spec.layout, **positions})


def test_a_forms_rename_moves_the_layout_key_and_every_reference() -> None:
    spec = _placed(get_preset("mlp_functional"), image=(0.0, 0.0), flatten=(0.0, 80.0),
                   logits=(40.5, 240.0), softmax=(40.5, 320.0))
    renamed = spec_ops.rename(spec, "logits", "scores")
    assert renamed.layout["scores"] == (40.5, 240.0) and "logits" not in renamed.layout
    assert renamed.layer("softmax").inputs == ("scores",)
    others = {k: v for k, v in renamed.layout.items() if k != "scores"}
    assert others == {"image": (0.0, 0.0), "flatten": (0.0, 80.0), "softmax": (40.5, 320.0)}
    # an input too; the saved spec keeps the position under the new name
    again = from_json(spec_ops.rename(renamed, "image", "pixels").to_json())
    assert again.layout["pixels"] == (0.0, 0.0) and "image" not in again.layout
    assert again.layer("flatten").inputs == ("pixels",)
    # the canvas's rename is the same edit
    assert canvas_ops.rename(spec, "logits", "scores") == renamed


def test_a_name_without_a_position_renames_and_leaves_the_layout_alone() -> None:
    spec = _placed(get_preset("mlp_functional"), flatten=(3.0, 4.0))
    renamed = spec_ops.rename(spec, "dense", "hidden")
    assert renamed.layout == {"flatten": (3.0, 4.0)}
    assert renamed.layer("logits").inputs == ("hidden",)


def test_nested_names_still_rename_and_a_block_keeps_its_place() -> None:
    spec = _placed(get_preset("nested_mlp"), nest_mlp=(10.0, 20.0), dense=(10.0, 120.0))
    child = spec_ops.rename(spec, "net", "inner")
    assert [c.name for c in child.layers[0].layers] == ["inner", "nest_dense"]
    assert child.layout == spec.layout                     # only top-level nodes are placed
    block = spec_ops.rename(child, "nest_mlp", "outer")
    assert block.layers[0].name == "outer" and block.layout["outer"] == (10.0, 20.0)
    assert "nest_mlp" not in block.layout and block.layout["dense"] == (10.0, 120.0)
