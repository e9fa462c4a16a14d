"""User-written code (issue 15 item 3): saving checks without running, loading only on a
trusted server, custom layers as catalog types, losses and metrics in TrainConfig."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tfcore.custom import (
    TEMPLATES,
    TRUSTED_ENV,
    CustomCodeError,
    current,
    inspect_source,
    list_codes,
    load_sources,
    load_workspace,
    save_code,
    try_class,
)
from tfcore.model import build_model, from_dict, get_type, validate
from tfcore.training.config import TrainConfig


@pytest.fixture()
def trusted(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(TRUSTED_ENV, "1")
    yield
    load_sources({})                      # leave no custom types behind for other tests


@pytest.fixture()
def templates(tmp_path: Path, trusted) -> Path:
    for name, template in TEMPLATES.items():
        save_code(tmp_path, name, template.source)
    load_workspace(tmp_path)
    return tmp_path


def _seq(*layers: dict, shape=(5,)) -> dict:
    return {"format": 1, "name": "m", "kind": "sequential",
            "inputs": [{"name": "x", "shape": list(shape), "dtype": "float32"}],
            "layers": list(layers)}


def test_saving_finds_classes_and_their_kinds_without_running(tmp_path: Path) -> None:
    source = TEMPLATES["mse_loss"].source + "\n\n" + TEMPLATES["sparse_accuracy"].source
    found = save_code(tmp_path, "m8", source + "\nraise SystemExit('never run')\n")
    assert [(c.name, c.kind) for c in found] == [("MeanSquaredError", "loss"),
                                                 ("SparseCategoricalAccuracy", "metric")]
    assert list_codes(tmp_path) == ["m8"]


@pytest.mark.parametrize("source, line", [
    ("import keras\n\nclass A(keras.layers.Layer):\n    def call(self, x:\n", 4),
    ("x = (\n", 1),
])
def test_syntax_error_names_the_line_and_writes_nothing(tmp_path: Path, source, line) -> None:
    with pytest.raises(CustomCodeError) as info:
        save_code(tmp_path, "broken", source)
    assert info.value.key == "custom.err.syntax" and info.value.params["line"] == line
    assert f"broken.py, line {line}" in info.value.message
    assert not (tmp_path / "custom" / "broken.py").exists()


@pytest.mark.parametrize("name", ["../x", "Linear", "a b", "", "1abc", "x" * 49])
def test_bad_names_are_refused(tmp_path: Path, name: str) -> None:
    with pytest.raises(CustomCodeError) as info:
        save_code(tmp_path, name, TEMPLATES["linear"].source)
    assert info.value.key == "custom.err.name"
    assert not (tmp_path / "custom").exists() or not any((tmp_path / "custom").iterdir())


def test_a_file_without_a_class_is_refused() -> None:
    with pytest.raises(CustomCodeError) as info:
        inspect_source("def f():\n    return 1\n", "plain")
    assert info.value.key == "custom.err.no_class"


def test_loading_needs_trusted_code(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv(TRUSTED_ENV, raising=False)
    with pytest.raises(CustomCodeError) as info:
        load_sources({"linear": TEMPLATES["linear"].source})
    assert info.value.key == "custom.err.untrusted" and TRUSTED_ENV in info.value.message


def test_a_runtime_error_is_located_and_other_files_still_load(trusted) -> None:
    bad = "import keras\n\nclass B(keras.layers.Layer):\n    pass\n\nundefined_name + 1\n"
    loaded = load_sources({"bad": bad, "linear": TEMPLATES["linear"].source})
    assert loaded.problems["bad"].params["line"] == 6
    assert "NameError" in loaded.problems["bad"].message
    assert set(loaded.classes) == {"Linear"}


def test_m7_linear_is_a_catalog_type_with_zero_init(templates: Path) -> None:
    kind = get_type("custom.Linear")
    assert kind.category == "custom" and [p.name for p in kind.params] == ["units"]
    spec = from_dict(_seq({"name": "lin", "type": "custom.Linear", "config": {"units": 3}}))
    assert validate(spec).ok
    model = build_model(spec)
    assert model.count_params() == 5 * 3 + 3
    assert all(np.all(w == 0) for w in model.get_weights())
    assert np.all(model(np.ones((2, 5), "float32")).numpy() == 0)


def test_b9_layers_and_b2_block_from_templates(templates: Path) -> None:
    centred = try_class("MeanCenter", (4, 8))
    assert abs(float(np.mean(centred.output))) <= 1e-6
    dense = try_class("MyDense", (2, 5))
    assert dense.output.shape == (2, 8) and np.all(dense.output >= 0)
    assert [w[1] for w in dense.weights] == [(5, 8), (8,)]
    fixed = try_class("FixedHiddenMLP", (2, 20))
    assert fixed.output.shape == () and 0 < abs(float(fixed.output)) <= 1.0
    assert (fixed.trainable_params, fixed.non_trainable_params) == (420, 0)
    assert fixed.constants == [("rand_weight", (20, 20))]
    # the constant is the fixed 20x20 of the seed, not sized from the input: (2, 3) is refused
    with pytest.raises(CustomCodeError) as info:
        try_class("FixedHiddenMLP", (2, 3))
    assert info.value.key == "custom.err.trial" and "FixedHiddenMLP" in info.value.message


def test_m8_loss_and_metric_numbers(templates: Path) -> None:
    assert np.isclose(float(try_class("MeanSquaredError").output), 0.25)
    metric = try_class("SparseCategoricalAccuracy")
    assert float(metric.output) == 0.75 and metric.state == {"total": 4, "count": 3}


def test_train_config_accepts_custom_names_only_when_loaded(templates: Path) -> None:
    config = TrainConfig.from_dict({"loss": "MeanSquaredError",
                                    "metrics": ["SparseCategoricalAccuracy", "mae"]})
    assert config.loss == "MeanSquaredError"
    with pytest.raises(Exception) as info:
        TrainConfig.from_dict({"loss": "MeanSquaredError", "loop": "custom"})
    assert info.value.params["name"] == "loop"
    load_sources({})
    with pytest.raises(Exception) as info:
        TrainConfig.from_dict({"metrics": ["SparseCategoricalAccuracy"]})
    assert info.value.params["name"] == "metrics"


def test_keras_names_the_custom_metric_in_logs(templates: Path) -> None:
    from tfcore.training.config import make_loss, make_metrics

    metric, = make_metrics(("SparseCategoricalAccuracy",))
    assert metric.name == "SparseCategoricalAccuracy"
    loss = make_loss("MeanSquaredError")
    assert np.isclose(float(loss(np.array([[1.0], [2.0]]), np.array([[1.5], [2.5]]))), 0.25)


def test_current_is_empty_after_unloading(trusted) -> None:
    load_sources({})
    assert not current().classes and get_type("custom.Linear") is None


def test_a_run_copies_its_code_and_refuses_it_untrusted(tmp_path: Path, monkeypatch) -> None:
    from tfcore.custom import prepare_run

    request = {"custom_code": {"linear": TEMPLATES["linear"].source}}
    monkeypatch.delenv(TRUSTED_ENV, raising=False)
    with pytest.raises(CustomCodeError) as info:
        prepare_run(tmp_path, request)
    assert info.value.key == "custom.err.untrusted"
    assert not (tmp_path / "custom").exists()              # nothing copied, nothing run
    monkeypatch.setenv(TRUSTED_ENV, "1")
    try:
        loaded = prepare_run(tmp_path, request)
        assert (tmp_path / "custom" / "linear.py").read_text() == TEMPLATES["linear"].source
        assert set(loaded.classes) == {"Linear"} and get_type("custom.Linear") is not None
        assert prepare_run(tmp_path, {}) is None            # a run without code
        with pytest.raises(CustomCodeError):
            prepare_run(tmp_path, {"custom_code": {"../x": "pass"}})
    finally:
        load_sources({})
