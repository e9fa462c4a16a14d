"""Every preset builds with the tutorials' parameter counts; the custom layers behave."""

from __future__ import annotations

import numpy as np
import pytest

from tfcore.model.build import build_model
from tfcore.model.presets import PRESETS, get_preset, preset_names, preset_title
from tfcore.model.spec import from_json
from tfcore.model.summary import deferred_demo, summarize
from tfcore.model.validate import validate

AGREED = ["mlp", "cnn", "mobilenet_v2", "mlp_functional", "linear_custom", "cats_dogs_cnn",
          "house_linear", "dense1_zero", "b1_mlp", "fixed_hidden", "nested_mlp",
          "nested_blocks", "tied", "deferred", "mean_center", "my_dense", "playground"]
COUNTS = {"mlp": 79_510, "cnn": 3_274_634, "mobilenet_v2": 2_264_389,
          "mlp_functional": 79_510, "cats_dogs_cnn": 7_647_330, "nested_blocks": 85,
          "tied": 25, "house_linear": 2, "dense1_zero": 4, "linear_custom": 4,
          "b1_mlp": 20 * 256 + 256 + 256 * 10 + 10, "my_dense": 64 * 8 + 8 + 8 + 1,
          "mean_center": 8 * 128 + 128, "playground": 2 * 8 + 8 + 8 * 8 + 8 + 8 * 2 + 2, "fixed_hidden": 20 * 20 + 20, "nested_mlp": 4_712}


def test_the_agreed_preset_names_exist_with_titles_in_both_languages() -> None:
    assert preset_names() == AGREED
    for name in AGREED:
        assert preset_title(name)["en"] and preset_title(name)["zh"] != preset_title(name)["en"]
        assert PRESETS[name].scenario


@pytest.mark.parametrize("name", sorted(COUNTS))
def test_preset_parameter_counts(name: str) -> None:
    spec = get_preset(name)
    assert from_json(spec.to_json()) == spec
    model = build_model(spec)
    assert model.count_params() == COUNTS[name]
    summary = summarize(spec)
    assert summary.ok and summary.total == COUNTS[name]
    assert summary.trainable + summary.non_trainable == COUNTS[name]
    static = validate(spec)
    if name != "mobilenet_v2":  # its count is only known once Keras builds it
        assert static.known_params == COUNTS[name]


def test_tied_has_four_variables_and_the_shared_layer_listed_twice() -> None:
    model = build_model(get_preset("tied"))
    assert len(model.weights) == 4 and model.count_params() == 25
    assert len(model.layers) == 4 and model.layers[1] is model.layers[2]
    rows = summarize(get_preset("tied")).rows
    assert [r.params for r in rows] == [0, 20, 0, 5] and rows[2].shares == "shared"


def test_deferred_has_no_weights_until_called() -> None:
    spec = get_preset("deferred")
    summary = summarize(spec)
    assert summary.deferred and not summary.built and summary.total == 0
    model = build_model(spec)
    assert model.weights == []
    demo = deferred_demo(spec, (20,))
    assert demo.before == 0
    assert [shape for _, shape in demo.after] == [(20, 256), (256,), (256, 10), (10,)]


def test_nested_blocks_reach_one_bias_deep_inside() -> None:
    model = build_model(get_preset("nested_blocks"))
    inner = model.layers[0].layers[2]
    assert inner.name == "block_2" and inner.layers[1].bias.shape == (4,)


def test_custom_layers_behave_as_in_the_tutorials() -> None:
    x = np.random.default_rng(0).uniform(size=(4, 8)).astype("float32")
    centred = build_model(get_preset("mean_center"))(x)
    assert abs(float(np.mean(centred))) < 1e-5
    linear = build_model(get_preset("linear_custom"))
    assert np.all(linear(np.ones((2, 3), "float32")).numpy() == 0)  # zero init
    out = build_model(get_preset("my_dense"))(np.random.rand(2, 64).astype("float32"))
    assert np.all(out.numpy() >= 0)  # relu
    fixed = build_model(get_preset("fixed_hidden"))
    value = fixed(np.random.rand(2, 20).astype("float32")).numpy()
    assert value.shape == () and abs(float(value)) <= 1.0          # one scalar, as B2 prints
    assert not fixed.non_trainable_weights  # the constant random weight is not a weight
    nested = build_model(get_preset("nested_mlp"))(np.random.rand(2, 20).astype("float32"))
    assert nested.shape == ()


def test_unknown_preset_is_a_located_error() -> None:
    from tfcore.errors import SpecError

    with pytest.raises(SpecError) as info:
        get_preset("nope")
    assert "nope" in info.value.message and "mlp" in info.value.message


def test_sequential_layers_have_one_inbound_node_so_layer_output_works() -> None:
    model = build_model(get_preset("cnn"))
    assert [len(layer._inbound_nodes) for layer in model.layers] == [1] * 8
    assert tuple(model.layers[0].output.shape) == (None, 28, 28, 32)


def test_keras_rejection_in_a_sequential_build_names_the_layer() -> None:
    from tfcore.errors import SpecError
    from tfcore.model.spec import SEQUENTIAL, InputSpec, LayerSpec, ModelSpec

    spec = ModelSpec("small", SEQUENTIAL, (InputSpec("img", (16, 16, 3)),),
                     (LayerSpec("backbone", "VGG16", {"classes": 3}),))
    with pytest.raises(SpecError) as info:
        build_model(spec)
    assert info.value.params["layer"] == "backbone"
