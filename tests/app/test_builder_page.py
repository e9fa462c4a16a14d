"""The builder page through its widgets: the MLP from scratch, a bad value, Functional mode."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests.app.apptest_helpers import assert_clean, open_page
from ui.common.i18n import catalog


def _by_key_end(elements, suffix: str):
    found = [el for el in elements if el.key and el.key.endswith(suffix)]
    assert found, f"no widget whose key ends with {suffix}"
    return found[0]


def _add(at: AppTest, type_name: str) -> None:
    at.selectbox(key="bld.add_type").set_value(type_name)
    at.button(key="bld.add").click().run()


def _total(at: AppTest) -> str:
    label = catalog("en")["builder.total"]
    return next(m.value for m in at.metric if m.label == label)


def test_build_the_mlp_from_scratch_then_a_bad_value_keeps_the_last_good_model() -> None:
    at = open_page("app_pages/builder.py", "en")
    at.selectbox(key="bld.start").set_value("scratch")
    at.button(key="bld.load").click().run()
    assert _total(at) == "0"
    _by_key_end(at.text_input, ".in.0.shape").set_value("28, 28, 1").run()
    _add(at, "Flatten")
    _add(at, "Dense")
    _by_key_end(at.number_input, ".1.units").set_value(100).run()
    _by_key_end(at.selectbox, ".1.activation").set_value("relu").run()
    _add(at, "Dense")
    _add(at, "Softmax")
    assert not at.exception
    assert _total(at) == "79,510"
    good = at.session_state["builder.spec"]
    assert [layer.type for layer in good.layers] == ["Flatten", "Dense", "Dense", "Softmax"]

    _by_key_end(at.number_input, ".1.units").set_value(0).run()
    errors = " ".join(e.value for e in at.error)
    assert "dense.units" in errors and "0" in errors
    assert _total(at) == "79,510"  # the last good model stays on screen
    assert at.session_state["builder.spec"] == good
    assert_clean(at, "en")


def test_functional_mode_keeps_tied_parameters_and_errors_are_translated() -> None:
    at = open_page("app_pages/builder.py", "en")
    at.selectbox(key="bld.start").set_value("tied")
    at.button(key="bld.load").click().run()
    assert _total(at) == "25"
    at.radio(key="bld.kind").set_value("functional").run()
    spec = at.session_state["builder.spec"]
    assert spec.kind == "functional" and spec.outputs == ("output",)
    assert _total(at) == "25"
    assert_clean(at, "en")


def test_a_bad_value_is_located_and_translated_in_chinese() -> None:
    at = open_page("app_pages/builder.py", "zh")
    at.session_state["lang"] = "zh"  # AppTest drops the language widget's state on rerun
    _by_key_end(at.number_input, ".2.units").set_value(-1).run()
    assert any("logits.units" in e.value and "不允许" in e.value for e in at.error)
    zh_total = catalog("zh")["builder.total"]
    assert next(m.value for m in at.metric if m.label == zh_total) == "79,510"
    assert_clean(at, "zh")


def test_deferred_model_gets_weights_at_the_first_call_and_saves() -> None:
    at = open_page("app_pages/builder.py", "en")
    at.selectbox(key="bld.start").set_value("deferred")
    at.button(key="bld.load").click().run()
    assert any(catalog("en")["builder.deferred"] == i.value for i in at.info)
    at.text_input(key="bld.deferred_shape").set_value("20")
    at.button(key="bld.deferred_call").click().run()
    shapes = at.dataframe[-1].value.iloc[:, 1].tolist()
    assert shapes == ["(20, 256)", "(256,)", "(256, 10)", "(10,)"]
    _by_key_end(at.checkbox, ".deferred").uncheck().run()  # give it an input shape
    assert _total(at) == f"{20 * 256 + 256 + 2570:,}"
    at.text_input(key="bld.save_name").set_value("my_deferred")
    at.button(key="bld.save").click().run()
    from tfcore.model import list_specs, load_spec
    from ui.common.resources import workspace

    assert "my_deferred" in list_specs(workspace())
    assert load_spec(workspace(), "my_deferred").inputs[0].shape == (20,)


def test_pasted_spec_json_replaces_the_model_and_bad_json_is_reported() -> None:
    from tfcore.model.presets import get_preset

    at = open_page("app_pages/builder.py", "en")
    at.text_area(key="bld.paste").set_value(get_preset("nested_blocks").to_json())
    at.button(key="bld.load_json").click().run()
    assert _total(at) == "85"
    at.text_area(key="bld.paste").set_value("{not json")
    at.button(key="bld.load_json").click().run()
    assert any("JSON" in e.value for e in at.error)
    assert _total(at) == "85"
    assert_clean(at, "en")
