"""The path browser's engine (scenario B4): levels of nested blocks down to one bias."""

from __future__ import annotations

import numpy as np
import pytest

from tfcore.errors import WeightsError
from tfcore.model import build_model, get_preset
from tfcore.weights import (
    first_leaf,
    next_steps,
    path_parts,
    variable_at,
    variable_table,
    variable_values,
)


def test_b4_reach_one_bias_four_levels_deep() -> None:
    model = build_model(get_preset("nested_blocks"))
    table = variable_table(model)
    assert table.total_params == 85
    top = next_steps(table)
    assert [(s.name, s.kind) for s in top] == [("block2", "block"), ("output", "layer")]
    inner = next_steps(table, ["block2"])
    assert [s.name for s in inner] == ["block_0", "block_1", "block_2", "block_3"]
    assert {s.kind for s in inner} == {"block"}
    assert [(s.name, s.kind) for s in next_steps(table, ["block2", "block_1"])] == [
        ("dense_1", "layer")]
    leaves = next_steps(table, ["block2", "block_1", "dense_1"])
    assert [(s.name, s.kind, s.path) for s in leaves] == [
        ("kernel", "variable", "block2/block_1/dense_1/kernel"),
        ("bias", "variable", "block2/block_1/dense_1/bias")]
    info = variable_at(table, ("block2", "block_1", "dense_1", "bias"))
    assert info.path == "block2/block_1/dense_1/bias"
    assert info.shape == (4,) and info.dtype == "float32" and info.params == 4
    assert path_parts(info) == ("block2", "block_1", "dense_1", "bias")
    values = variable_values(model, info.path)
    np.testing.assert_array_equal(values, np.zeros(4, dtype="float32"))  # zero-initialized
    assert first_leaf(table, ["block2", "block_3"]) == ("block2", "block_3", "dense_3",
                                                        "kernel")


def test_flat_model_and_bad_paths() -> None:
    table = variable_table(build_model(get_preset("b1_mlp")))
    assert [(s.name, s.kind) for s in next_steps(table)] == [("hidden", "layer"),
                                                            ("output", "layer")]
    with pytest.raises(WeightsError) as caught:
        variable_at(table, ("hidden",))          # a layer, not a variable
    assert caught.value.key == "errors.weights_no_path"
    with pytest.raises(WeightsError):
        next_steps(table, ["nope"])
