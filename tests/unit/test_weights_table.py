"""Variable table, tied variables (B7), nested blocks (B4), deferred init (B8), stats."""

from __future__ import annotations

import numpy as np
import pytest

from tests.unit.fixtures_weights import scenario_model, scenario_spec
from tfcore.errors import WeightsError
from tfcore.model.build import build_model
from tfcore.model.presets import get_preset
from tfcore.weights.stats import histogram, tensor_stats
from tfcore.weights.table import (
    build_for_input,
    find_variable,
    is_deferred,
    layer_variables,
    parse_shape,
    spec_with_built_input,
    variable_table,
)


def test_mlp_table_lists_every_variable_with_shape_params_and_device() -> None:
    table = variable_table(build_model(get_preset("mlp")))
    assert table.total_params == 79_510
    assert [(v.layer, v.name, v.shape) for v in table.variables] == [
        ("dense", "kernel", (784, 100)), ("dense", "bias", (100,)),
        ("logits", "kernel", (100, 10)), ("logits", "bias", (10,))]
    kernel = table.variable("dense/kernel")
    assert kernel.params == 78_400 and kernel.dtype == "float32" and kernel.trainable
    assert kernel.device.startswith(("CPU", "GPU"))
    assert not kernel.shared
    assert table.variable("dense/bias").stats.zero_share == 1.0
    with pytest.raises(WeightsError, match="no variable 'nope'"):
        table.variable("nope")


def test_b7_tied_layer_listed_twice_weights_once() -> None:
    model = scenario_model("tied")
    table = variable_table(model)
    assert len(table.variables) == 4
    assert table.total_params == 25
    names = [e.name for e in table.layers]
    assert len(names) == 4 and names[1] == names[2]
    assert model.layers[1] is model.layers[2]
    assert [e.repeat for e in table.layers] == [1, 1, 2, 1]
    assert table.shared_layers == (names[1],)
    shared = [v for v in table.variables if v.shared]
    assert len(shared) == 2 and all(v.layers == (names[1], names[1]) for v in shared)
    assert sum(v.params for v in shared) == 20
    assert table.to_dict()["shared_layers"] == [names[1]]


def test_b4_nested_blocks_85_params_and_a_deep_bias() -> None:
    model = scenario_model("nested_blocks")
    table = variable_table(model)
    assert table.total_params == 85
    assert len(table.variables) == 10
    deep = [v for v in table.variables if v.name == "bias" and v.layer.count("/") >= 1]
    assert len(deep) == 4
    bias = find_variable(model, deep[2].path)
    assert tuple(bias.shape) == (4,)
    assert len(layer_variables(model, deep[2].layer.split("/")[-1])) == 2


def test_b8_deferred_model_has_no_weights_until_built() -> None:
    model = scenario_model("deferred")
    assert is_deferred(model)
    assert variable_table(model).variables == ()
    spec = scenario_spec("deferred")
    assert spec_with_built_input(spec, model) == spec  # nothing to fill in yet
    table = build_for_input(model, parse_shape("2, 20"))
    assert [v.shape for v in table.variables] == [(20, 256), (256,), (256, 10), (10,)]
    assert not is_deferred(model)
    trainable = spec_with_built_input(spec, model)
    assert trainable.inputs[0].shape == (20,) and trainable.layers == spec.layers
    assert build_model(trainable).count_params() == 20 * 256 + 256 + 256 * 10 + 10


@pytest.mark.parametrize("text", ["", "a, 2", "0, 3", "-1"])
def test_bad_input_shape_is_refused(text: str) -> None:
    with pytest.raises(WeightsError):
        parse_shape(text)


def test_build_for_wrong_rank_is_refused_and_creates_nothing() -> None:
    model = scenario_model("deferred")
    with pytest.raises(WeightsError, match="input shape"):
        build_for_input(model, (20,))
    assert is_deferred(model)


def test_stats_count_nan_inf_and_zeros() -> None:
    values = np.array([0.0, 1.0, 3.0, np.nan, np.inf, -np.inf, 0.0, 2.0])
    stats = tensor_stats(values)
    assert (stats.nan_count, stats.inf_count, stats.size) == (1, 2, 8)
    assert stats.zero_share == pytest.approx(2 / 8)
    assert stats.mean == pytest.approx(1.2) and stats.max == 3.0 and stats.min == 0.0
    hist = histogram(values, bins=3)
    assert sum(hist.counts) == 5 and len(hist.edges) == 4
    flat = histogram(np.ones(7))
    assert flat.counts == (7,) and flat.edges[0] < 1 < flat.edges[1]
