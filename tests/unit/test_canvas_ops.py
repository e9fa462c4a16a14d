"""Canvas edits (tfcore.model.canvas_ops / canvas_graph) and the spec's layout field."""

from __future__ import annotations

import json

import pytest

from tfcore.errors import SpecError
from tfcore.model import (
    FUNCTIONAL,
    canvas_graph,
    canvas_ops,
    canvas_place,
    from_dict,
    from_json,
    generate,
    get_preset,
    scratch_spec,
    summarize,
)
from tfcore.model.canvas_ops import OUTPUTS, apply_event


def _add(spec, type_name, x=0, y=0):
    return apply_event(spec, {"op": "add", "type": type_name, "x": x, "y": y})


def _mlp_by_gestures():
    spec = scratch_spec()
    for n, kind in enumerate(["Flatten", "Dense", "Dense", "Softmax"]):
        spec = _add(spec, kind, 0, 1000 + n)          # dropped below the stack: appended
    spec = canvas_ops.set_config(spec, "dense", {"units": 100, "activation": "relu"})
    return canvas_ops.set_config(spec, "dense_2", {"units": 10})


def test_the_mlp_from_an_empty_sequential_canvas_has_79510_parameters():
    spec = _mlp_by_gestures()
    assert [e.type for e in spec.layers] == ["Flatten", "Dense", "Dense", "Softmax"]
    assert summarize(spec).total == 79_510
    # a drop between the first two layers inserts there (the stack is the order)
    dropped = _add(spec, "Dropout", 0, canvas_ops.stack_y(1) + 50)
    assert [e.name for e in dropped.layers][:3] == ["flatten", "dropout", "dense"]
    # reorder by dragging: softmax to the top
    moved = apply_event(spec, {"op": "reorder", "name": "softmax", "index": 0})
    assert [e.name for e in moved.layers] == ["softmax", "flatten", "dense", "dense_2"]
    assert apply_event(spec, {"op": "connect", "source": "input", "target": "dense"}) == spec


def _functional():
    """input -> dense -> (dense_2 | branch: dense_3) -> add -> output, then dense applied
    again on add's output (a shared layer)."""
    spec = scratch_spec(FUNCTIONAL, shape=(8,))
    for kind in ["Dense", "Dense", "Dense", "Add"]:
        spec = _add(spec, kind, 10, 20)
    for source, target in [("input", "dense"), ("dense", "dense_2"), ("dense", "dense_3"),
                           ("dense_2", "add"), ("dense_3", "add")]:
        spec = apply_event(spec, {"op": "connect", "source": source, "target": target})
    for name in ("dense", "dense_2", "dense_3"):
        spec = canvas_ops.set_config(spec, name, {"units": 8})
    spec = apply_event(spec, {"op": "connect", "source": "add", "target": "dense"})
    return apply_event(spec, {"op": "connect", "source": "dense_again", "target": OUTPUTS})


def test_functional_branch_merge_and_shared_layer_by_connections():
    spec = _functional()
    assert spec.layer("add").inputs == ("dense_2", "dense_3")
    again = spec.layer("dense_again")
    assert (again.shares, again.inputs) == ("dense", ("add",))
    assert spec.outputs == ("dense_again",)
    summary = summarize(spec)
    assert summary.ok, summary.problems
    assert summary.total == 3 * (8 * 8 + 8)               # the shared Dense counted once
    code = generate(spec, "functional")
    namespace: dict = {}
    exec(compile(code, "generated.py", "exec"), namespace)   # noqa: S102 - our own code
    model = namespace["build_model"]()
    assert model.count_params() == 216
    assert model.get_layer("dense") is model.get_layer("dense")   # one layer, applied twice
    assert len(model.get_layer("dense")._inbound_nodes) == 2
    graph = canvas_graph.graph(spec, {}, {}, {})
    roles = {(e["source"], e["target"]): e["role"] for e in graph["edges"]}
    assert roles[("dense", "dense_again")] == "shares"
    assert roles[("dense_2", "add")] == "data"
    assert next(n for n in graph["nodes"] if n["id"] == "add")["multi"] is True


