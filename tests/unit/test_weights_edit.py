"""Direct edits (B6), slices, and refusals that change nothing."""

from __future__ import annotations

import re

import numpy as np
import pytest

from tfcore.errors import WeightsError
from tfcore.messages import render
from tfcore.model.build import build_model
from tfcore.model.presets import get_preset
from tfcore.weights.edit import add_constant, fill_slice, parse_slice, set_element
from tfcore.weights.table import variable_values


@pytest.fixture()
def mlp():
    return build_model(get_preset("mlp"))


def test_b6_add_one_then_set_one_element_to_42(mlp) -> None:
    original = variable_values(mlp, "logits/kernel")
    report = add_constant(mlp, "logits/kernel", 1)
    assert report.changed == original.size
    report = set_element(mlp, "logits/kernel", "3, 7", 42)
    assert report.changed == 1 and report.after.max == 42.0
    after = variable_values(mlp, "logits/kernel")
    assert after[3, 7] == 42.0
    mask = np.ones(after.shape, bool)
    mask[3, 7] = False
    np.testing.assert_allclose(after[mask], original[mask] + 1, rtol=1e-6)


def test_negative_index_counts_from_the_end(mlp) -> None:
    set_element(mlp, "logits/bias", "-1", 5)
    assert variable_values(mlp, "logits/bias")[9] == 5.0


def test_fill_slice_numpy_style(mlp) -> None:
    report = fill_slice(mlp, "logits/kernel", "0:2, 1", 9)
    kernel = variable_values(mlp, "logits/kernel")
    assert report.changed == 2 and np.all(kernel[0:2, 1] == 9)
    fill_slice(mlp, "logits/kernel", "..., -1", -3)
    assert np.all(variable_values(mlp, "logits/kernel")[:, 9] == -3)
    fill_slice(mlp, "logits/bias", "::2", 1)
    assert variable_values(mlp, "logits/bias").tolist() == [1, 0] * 5


@pytest.mark.parametrize("index, why", [
    ("100, 0", "axis 0 has size 100"), ("0, -11", "axis 1 has size 10"), ("1", "needs 2 integer"), ("1, x", "not an integer"),
    ("1.5, 2", "not an integer"), ("", "needs 2 integer")])
def test_bad_index_changes_nothing(mlp, index: str, why: str) -> None:
    before = variable_values(mlp, "logits/kernel")
    with pytest.raises(WeightsError, match=why) as info:
        set_element(mlp, "logits/kernel", index, 1)
    assert info.value.key == "errors.weights_bad_index"
    assert "(100, 10)" in info.value.message
    # the reason is a text of its own: Chinese on the Chinese page, no English phrase inside
    chinese = render(info.value.key, info.value.params, "zh")
    assert chinese.startswith("索引") and not re.search(r"\b(axis|needs|integer|got)\b",
                                                          chinese), chinese
    np.testing.assert_array_equal(before, variable_values(mlp, "logits/kernel"))


@pytest.mark.parametrize("text", ["20:30", "0, 1, 2", "a:b", "1:2:0", "0,,1", "..., ...",
                                  "5, 11"])
def test_bad_slice_is_refused(text: str) -> None:
    with pytest.raises(WeightsError):
        parse_slice(text, (10, 10))


@pytest.mark.parametrize("text, axis, size, index", [
    ("5, 11", 1, 10, 11), ("-11, :", 0, 10, -11), ("..., 12", 1, 10, 12),
    ("3, ..., 40", 2, 4, 40)])
def test_a_slice_integer_outside_its_axis_is_named(text: str, axis: int, size: int,
                                                    index: int) -> None:
    """The refusal says which axis, its size and the integer (after '...' the parts count
    from the last axis), in either language."""
    shape = (10, 10) if text.count(",") < 2 else (10, 3, 4)
    with pytest.raises(WeightsError) as info:
        parse_slice(text, shape)
    assert f"axis {axis} has size {size}, index {index}" in info.value.message
    assert f"第 {axis} 轴的大小为 {size}，索引为 {index}" in render(
        info.value.key, info.value.params, "zh")


def test_bad_value_and_unknown_variable_change_nothing(mlp) -> None:
    before = variable_values(mlp, "dense/bias")
    with pytest.raises(WeightsError, match="finite number"):
        add_constant(mlp, "dense/bias", "nan")
    with pytest.raises(WeightsError, match="finite number"):
        fill_slice(mlp, "dense/bias", ":", "abc")
    with pytest.raises(WeightsError, match="no variable"):
        set_element(mlp, "dense/gamma", "0", 1)
    np.testing.assert_array_equal(before, variable_values(mlp, "dense/bias"))
