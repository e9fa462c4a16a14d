"""Run a model on a random input (scenario B1): shapes, values, seeds, located refusals."""

from __future__ import annotations

import numpy as np
import pytest

from tfcore.errors import SpecError
from tfcore.model import build_model, default_shapes, get_preset, try_it


def test_b1_on_a_2_by_20_input_gives_a_2_by_10_output_equal_to_keras() -> None:
    spec = get_preset("b1_mlp")
    assert default_shapes(spec) == [(2, 20)]
    result = try_it(spec, ["2, 20"], seed=7)
    assert result.input_shapes == ((2, 20),) and result.output_shapes == ((2, 10),)
    x = result.inputs[0]
    assert x.dtype == np.float32 and 0.0 <= x.min() and x.max() < 1.0
    again = try_it(spec, [(2, 20)], seed=7)
    np.testing.assert_array_equal(again.inputs[0], x)   # same seed, same input
    assert not np.array_equal(try_it(spec, ["2, 20"], seed=8).inputs[0], x)
    # the output is what the model computes: rebuild it with the same initial weights
    model = build_model(spec)
    model.set_weights([np.zeros_like(w) for w in model.get_weights()])
    assert np.allclose(np.asarray(model(x)), 0.0)
    rounded = result.rounded(2)[0]
    assert rounded.shape == (2, 10) and np.allclose(rounded, np.round(result.outputs[0], 2))


def test_batch_size_and_a_deferred_model() -> None:
    assert try_it(get_preset("b1_mlp"), ["5, 20"]).output_shapes == ((5, 10),)
    deferred = get_preset("deferred")
    assert default_shapes(deferred) == [(2, 20)]
    assert try_it(deferred, None, seed=0).output_shapes == ((2, 10),)


@pytest.mark.parametrize("text, key, where", [
    ("2, x", "tryit.bad_shape", "x"),
    ("20", "tryit.bad_shape", "x"),
    ("2, -3", "tryit.bad_shape", "x"),
    ("2, 21", "tryit.shape_mismatch", "x"),
    ("2, 20, 1", "tryit.shape_mismatch", "x"),
    ("4000, 2000", "tryit.shape_mismatch", "x"),
])
def test_bad_shapes_are_located(text: str, key: str, where: str) -> None:
    with pytest.raises(SpecError) as caught:
        try_it(get_preset("b1_mlp"), [text])
    assert caught.value.key == key and caught.value.params["where"] == where


def test_too_many_numbers_and_wrong_count_and_a_refusing_model() -> None:
    with pytest.raises(SpecError) as caught:
        try_it(get_preset("deferred"), ["5000, 5000"])
    assert caught.value.key == "tryit.too_large"
    with pytest.raises(SpecError) as caught:
        try_it(get_preset("b1_mlp"), ["2, 20", "2, 20"])
    assert caught.value.key == "tryit.input_count" and caught.value.params["count"] == 2
    with pytest.raises(SpecError) as caught:   # a deferred model told 7 features, fine;
        try_it(get_preset("mlp"), ["2, 28, 28"])  # an image model given no channel axis
    assert caught.value.key == "tryit.shape_mismatch"


def test_a_model_that_refuses_the_input_says_why() -> None:
    from tfcore.model import LayerSpec, ModelSpec

    spec = ModelSpec("reshape7", "sequential", (), (
        LayerSpec("reshape", "Reshape", {"target_shape": [7]}),))
    assert try_it(spec, ["2, 7"]).output_shapes == ((2, 7),)
    with pytest.raises(SpecError) as caught:
        try_it(spec, ["2, 20"])
    assert caught.value.key == "tryit.call_failed" and caught.value.params["message"]
