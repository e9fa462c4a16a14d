"""The canvas inside an open block (scenario B3 on the canvas): the block drawn as a stack of
its own with the shape that flows into it, and gestures there as edits of the whole spec
(tfcore.model.canvas_ops.apply_event_at, canvas_graph.block_view)."""

from __future__ import annotations

import pytest

from tfcore.errors import SpecError
from tfcore.model import (
    FUNCTIONAL,
    block_children,
    canvas_graph,
    canvas_ops,
    generate,
    get_preset,
    scratch_spec,
    spec_ops,
    summarize,
)
from tfcore.model.canvas_graph import BLOCK_INPUT
from tfcore.model.canvas_ops import apply_event, apply_event_at


def _names(spec, path):
    return [e.name for e in block_children(spec, path)]


def _grouped_mlp():
    """scratch (28, 28, 1) -> flatten, dense(100, relu), dense_2(10), softmax; dense and
    dense_2 grouped on the canvas into ``block``."""
    spec = scratch_spec()
    for n, kind in enumerate(["Flatten", "Dense", "Dense", "Softmax"]):
        spec = apply_event(spec, {"op": "add", "type": kind, "x": 0, "y": 1000 + n})
    spec = canvas_ops.set_config(spec, "dense", {"units": 100, "activation": "relu"})
    spec = canvas_ops.set_config(spec, "dense_2", {"units": 10})
    return apply_event(spec, {"op": "group", "names": ["dense_2", "dense"]})


def test_grouping_two_layers_of_a_sequential_stack_keeps_the_parameters() -> None:
    spec = _grouped_mlp()
    assert [e.name for e in spec.layers] == ["flatten", "block", "softmax"]
    assert _names(spec, ("block",)) == ["dense", "dense_2"]
    summary = summarize(spec)
    assert summary.ok and summary.total == 79_510
    assert dict((r.name, r.params) for r in summary.rows)["block"] == 79_510
    # the block node is drawn as one that opens
    node = next(n for n in canvas_graph.graph(spec, {}, {}, {})["nodes"]
                if n["id"] == "block")
    assert node["block"] is True


def test_the_open_block_is_drawn_with_the_shape_that_flows_into_it() -> None:
    spec = _grouped_mlp()
    view = canvas_graph.block_view(spec, ("block",))
    assert [i.name for i in view.inputs] == [BLOCK_INPUT]
    assert view.inputs[0].shape == (784,)                 # flatten's output
    assert [e.name for e in view.layers] == ["dense", "dense_2"]
    rows = {r.name: (r.output_shape, r.params) for r in summarize(view).rows}
    assert rows == {"dense": ("(None, 100)", 78_500), "dense_2": ("(None, 10)", 1_010)}
    drawn = canvas_graph.graph(view, {}, {}, {})
    assert [n["id"] for n in drawn["nodes"]] == [BLOCK_INPUT, "dense", "dense_2",
                                                 canvas_ops.OUTPUTS]
    assert [(e["source"], e["target"]) for e in drawn["edges"]] == [
        (BLOCK_INPUT, "dense"), ("dense", "dense_2"), ("dense_2", canvas_ops.OUTPUTS)]


def test_a_nested_block_two_levels_down_gets_its_input_shape() -> None:
    spec = get_preset("nested_blocks")
    view = canvas_graph.block_view(spec, ("block2", "block_1"))
    assert view.inputs[0].shape == (4,)                   # block_0's dense_0 output
    assert [e.name for e in view.layers] == ["flatten_1", "dense_1"]
    with pytest.raises(SpecError) as err:
        canvas_graph.block_view(spec, ("block2", "nope"))
    assert err.value.key == "spec.no_block"