def test_refused_connections_change_nothing_and_say_why():
    spec = _functional()
    with pytest.raises(SpecError) as loop:
        canvas_ops.connect(spec, "dense_again", "add")     # add feeds dense_again: a loop
    assert loop.value.key == "canvas.cycle"
    with pytest.raises(SpecError) as into:
        canvas_ops.connect(spec, "dense", "input")
    assert into.value.key == "canvas.into_input"
    with pytest.raises(SpecError) as unknown:
        apply_event(spec, {"op": "connect", "source": "nope", "target": "add"})
    assert unknown.value.key == "canvas.no_node"
    for bad in (None, [], {"op": "explode"}, {"op": "delete", "nodes": "dense"},
                {"op": "move", "positions": [1, 2]}):
        with pytest.raises(SpecError) as exc:
            apply_event(spec, bad)
        assert exc.value.key == "canvas.bad_event"
    with pytest.raises(SpecError):
        _add(spec, "NoSuchLayer")


def test_delete_nodes_and_edges():
    spec = _functional()
    # deleting the owner takes its re-use along, and every reference
    gone = apply_event(spec, {"op": "delete", "nodes": ["dense"], "edges": []})
    assert "dense" not in {e.name for e in gone.layers}
    assert "dense_again" not in {e.name for e in gone.layers}
    assert gone.layer("dense_2").inputs == () and gone.outputs == ()
    assert "dense" not in gone.layout
    # a data edge and an output edge
    cut = apply_event(spec, {"op": "delete", "nodes": [], "edges": [
        {"source": "dense_3", "target": "add", "role": "data"},
        {"source": "dense_again", "target": OUTPUTS, "role": "data"}]})
    assert cut.layer("add").inputs == ("dense_2",) and cut.outputs == ()
    # a shares edge: the re-use becomes a layer of its own with the owner's settings
    own = apply_event(spec, {"op": "delete", "nodes": [], "edges": [
        {"source": "dense", "target": "dense_again", "role": "shares"}]})
    assert own.layer("dense_again").shares is None
    assert dict(own.layer("dense_again").config) == {"units": 8}
    assert summarize(own).total == 4 * 72
    # the outputs node is not deletable; an input is
    assert apply_event(spec, {"op": "delete", "nodes": [OUTPUTS], "edges": []}) == spec
    no_input = apply_event(spec, {"op": "delete", "nodes": ["input"], "edges": []})
    assert no_input.inputs == () and no_input.layer("dense").inputs == ()


def test_move_stores_positions_in_the_layout_and_bad_values_are_ignored():
    spec = _functional()
    moved = apply_event(spec, {"op": "move", "positions": {
        "dense": [120.44, -30], "add": ["x", 1], "ghost": [1, 2], "dense_2": [1e9, 0]}})
    assert moved.layout["dense"] == (120.4, -30.0)
    assert moved.layout["add"] == spec.layout["add"]      # unchanged: bad value ignored
    assert "ghost" not in moved.layout and moved.layout["dense_2"] == spec.layout["dense_2"]
    node = next(n for n in canvas_graph.graph(moved, {}, {}, {})["nodes"] if n["id"] == "dense")
    assert (node["x"], node["y"]) == (120.4, -30.0)
    renamed = canvas_ops.rename(moved, "dense", "first")
    assert renamed.layout["first"] == (120.4, -30.0) and "dense" not in renamed.layout


def test_layout_round_trips_through_json_and_bad_layouts_do_not_crash():
    spec = apply_event(_functional(), {"op": "move", "positions": {"add": [5, 6]}})
    again = from_json(spec.to_json())
    assert again == spec and again.layout["add"] == (5.0, 6.0)
    data = get_preset("mlp").to_dict()
    assert "layout" not in data                        # no layout: the format is unchanged
    assert from_dict(data) == get_preset("mlp")
    for bad in ("left", 3, [1, 2], None, {"dense": "here"}, {"dense": [1]},
                {"dense": [True, 2]}, {"dense": [float("inf"), 0]}, {"": [1, 2]},
                {"dense": [1, 2, 3]}, {"x" * 300: [1, 2]}):
        data["layout"] = bad
        assert from_dict(json.loads(json.dumps(data, allow_nan=True))).layout == {}
    data["layout"] = {"dense": [1, 2], "flatten": "bad"}
    assert from_dict(data).layout == {"dense": (1.0, 2.0)}


def test_group_and_ungroup_through_events():
    spec = scratch_spec(FUNCTIONAL, shape=(8,))
    for kind in ["Dense", "Dense"]:
        spec = _add(spec, kind, 40, 50)
    for source, target in [("input", "dense"), ("dense", "dense_2"), ("dense_2", OUTPUTS)]:
        spec = canvas_ops.connect(spec, source, target)
    total = summarize(spec).total
    grouped = apply_event(spec, {"op": "group", "names": ["dense", "dense_2"]})
    block = grouped.layers[0]
    assert block.type == "Block" and [c.name for c in block.layers] == ["dense", "dense_2"]
    assert grouped.layout[block.name] == spec.layout["dense"]     # the first layer's place
    assert summarize(grouped).total == total
    back = apply_event(grouped, {"op": "ungroup", "name": block.name})
    assert [e.name for e in back.layers] == ["dense", "dense_2"]
    assert summarize(back).total == total


