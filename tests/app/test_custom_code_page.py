"""The Custom code page (issue 15 item 3): off without trusted code, with the way to turn it
on and the templates read-only in the code editor; with it, the editor (issue 23 item 13)
holds the text, what is typed into it is saved, and templates save, load and run with the
tutorials' numbers (M7, M8, B2, B9)."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from tests.app.apptest_helpers import assert_clean, open_page
from tfcore.custom import TEMPLATES, TRUSTED_ENV, load_sources
from ui.common.i18n import catalog

PAGE = "app_pages/custom_code.py"


def _editor(at) -> dict:
    """What the page sent the code editor component this run (its JSON arguments)."""
    found = at.get("component_instance")
    assert len(found) == 1, found
    return json.loads(found[0].proto.json_args)


def _type(at, text: str):
    """Type ``text`` into the editor: what the component sends when typing pauses."""
    at.session_state["custom.editor"] = {"text": text, "gen": _editor(at)["gen"]}
    return at.run()


def _clear_saved_code() -> None:
    folder = os.path.join(os.environ["TFLAB_WORKSPACE"], "custom")
    for name in os.listdir(folder) if os.path.isdir(folder) else []:
        os.remove(os.path.join(folder, name))


@pytest.fixture()
def trusted(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(TRUSTED_ENV, "1")
    _clear_saved_code()
    yield
    _clear_saved_code()
    load_sources({})              # no user-written types left in this process's catalog


def _save_template(at, template: str, name: str | None = None):
    at.selectbox(key="custom.template").set_value(template).run()
    at.button(key="custom.use_template").click().run()
    if name:
        at.text_input(key="custom.name").set_value(name).run()
    at.button(key="custom.save").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _try(at, cls: str, shape: str = "2, 5"):
    at.selectbox(key="custom.try.class").set_value(cls).run()
    if at.text_input(key="custom.try.shape").disabled is False:
        at.text_input(key="custom.try.shape").set_value(shape).run()
    at.button(key="custom.try.run").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    return {m.label: m.value for m in at.metric}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_page_says_how_to_enable_trusted_code(lang: str, monkeypatch) -> None:
    monkeypatch.delenv(TRUSTED_ENV, raising=False)
    at = open_page(PAGE, lang)
    assert_clean(at, lang)
    text = " ".join(i.value for i in at.info)
    assert f"{TRUSTED_ENV}=1 streamlit run app.py --server.address 127.0.0.1" in text
    assert not at.main.text_area and not at.main.button   # the page offers nothing to run
    shown = _editor(at)                               # the templates, read-only
    assert shown["read_only"] is True and shown["value"] == TEMPLATES["linear"].source
    at.selectbox(key="custom.template").select_index(list(TEMPLATES).index("mse_loss")).run()
    assert _editor(at)["value"] == TEMPLATES["mse_loss"].source
    assert _editor(at)["read_only"] is True


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_page_is_translated_with_trusted_code(lang: str, trusted) -> None:
    at = open_page(PAGE, lang)
    assert_clean(at, lang)
    shown = _editor(at)
    assert shown["value"] == TEMPLATES["linear"].source and shown["read_only"] is False
    assert shown["label"] == catalog(lang)["custom.source"]


def test_typed_code_is_saved_and_a_template_replaces_it(trusted) -> None:
    at = open_page(PAGE)
    at.text_input(key="custom.name").set_value("typed").run()
    source = TEMPLATES["linear"].source.replace("class Linear", "class Typed")
    _type(at, source)
    assert _editor(at)["value"] == source                       # the page keeps the text
    at.button(key="custom.save").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert "Typed (layer, line 5)" in " ".join(s.value for s in at.success)
    with open(os.path.join(os.environ["TFLAB_WORKSPACE"], "custom", "typed.py")) as f:
        assert f.read() == source
    gen = _editor(at)["gen"]
    at.selectbox(key="custom.template").set_value("mse_loss").run()
    at.button(key="custom.use_template").click().run()
    assert _editor(at)["gen"] == gen + 1                        # a new document ...
    assert _editor(at)["value"] == TEMPLATES["mse_loss"].source
    at.session_state["custom.editor"] = {"text": "old typing", "gen": gen}
    at.run()                                                    # ... typing into the old
    assert _editor(at)["value"] == TEMPLATES["mse_loss"].source  # one is dropped


def test_syntax_error_is_located_and_nothing_is_saved(trusted) -> None:
    at = open_page(PAGE)
    at.text_input(key="custom.name").set_value("broken").run()
    _type(at, "import keras\n\nclass A(keras.layers.Layer):\n    def call(self, x:\n")
    at.button(key="custom.save").click().run()
    assert not at.exception
    message = " ".join(e.value for e in at.error)
    assert "broken.py, line 4" in message
    assert not os.path.exists(os.path.join(os.environ["TFLAB_WORKSPACE"], "custom",
                                           "broken.py"))


def test_bad_file_name_is_refused(trusted) -> None:
    at = open_page(PAGE)
    at.text_input(key="custom.name").set_value("../evil").run()
    at.button(key="custom.save").click().run()
    assert "../evil" in " ".join(e.value for e in at.error)


def test_m7_linear_zero_init_on_the_page(trusted) -> None:
    at = _save_template(open_page(PAGE), "linear")
    assert "Linear (layer, line 5)" in " ".join(s.value for s in at.success)
    metrics = _try(at, "Linear", "2, 3")
    assert metrics["Output shape"] == "(2, 1)" and float(metrics["Output sum"]) == 0.0
    assert "Parameters: 4 trainable, 0 non-trainable" in [c.value for c in at.caption]
    table = at.dataframe[-1].value
    assert list(table["Shape"]) == ["(3, 1)", "(1,)"]


def test_b9_mean_center_and_my_dense_on_the_page(trusted) -> None:
    at = _save_template(open_page(PAGE), "mean_center")
    at = _save_template(at, "my_dense")
    metrics = _try(at, "MeanCenter", "4, 8")
    assert abs(float(metrics["Output mean"])) <= 1e-6
    metrics = _try(at, "MyDense", "2, 5")
    assert metrics["Output shape"] == "(2, 8)"
    output = at.code[-1].value
    assert "-" not in output.replace("e-", "")               # relu: nothing negative


def test_b2_fixed_hidden_mlp_on_the_page(trusted) -> None:
    at = _save_template(open_page(PAGE), "fixed_hidden_mlp")
    metrics = _try(at, "FixedHiddenMLP", "2, 20")
    assert metrics["Output shape"] == "()"
    assert 0.0 < abs(float(metrics["Output sum"])) <= 1.0
    captions = [c.value for c in at.caption]
    assert "Parameters: 420 trainable, 0 non-trainable" in captions
    assert ("Constants, not parameters (never trained, not counted, not among the weights): "
            "rand_weight (20, 20)") in captions


def test_m8_loss_and_metric_on_the_page(trusted) -> None:
    at = _save_template(open_page(PAGE), "mse_loss")
    at = _save_template(at, "sparse_accuracy")
    kinds = at.dataframe[0].value
    assert dict(zip(kinds["Class"], kinds["Kind"])) == {
        "MeanSquaredError": "loss", "SparseCategoricalAccuracy": "metric"}
    metrics = _try(at, "MeanSquaredError")
    assert np.isclose(float(metrics["Output mean"]), 0.25)   # ((0.5)^2 + (0.5)^2) / 2
    metrics = _try(at, "SparseCategoricalAccuracy")
    assert float(metrics["Output mean"]) == 0.75              # 3 of 4 right
    assert "State variables: total = 4, count = 3" in [c.value for c in at.caption]


def test_saved_layers_are_builder_types_with_trusted_code(trusted) -> None:
    at = _save_template(open_page(PAGE), "linear")
    at.switch_page("app_pages/builder.py").run()
    assert not at.exception, [e.value for e in at.exception]
    types = at.selectbox(key="bld.add_type").options
    assert [o for o in types if "Linear" in o] == [
        "Tutorial layers · Linear (custom, M7)", "Tutorial layers · Linear (your code, linear.py)"]


def test_train_page_lists_saved_losses_and_metrics(trusted) -> None:
    at = _save_template(open_page(PAGE), "mse_loss")
    at = _save_template(at, "sparse_accuracy")
    at.switch_page("app_pages/train.py").run()
    assert not at.exception, [e.value for e in at.exception]
    loss = next(s for s in at.selectbox if s.label == "Loss")
    metrics = next(m for m in at.multiselect if m.label == "Metrics")
    assert loss.options[-1] == "MeanSquaredError"
    assert metrics.options[-1] == "SparseCategoricalAccuracy"


def test_train_request_carries_the_code_it_uses(trusted) -> None:
    from tfcore.model import get_preset
    from ui.training.custom_choices import custom_request

    _save_template(open_page(PAGE), "sparse_accuracy")
    spec = get_preset("mlp")
    body = custom_request(spec, {"loss": "sparse_categorical_crossentropy",
                                 "metrics": ["SparseCategoricalAccuracy"]})
    assert body == {"custom_code": {"sparse_accuracy": TEMPLATES["sparse_accuracy"].source}}
    assert custom_request(spec, {"loss": "mse", "metrics": ["mae"]}) == {}
