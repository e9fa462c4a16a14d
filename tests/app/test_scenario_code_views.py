"""Scenario gaps closed by clicks: T1 (the Train page shows the GradientTape loop's code
when that loop is chosen) and T6 (the tf.data page reads image files from class folders:
the built-in digits sample, an image-folder upload, and a broken upload named)."""

from __future__ import annotations

from PIL import Image
from streamlit.testing.v1 import AppTest

from tests.app.apptest_helpers import APP, assert_clean, open_page
from tests.app.scenario_helpers import image_folders
from tfcore.workspace import default_workspace
from ui.common.i18n import catalog

EN, ZH = catalog("en"), catalog("zh")


def _loop_code(at) -> list[str]:
    title = EN["train.loop_code.title"]
    return [c.value for e in at.expander if e.label == title for c in e.code]


def test_T1_tape_loop_code_shown() -> None:
    """Train page: Training loop "GradientTape loop" -> the expander "The GradientTape
    loop's code" shows the real step (GradientTape, tape.gradient over the model's
    variables, apply_gradients over the pairs) for the chosen loss and optimizer."""
    at = open_page("app_pages/train.py", "en")
    assert at.radio(key="train.loop").value == "fit"
    assert not _loop_code(at)                                   # Keras fit: no loop code
    at.radio(key="train.loop").set_value("custom").run()
    assert_clean(at, "en")
    [code] = _loop_code(at)
    assert "GradientTape" in code and "apply_gradients" in code
    assert "with tf.GradientTape() as tape:" in code
    assert "variables = self.model.trainable_variables" in code
    assert "grads = tape.gradient(scaled, variables)" in code
    assert "self.optimizer.apply_gradients(zip(grads, variables))" in code
    assert "optimizer = keras.optimizers.Adam(learning_rate=0.001)" in code
    at.selectbox(key="train.optimizer").set_value("sgd").run()
    at.number_input(key="train.lr").set_value(0.05).run()
    [code] = _loop_code(at)
    assert "optimizer = keras.optimizers.SGD(learning_rate=0.05, momentum=0)" in code

    zh = AppTest.from_file(APP, default_timeout=120)          # the page's URL: ?loop=custom
    zh.query_params.update(lang="zh", loop="custom")
    zh.run()
    zh.switch_page("app_pages/train.py").run()
    assert ZH["train.loop_code.title"] in [e.label for e in zh.expander]
    assert any("apply_gradients" in c.value for c in zh.code)
    assert_clean(zh, "zh")


def _metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def _run(at, source: str, **values) -> None:
    at.selectbox(key="fpf.source").set_value(source)
    for key, value in values.items():
        widget = next(w for w in at.main if getattr(w, "key", None) == f"fpf.{key}")
        widget.set_value(value)
    at.run()
    at.button(key="fpf.run").click().run()


def test_T6_image_folder_pipeline() -> None:
    """tf.data pipelines -> Image files from class folders: the built-in sample, shuffle
    buffer 1, batch 16 -> Run: the code list_files -> map(read_file, decode, resize, /255)
    -> batch -> prefetch, first batch [16, 28, 28, 1] float32, labels eight 0s then eight
    1s; the cats/dogs upload in RGB at 32 x 32; a broken file in an upload is named."""
    at = open_page("app_pages/pipeline.py", "en")
    _run(at, "sample", buffer=1, batch=16)
    assert_clean(at, "en")
    shown = _metrics(at)
    assert shown[EN["foundations.folders.shape"]] == "[16, 28, 28, 1]"
    assert shown[EN["foundations.folders.dtype"]] == "float32"
    assert shown[EN["foundations.folders.batch_classes"]] == "2"
    labels = [0] * 8 + [1] * 8
    assert EN["foundations.folders.labels"].format(
        labels=labels, names=", ".join(map(str, labels))) in [m.value for m in at.markdown]
    code = next(c.value for c in at.code if "list_files" in c.value)
    for step in ("tf.data.Dataset.list_files(", "tf.io.read_file(path)",
                 "tf.io.decode_image(image, channels=1", "tf.image.resize(image, (28, 28))",
                 "image / 255.0", "ds = ds.batch(16)", "ds = ds.prefetch(tf.data.AUTOTUNE)"):
        assert step in code, step
    assert "ds.shuffle(" not in code
    assert len(list((default_workspace().root / "samples" / "digits_folders").rglob(
        "*.png"))) == 80

    upload = image_folders()                       # uploads/cats_vs_dogs: 6 cats, 6 dogs
    at.run()
    _run(at, upload, size=32, channels=3, buffer=1, batch=8)
    assert_clean(at, "en")
    shown = _metrics(at)
    assert shown[EN["foundations.folders.shape"]] == "[8, 32, 32, 3]"
    assert EN["foundations.folders.labels"].format(
        labels=[0] * 6 + [1] * 2, names=", ".join(["cats"] * 6 + ["dogs"] * 2)) in [
        m.value for m in at.markdown]
    assert "class_names = ['cats', 'dogs']" in next(c.value for c in at.code
                                                    if "list_files" in c.value)

    broken = default_workspace().uploads / "broken_pets"
    for label in ("cats", "dogs"):
        (broken / label).mkdir(parents=True, exist_ok=True)
        Image.new("RGB", (10, 10)).save(broken / label / "ok.png")
    (broken / "dogs" / "torn.jpg").write_bytes(b"not a jpeg at all")
    at.run()
    _run(at, "broken_pets")
    assert not at.exception
    assert [e.value for e in at.error] == [EN["foundations.err.folders_decode"].format(
        file="uploads/broken_pets/dogs/torn.jpg")]
    assert EN["foundations.folders.shape"] not in _metrics(at)   # nothing shown from before