def test_a_new_input_and_default_positions():
    spec = _add(scratch_spec(FUNCTIONAL, shape=(8,)), canvas_ops.NEW_INPUT, 300, 0)
    assert [i.name for i in spec.inputs] == ["input", "input_2"]
    assert spec.inputs[1].shape == (8,)
    with pytest.raises(SpecError) as one:
        _add(scratch_spec(), canvas_ops.NEW_INPUT)
    assert one.value.key == "canvas.one_input"
    mlp = get_preset("mlp_functional")
    placed = canvas_graph.default_positions(mlp)
    ys = [placed[e.name][1] for e in mlp.layers]
    assert ys == sorted(ys) and len(set(ys)) == len(ys)   # a chain goes down layer by layer


def _overlaps(spec) -> list[tuple[str, str]]:
    """The pairs of nodes whose boxes (``NODE_W`` x ``NODE_H``) overlap on the canvas."""
    placed = canvas_place.positions(spec)
    names = sorted(placed)
    return [(a, b) for n, a in enumerate(names) for b in names[n + 1:]
            if abs(placed[a][0] - placed[b][0]) < canvas_place.NODE_W
            and abs(placed[a][1] - placed[b][1]) < canvas_place.NODE_H]


def test_dropped_inputs_layers_and_reuses_get_a_free_place_near_the_drop_point():
    spec = scratch_spec(FUNCTIONAL, shape=(8,))
    for kind in ["Dense", "Dense", "Dense", canvas_ops.NEW_INPUT, "Add"]:
        spec = _add(spec, kind, 10, 30)                  # all dropped on the same point
        assert _overlaps(spec) == []                     # the outputs node moved down too
    for source, target in [("input", "dense"), ("input_2", "dense_2"), ("dense", "add"),
                           ("dense_2", "add"), ("dense_3", "dense")]:   # the last: a re-use
        spec = canvas_ops.connect(spec, source, target)
    assert [e.name for e in spec.layers if e.shares] == ["dense_again"]
    assert _overlaps(spec) == []
    x, y = spec.layout["dense_again"]                   # beside what it re-uses, not far
    assert abs(x - spec.layout["dense"][0]) < 3 * canvas_ops.COLUMN
    assert abs(y - spec.layout["dense"][1]) < 3 * canvas_place.NODE_H
    free = scratch_spec(FUNCTIONAL, shape=(8,))
    far = _add(free, "Dense", 900, 900)                 # a free drop point is kept
    assert far.layout["dense"] == (900.0, 900.0)


def test_a_node_shows_its_size_and_activation():
    spec = get_preset("mlp")                  # dense: units 100, relu; logits: units 10
    titles = {n["id"]: n["title"] for n in canvas_graph.graph(spec, {}, {}, {})["nodes"]}
    assert titles["dense"] == "Dense 100 · relu"
    assert titles["logits"] == "Dense 10 · linear"      # the catalog's default activation
    assert titles["flatten"] == "Flatten"
    tied = get_preset("tied")
    drawn = {n["id"]: n["title"] for n in canvas_graph.graph(tied, {}, {}, {})["nodes"]}
    reuse = next(e for e in tied.layers if e.shares)
    assert drawn[reuse.name] == drawn[reuse.shares]     # a re-use shows its owner's


def test_a_layer_dragged_in_the_sequential_stack_goes_where_it_is_dropped():
    spec = _mlp_by_gestures()            # stack: input, flatten, dense, dense_2, softmax
    top = apply_event(spec, {"op": "reorder", "name": "softmax",
                             "y": canvas_ops.stack_y(1) - 20})
    assert [e.name for e in top.layers] == ["softmax", "flatten", "dense", "dense_2"]
    middle = apply_event(spec, {"op": "reorder", "name": "flatten",
                                "y": canvas_ops.stack_y(2) + 20})
    assert [e.name for e in middle.layers] == ["dense", "flatten", "dense_2", "softmax"]
    assert apply_event(spec, {"op": "reorder", "name": "softmax", "y": 10_000}) == spec
