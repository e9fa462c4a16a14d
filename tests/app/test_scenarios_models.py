"""Scenarios M3-M6, M9 and B5-B6 of SCENARIOS.md, driven on their pages with the seed's
numbers (M1, M2, B7, B8 are driven in test_foundations_pages.py, test_weights_page.py and
test_builder_page.py; docs/scenarios.md lists every scenario with its test).

The training scenarios start real worker runs from the Train page (a few seconds each on
the offline 28x28 digits)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from tests.app.apptest_helpers import open_page, run_until_decoded
from tests.app.apptest_helpers import weights_table as _table
from tests.app.scenario_helpers import (
    assert_clean,
    chart_frames,
    image_folders,
    run_request,
    train_from_page,
)
from ui.common.i18n import catalog

EN = catalog("en")


# ----------------------------------------------------------------- helpers -------------
def _builder(preset: str) -> AppTest:
    """Model builder page: choose ``preset`` under "Start from" and press Load."""
    at = open_page("app_pages/builder.py", "en")
    at.selectbox(key="bld.start").set_value(preset)
    at.button(key="bld.load").click().run()
    assert_clean(at, "en")
    return at


def _total(at: AppTest) -> str:
    return next(m.value for m in at.metric if m.label == EN["builder.total"])


def _summary(at: AppTest) -> pd.DataFrame:
    return next(d.value for d in at.dataframe if EN["builder.col.params"] in d.value.columns)


def _metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


# ----------------------------------------------------------------- models --------------
@pytest.mark.slow
def test_M3_mlp_parameters_and_training() -> None:
    """Builder: load "MLP" -> 79,510 parameters (Flatten, Dense 100 relu, Dense 10,
    Softmax). Train: the MLP preset's defaults are the tutorial's (Adam 1e-3, batch 50,
    5 epochs, sparse categorical cross-entropy, sparse categorical accuracy); set 1 epoch
    (to keep the test short), press Train: the test accuracy is shown."""
    at = _builder("mlp")
    assert _total(at) == "79,510"
    table = _summary(at)
    assert table[EN["builder.col.type"]].tolist() == ["Flatten", "Dense", "Dense", "Softmax"]
    assert table[EN["builder.col.params"]].tolist() == ["0", "78,500", "1,010", "0"]

    def defaults(page: AppTest) -> None:
        assert page.selectbox(key="train.optimizer").value == "adam"
        assert page.number_input(key="train.lr").value == pytest.approx(1e-3)
        assert page.number_input(key="train.batch_size").value == 50
        assert page.selectbox(key="train.loss.classification").value == \
            "sparse_categorical_crossentropy"
        assert page.multiselect(key="train.metrics.classification").value == \
            ["sparse_categorical_accuracy"]
        assert page.number_input(key="train.epochs").value == 5
        page.number_input(key="train.epochs").set_value(1).run()

    page, run_id = train_from_page("mlp", None, before=defaults)
    shown = _metrics(page)
    assert shown["Epoch"] == "1 / 1" and shown["Step"] == "26"       # 1,258 / 50 -> 26
    assert float(shown["Test Accuracy"]) > 0.5
    training = run_request(run_id)["training"]
    assert (training["optimizer"], training["learning_rate"], training["batch_size"],
            training["loss"], training["metrics"]) == (
        "adam", 1e-3, 50, "sparse_categorical_crossentropy", ["sparse_categorical_accuracy"])


def test_M4_cnn_parameters() -> None:
    """Builder: load "CNN" -> 3,274,634 parameters: Conv2D 32 5x5 same, MaxPool, Conv2D 64
    5x5 same, MaxPool, Reshape 3136, Dense 1024 relu, Dense 10, Softmax."""
    at = _builder("cnn")
    assert _total(at) == "3,274,634"
    table = _summary(at)
    assert table[EN["builder.col.type"]].tolist() == [
        "Conv2D", "MaxPooling2D", "Conv2D", "MaxPooling2D", "Reshape", "Dense", "Dense",
        "Softmax"]
    assert table[EN["builder.col.params"]].tolist() == [
        "832", "0", "51,264", "0", "0", "3,212,288", "10,250", "0"]
    assert table[EN["builder.col.shape"]].tolist()[4] == "(None, 3136)"


def test_M5_mobilenet_v2_parameters() -> None:
    """Builder: load "MobileNetV2" (weights=None, classes=5, 224x224x3) -> 2,264,389
    parameters."""
    at = _builder("mobilenet_v2")
    assert _total(at) == "2,264,389"
    spec = at.session_state["builder.spec"]
    assert spec.inputs[0].shape == (224, 224, 3)
    assert _summary(at)[EN["builder.col.shape"]].tolist()[-1] == "(None, 5)"


@pytest.mark.slow
def test_M6_sequential_and_functional_mlp() -> None:
    """Builder: load "MLP" (Sequential) and "MLP (Functional)": both 79,510 parameters; the
    Code tab shows keras.Sequential([...]) and Input -> layers -> keras.Model(inputs,
    outputs). Train: choose the Functional MLP, 1 epoch, batch 50 with a validation split,
    press Train: train and validation curves and the test accuracy (evaluate)."""
    at = _builder("mlp")
    at.radio(key="bld.code_style").set_value("sequential").run()
    assert any("keras.Sequential([" in c.value for c in at.code)
    at.selectbox(key="bld.start").set_value("mlp_functional")
    at.button(key="bld.load").click().run()
    assert _total(at) == "79,510"
    assert at.session_state["builder.spec"].kind == "functional"
    at.radio(key="bld.code_style").set_value("functional").run()
    code = next(c.value for c in at.code if "def build_model" in c.value)
    assert "keras.Input(shape=(28, 28, 1)" in code and "keras.Model(" in code

    page, run_id = train_from_page("mlp_functional", 1)
    assert run_request(run_id)["spec"]["kind"] == "functional"
    assert run_request(run_id)["dataset"]["val_fraction"] > 0
    series = {str(s) for frame in chart_frames(page) if "series" in frame.columns
              for s in frame["series"].unique()}
    assert {EN["train.series.train"], EN["train.series.val"]} <= series, series
    assert float(_metrics(page)["Test Accuracy"]) > 0.3


@pytest.mark.slow
def test_M9_cats_vs_dogs_from_image_files() -> None:
    """Builder: load "Cats vs dogs CNN" -> 7,647,330 parameters. Train: that preset, data
    source Upload -> Image folders -> the cats/ dogs/ folder, size 256 x 256 (the model's),
    press Train: JPEGs read, decoded, resized and /255 by the pipeline; the run finishes."""
    at = _builder("cats_dogs_cnn")
    assert _total(at) == "7,647,330"
    assert _summary(at)[EN["builder.col.params"]].tolist() == [
        "896", "0", "25,632", "0", "0", "7,620,672", "130"]
    name = image_folders()

    def images(page: AppTest) -> None:
        page.radio(key="train.data.source").set_value("upload").run()
        page.radio(key="train.data.upload_kind").set_value("images").run()
        page.selectbox(key="train.data.upload_file.images").set_value(name).run()
        run_until_decoded(page)             # read in a child process (issue 28 item 3)
        assert page.selectbox(key="train.data.img_size.256").value == 256
        assert any("input 256 x 256 x 3, classes: 2" in c.value for c in page.caption)
        page.number_input(key="train.batch_size").set_value(4).run()

    page, run_id = train_from_page("cats_dogs_cnn", 2, before=images)
    dataset = run_request(run_id)["dataset"]
    assert dataset["name"] == f"upload:images:{name}"
    assert dataset["options"]["image_size"] == 256
    assert "Test Accuracy" in _metrics(page)


# ----------------------------------------------------------------- weights -------------
def _weights(preset: str = "b1_mlp") -> AppTest:
    at = open_page("app_pages/weights.py", "en")
    at.selectbox(key="weights.preset").set_value(preset).run()
    assert_clean(at, "en")
    return at


def _initialize(at: AppTest, scope: str, name: str, *, layer: str | None = None,
                params: dict | None = None, bias_zero: bool = True) -> pd.DataFrame:
    at.radio(key="weights.init.scope").set_value(scope).run()
    if layer:
        at.selectbox(key="weights.init.layer").set_value(layer).run()
    at.selectbox(key="weights.init.name").set_value(name).run()
    for param, value in (params or {}).items():
        at.number_input(key=f"weights.init.{name}.{param}").set_value(value)
    at.checkbox(key="weights.init.bias_zero").set_value(bias_zero)
    at.button(key="weights.init.btn").click().run()
    assert_clean(at, "en")
    return _table(at)


def test_B5_initializers() -> None:
    """Weights lab, model "Dense 256 relu -> Dense 10": Initialize the whole model with
    Random normal (mean 0, std 0.01) and zero biases; then Constant 1; then the layer
    "hidden" with Glorot uniform and the layer "output" with Constant 1; then the tutorial's
    custom initializer (U(-10, 10), |w| < 5 set to 0)."""
    at = _weights()
    mean, std, low, high, zeros = (EN[f"weights.col.{c}"] for c in
                                   ("mean", "std", "min", "max", "zeros"))
    table = _initialize(at, "model", "random_normal", params={"mean": 0.0, "stddev": 0.01})
    assert table.loc["hidden/kernel", std] == pytest.approx(0.01, rel=0.05)
    assert abs(table.loc["hidden/kernel", mean]) < 1e-3
    assert table.loc[["hidden/bias", "output/bias"], zeros].tolist() == [1.0, 1.0]

    table = _initialize(at, "model", "constant", params={"value": 1.0})
    assert table.loc[["hidden/kernel", "output/kernel"], mean].tolist() == [1.0, 1.0]
    assert table.loc[["hidden/kernel", "output/kernel"], std].tolist() == [0.0, 0.0]

    _initialize(at, "layer", "glorot_uniform", layer="hidden")
    table = _initialize(at, "layer", "constant", layer="output", params={"value": 1.0})
    limit = (6 / (20 + 256)) ** 0.5
    assert -limit <= table.loc["hidden/kernel", low] < 0 < table.loc["hidden/kernel", high] \
        <= limit
    assert table.loc["output/kernel", mean] == 1.0 and table.loc["output/kernel", std] == 0

    table = _initialize(at, "model", "tutorial_custom")
    for path in ("hidden/kernel", "output/kernel"):
        assert -10 <= table.loc[path, low] <= -5 and 5 <= table.loc[path, high] <= 10
        assert table.loc[path, zeros] == pytest.approx(0.5, abs=0.1)   # |w| < 5: half
    model = at.session_state["weights.models"][at.session_state["weights.current"]]
    kernel = model.get_layer("hidden").kernel.numpy()
    assert np.all((kernel == 0) | (np.abs(kernel) >= 5))


def test_B6_direct_assignment() -> None:
    """Weights lab, model "Dense 256 relu -> Dense 10", variable hidden/kernel: Add constant
    1 to the whole kernel, then Set element [0, 0] to 42."""
    at = _weights()
    at.selectbox(key="weights.var").set_value("hidden/kernel").run()
    mean, std, high = (EN[f"weights.col.{c}"] for c in ("mean", "std", "max"))
    before = _table(at).loc["hidden/kernel"]
    at.number_input(key="weights.edit.add_value").set_value(1.0)
    at.button(key="weights.edit.add_btn").click().run()
    assert_clean(at, "en")
    after = _table(at).loc["hidden/kernel"]
    assert after[mean] == pytest.approx(before[mean] + 1, abs=1e-5)
    assert after[std] == pytest.approx(before[std], abs=1e-5)
    assert EN["weights.edit.done"].format(changed=20 * 256, path="hidden/kernel") in [
        s.value for s in at.success]
    at.text_input(key="weights.edit.index").set_value("0, 0")
    at.number_input(key="weights.edit.set_value").set_value(42.0)
    at.button(key="weights.edit.set_btn").click().run()
    assert_clean(at, "en")
    assert _table(at).loc["hidden/kernel", high] == 42.0
    model = at.session_state["weights.models"][at.session_state["weights.current"]]
    assert model.get_layer("hidden").kernel.numpy()[0, 0] == 42.0