def test_gestures_inside_a_block_edit_the_whole_spec() -> None:
    spec = _grouped_mlp()
    path = ("block",)
    # a drop between the two layers inserts there, named uniquely in the whole model
    spec = apply_event_at(spec, path, {"op": "add", "type": "Dropout", "x": 0, "y": 150})
    assert _names(spec, path) == ["dense", "dropout", "dense_2"]
    spec = apply_event_at(spec, path, {"op": "add", "type": "Flatten", "y": 1000})
    assert _names(spec, path)[-1] == "flatten_2"          # "flatten" is the top level's
    assert summarize(spec).total == 79_510
    # reorder by a drop height, then by index
    spec = apply_event_at(spec, path, {"op": "reorder", "name": "flatten_2", "y": -50})
    assert _names(spec, path) == ["flatten_2", "dense", "dropout", "dense_2"]
    spec = apply_event_at(spec, path, {"op": "reorder", "name": "flatten_2", "index": 9})
    assert _names(spec, path) == ["dense", "dropout", "dense_2", "flatten_2"]
    # move and connect change nothing inside a block (a stack is wired by its order)
    assert apply_event_at(spec, path, {"op": "connect", "source": "dense",
                                       "target": "dense_2"}) == spec
    assert apply_event_at(spec, path, {"op": "move", "positions": {"dense": [1, 2]}}) == spec
    # delete: the input and outputs nodes and unknown names are left alone
    spec = apply_event_at(spec, path, {"op": "delete", "nodes": [
        "flatten_2", "dropout", BLOCK_INPUT, canvas_ops.OUTPUTS, "softmax"]})
    assert _names(spec, path) == ["dense", "dense_2"]
    assert [e.name for e in spec.layers] == ["flatten", "block", "softmax"]
    # the exported code has the block and runs with the same count
    namespace: dict = {}
    exec(compile(generate(spec, "functional"), "m.py", "exec"), namespace)  # noqa: S102
    assert namespace["build_model"]().count_params() == 79_510


def test_group_and_ungroup_inside_a_block_and_at_the_top() -> None:
    spec = get_preset("nested_blocks")
    path = ("block2", "block_0")
    spec = apply_event_at(spec, path, {"op": "group", "names": ["flatten_0", "dense_0"]})
    assert _names(spec, path) == ["block"]
    assert _names(spec, path + ("block",)) == ["flatten_0", "dense_0"]
    spec = apply_event_at(spec, path, {"op": "ungroup", "name": "block"})
    assert _names(spec, path) == ["flatten_0", "dense_0"]
    assert spec == get_preset("nested_blocks")


@pytest.mark.parametrize("event, key", [
    ({"op": "add", "type": canvas_ops.NEW_INPUT, "y": 0}, "canvas.input_in_block"),
    ({"op": "add", "type": "NoSuchLayer", "y": 0}, "canvas.unknown_type"),
    ({"op": "ungroup", "name": "softmax"}, "canvas.no_node"),     # not in this block
    ({"op": "group", "names": ["softmax"]}, "spec.group_empty"),
    ({"op": "group", "names": "dense"}, "canvas.bad_event"),
    ({"op": "delete", "nodes": "dense"}, "canvas.bad_event"),
    ({"op": "teleport"}, "canvas.bad_event"),
    ("not an event", "canvas.bad_event"),
])
def test_refused_gestures_inside_a_block_are_located_and_change_nothing(event, key) -> None:
    spec = _grouped_mlp()
    with pytest.raises(SpecError) as err:
        apply_event_at(spec, ("block",), event)
    assert err.value.key == key


def test_a_path_that_is_not_a_block_is_refused() -> None:
    spec = _grouped_mlp()
    for path in [("softmax",), ("nope",), ("block", "dense")]:
        with pytest.raises(SpecError) as err:
            apply_event_at(spec, path, {"op": "add", "type": "Dense", "y": 0})
        assert err.value.key == "spec.no_block"


def test_a_functional_block_view_takes_the_shape_of_its_input_edge() -> None:
    spec = spec_ops.convert_kind(_grouped_mlp(), FUNCTIONAL)
    assert spec.layer("block").inputs == ("flatten",)
    view = canvas_graph.block_view(spec, ("block",))
    assert view.inputs[0].shape == (784,)
    # open level "()" is the model's own canvas: apply_event_at is apply_event
    event = {"op": "add", "type": "Dense", "x": 5, "y": 7}
    assert apply_event_at(spec, (), event) == apply_event(spec, event)
