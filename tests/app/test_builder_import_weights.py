"""Issue 24.2 on the pages: the builder imports a small trained .keras file and says what it
imported (layers, parameters, "weights kept") in English and Chinese; the Weights lab then
shows the file's values; a saved spec whose weights file is gone opens as an architecture
with a located warning."""

from __future__ import annotations

from pathlib import Path

import keras
import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from tests.app.apptest_helpers import APP, assert_clean, weights_table
from tfcore.model import list_specs, load_spec
from tfcore.workspace import default_workspace
from ui.common.i18n import catalog

EXPECT = {"en": ("Imported trained.keras: 3 layers, 83 parameters.", "kept as the model's "
                 "initial weights"),
          "zh": ("已导入 trained.keras：3 层，83 个参数。", "已保存为模型的初始权重")}


def _trained_bytes(tmp_path: Path) -> tuple[keras.Model, bytes]:
    keras.utils.set_random_seed(3)
    model = keras.Sequential([keras.Input((6,), name="x"),
                              keras.layers.Dense(8, activation="relu", name="hidden"),
                              keras.layers.Activation("relu", name="act"),
                              keras.layers.Dense(3, name="logits")], name="trained")
    x = np.random.default_rng(0).standard_normal((32, 6)).astype("float32")
    model.compile("adam", "sparse_categorical_crossentropy")
    model.fit(x, np.arange(32) % 3, epochs=1, verbose=0)
    path = tmp_path / "trained.keras"
    model.save(path)
    return model, path.read_bytes()


def _builder(lang: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=180)
    at.query_params["lang"] = lang
    at.run()
    return at.switch_page("app_pages/builder.py").run()


def _button(at: AppTest, key: str):
    return next(b for b in at.button if b.key == key)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_importing_a_trained_file_keeps_its_weights_and_the_weights_lab_shows_them(
        tmp_path: Path, lang: str) -> None:
    model, data = _trained_bytes(tmp_path)
    at = _builder(lang)
    at.get("file_uploader")[0].set_value(("trained.keras", data, "application/octet-stream"))
    at.run()
    _button(at, "bld.import_file").click().run()
    assert_clean(at, lang)
    said = [s.value for s in at.success]
    head, kept = EXPECT[lang]
    assert any(head in s and kept in s and "models/imported/trained-" in s for s in said), said
    spec = at.session_state["builder.spec"]
    assert spec.name == "trained" and spec.weights.startswith("models/imported/trained-")

    at.switch_page("app_pages/weights.py").run()               # the builder's model
    assert_clean(at, lang)
    lab = at.session_state["weights.models"][at.session_state["weights.current"]]
    kernel = lab.get_layer("hidden").kernel.numpy()
    assert kernel[0, 0] == model.get_layer("hidden").kernel.numpy()[0, 0]
    assert np.array_equal(kernel, model.get_layer("hidden").kernel.numpy())
    if lang == "en":                                            # the statistics drawn
        mean = weights_table(at).loc["hidden/kernel", catalog("en")["weights.col.mean"]]
        assert abs(float(mean) - float(np.mean(model.get_layer("hidden").kernel))) < 1e-4


def test_a_saved_spec_whose_weights_are_gone_opens_as_an_architecture(tmp_path: Path) -> None:
    from tfcore.model import import_keras_weights, save_spec

    _, data = _trained_bytes(tmp_path)
    (tmp_path / "t.keras").write_bytes(data)
    ws = default_workspace().ensure()
    save_spec(ws, "gone", import_keras_weights(tmp_path / "t.keras", ws, stem="t").spec)
    ws.confine("models/gone.weights.h5").unlink()
    at = _builder("en")
    assert "gone" in list_specs(ws)
    next(s for s in at.selectbox if s.key == "bld.saved_pick").set_value("gone")
    _button(at, "bld.open_saved").click().run()
    assert_clean(at, "en")
    warned = [w.value for w in at.warning]
    assert any("models/gone.weights.h5 is missing" in w and "architecture only" in w
               for w in warned), warned
    spec = at.session_state["builder.spec"]
    assert spec.name == "gone" and spec.weights == "" and len(spec.layers) == 3
    assert load_spec(ws, "gone").weights == "models/gone.weights.h5"   # the file is untouched
    assert catalog("zh")["spec.weights_dropped"]
