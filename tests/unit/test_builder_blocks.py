"""Nested blocks by spec edits (scenario B3): group, ungroup, path-based edits inside a
block, their located refusals, and B3's parameter count against plain Keras."""

from __future__ import annotations

import numpy as np
import pytest

from tfcore.errors import SpecError
from tfcore.model import (
    FUNCTIONAL,
    add_layer_at,
    block_children,
    build_model,
    duplicate_layer_at,
    get_preset,
    group_into_block,
    move_layer_at,
    path_of,
    remove_layer_at,
    scratch_spec,
    set_layer_at,
    spec_ops,
    summarize,
    ungroup,
)


def _b3_by_edits():
    """B3 as the page builds it by click: five layers added, then grouped twice."""
    spec = scratch_spec(shape=(20,))
    for units in (64, 32, 16, 20):
        spec = spec_ops.add_layer(spec, "Dense")
        spec = spec_ops.set_layer(spec, len(spec.layers) - 1,
                                  config={"units": units, "activation": "relu"})
    spec = spec_ops.add_layer(spec, "FixedHiddenMLP")
    spec = group_into_block(spec, ["dense", "dense_2"], "net")
    return group_into_block(spec, ["dense_3", "net"], "nest_mlp")


def _seed_fixed_hidden_mlp(keras):
    """The B2 block as the seed writes it: a constant (never a variable) U(0,1) weight."""
    class FixedHiddenMLP(keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.flatten = keras.layers.Flatten()
            self.rand_weight = keras.ops.convert_to_tensor(
                np.random.default_rng(0).random((20, 20), dtype="float32"))
            self.dense = keras.layers.Dense(20, activation="relu")

        def call(self, inputs):
            x = self.flatten(inputs)
            x = keras.ops.relu(keras.ops.matmul(x, self.rand_weight) + 1)
            return self.dense(x)

    return FixedHiddenMLP()


def test_b3_by_group_edits_matches_plain_keras() -> None:
    import keras

    from tfcore.model.layers import FixedHiddenMLP

    spec = _b3_by_edits()
    assert [e.name for e in spec.layers] == ["nest_mlp", "dense_4", "fixed_hidden_mlp"]
    nest = spec.layers[0]
    assert nest.type == "Block" and [c.name for c in nest.layers] == ["net", "dense_3"]
    assert [c.name for c in nest.layers[0].layers] == ["dense", "dense_2"]
    summary = summarize(spec)
    assert summary.ok, summary.problems

    def plain(last):
        net = keras.Sequential([keras.layers.Dense(64, activation="relu"),
                                keras.layers.Dense(32, activation="relu")])
        block = keras.Sequential([net, keras.layers.Dense(16, activation="relu")])
        model = keras.Sequential([keras.Input((20,)), block,
                                  keras.layers.Dense(20, activation="relu"), last])
        return model

    # the whole model, with the project's B2 layer, counts exactly as plain Keras and the
    # seed do: 64*20+64 + 32*64+32 + 16*32+16, 20*16+20, then Dense(20) inside the B2
    # block (its constant is not a parameter)
    plain_model = plain(FixedHiddenMLP(units=20))
    seed_model = plain(_seed_fixed_hidden_mlp(keras))
    assert summary.total == summary.trainable == plain_model.count_params() == 4712
    assert seed_model.count_params() == 3952 + 340 + 420 == 4712 and not summary.non_trainable
    built = build_model(spec)
    assert sum(int(np.prod(v.shape)) for v in built.trainable_weights) == 4712
    assert summarize(get_preset("nested_mlp")).total == summary.total


def test_ungroup_restores_the_flat_model() -> None:
    spec = _b3_by_edits()
    flat = ungroup(ungroup(spec, "nest_mlp"), "net")
    assert [e.name for e in flat.layers] == ["dense", "dense_2", "dense_3", "dense_4",
                                             "fixed_hidden_mlp"]
    assert summarize(flat).total == summarize(spec).total


def test_paths_and_edits_inside_a_nested_block() -> None:
    spec = _b3_by_edits()
    assert path_of(spec, "dense_2") == ("nest_mlp", "net")
    assert path_of(spec, "dense_4") == ()
    inner = ("nest_mlp", "net")
    spec = add_layer_at(spec, inner, "Dense")
    assert [c.name for c in block_children(spec, inner)] == ["dense", "dense_2", "dense_5"]
    spec = set_layer_at(spec, inner, 2, config={"units": 8})
    spec = move_layer_at(spec, inner, 2, -1)
    assert [c.name for c in block_children(spec, inner)] == ["dense", "dense_5", "dense_2"]
    assert move_layer_at(spec, inner, 0, -1) is spec  # out of range: unchanged
    # dense (64) -> dense_5 (8) -> dense_2 (32): 20*64+64 + 64*8+8 + 8*32+32
    assert summarize(spec).ok
    spec = duplicate_layer_at(spec, ("nest_mlp",), 0)   # a copy of the whole inner block
    copy = block_children(spec, ("nest_mlp",))[1]
    assert copy.type == "Block" and copy.name == "net_2"
    assert len({e.name for e in spec.all_layers()}) == len(spec.all_layers())
    spec = remove_layer_at(spec, ("nest_mlp",), 1)
    spec = remove_layer_at(spec, inner, 1)
    assert [c.name for c in block_children(spec, inner)] == ["dense", "dense_2"]
    assert summarize(spec).total == summarize(_b3_by_edits()).total


@pytest.mark.parametrize("names, key, where", [
    ([], "spec.group_empty", "model"),
    (["dense", "dense_3"], "spec.group_gap", "lonely"),
    (["dense", "dense_2"], "spec.group_levels", "dense, dense_2"),
    (["nope"], "spec.no_layer", None),
])
def test_group_refusals_are_located_and_change_nothing(names, key, where) -> None:
    flat = ungroup(ungroup(_b3_by_edits(), "nest_mlp"), "net")
    spec = group_into_block(flat, ["dense_2"], "lonely")   # dense, lonely[dense_2], dense_3
    before = spec.to_json()
    with pytest.raises(SpecError) as caught:
        group_into_block(spec, names, "grouped")
    assert caught.value.key == key
    if where is not None:
        assert caught.value.params["where"] == where
    assert spec.to_json() == before


def test_block_name_taken_and_ungroup_of_a_plain_layer_are_refused() -> None:
    spec = _b3_by_edits()
    with pytest.raises(SpecError) as caught:
        group_into_block(spec, ["dense_4"], "dense")
    assert caught.value.key == "spec.name_taken" and caught.value.params["name"] == "dense"
    with pytest.raises(SpecError) as caught:
        ungroup(spec, "dense_4")
    assert caught.value.key == "spec.not_block"
    with pytest.raises(SpecError) as caught:
        block_children(spec, ("nest_mlp", "dense_3"))
    assert caught.value.key == "spec.no_block"
    assert group_into_block(spec, ["dense_4"]).layers[1].name == "block"


def test_functional_chain_groups_and_ungroups_back() -> None:
    functional = spec_ops.convert_kind(get_preset("mlp"), FUNCTIONAL)
    grouped = group_into_block(functional, ["logits", "dense"], "head")
    head = grouped.layer("head")
    assert head.inputs == ("flatten",) and all(not c.inputs for c in head.layers)
    assert grouped.layer("softmax").inputs == ("head",)
    assert summarize(grouped).total == 79_510
    assert ungroup(grouped, "head") == functional


def test_functional_branch_cannot_be_grouped() -> None:
    functional = spec_ops.convert_kind(get_preset("mlp"), FUNCTIONAL)
    branched = spec_ops.set_layer(functional, 3, inputs=("logits", "dense"))
    with pytest.raises(SpecError) as caught:
        group_into_block(branched, ["dense", "logits"])
    assert caught.value.key == "spec.group_branch" and caught.value.params["layer"] == "softmax"


def test_new_layer_names_keep_acronyms_whole() -> None:
    spec = spec_ops.add_layer(scratch_spec(shape=(20,)), "FixedHiddenMLP")
    spec = spec_ops.add_layer(spec, "MaxPooling2D")
    assert [e.name for e in spec.layers] == ["fixed_hidden_mlp", "max_pooling2d"]


def test_code_of_an_empty_model_in_every_style() -> None:
    """Issue 14: the Code tab of an empty model raised IndexError; now its code is the
    identity model (Functional and subclass styles run and return their input)."""
    from tfcore.model import STYLES, generate

    spec = scratch_spec(shape=(20,))
    x = np.arange(40, dtype="float32").reshape(2, 20)
    for style in STYLES:
        code = generate(spec, style)
        assert "def build_model" in code
        if style in ("functional", "subclass"):
            namespace: dict = {"__name__": "generated"}
            exec(compile(code, f"<{style}>", "exec"), namespace)
            np.testing.assert_array_equal(np.asarray(namespace["build_model"]()(x)), x)
