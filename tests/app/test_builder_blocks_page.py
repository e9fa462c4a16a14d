"""The builder page's blocks (B3 by click), "Try it" panel (B1) and issue 14's small fixes,
through the widgets."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.app.apptest_helpers import assert_clean, open_page
from ui.common.i18n import catalog

PAGE = "app_pages/builder.py"
EN = catalog("en")


def _end(elements, suffix: str):
    found = [el for el in elements if el.key and el.key.endswith(suffix)]
    assert found, f"no widget whose key ends with {suffix}"
    return found[0]


def _total(at: AppTest, lang: str = "en") -> str:
    label = catalog(lang)["builder.total"]
    return next(m.value for m in at.metric if m.label == label)


def _load(at: AppTest, preset: str) -> None:
    at.selectbox(key="bld.start").set_value(preset)
    at.button(key="bld.load").click().run()


def _add(at: AppTest, type_name: str) -> None:
    at.selectbox(key="bld.add_type").set_value(type_name)
    at.button(key="bld.add").click().run()


def _group(at: AppTest, names: list[str], block: str) -> None:
    _end(at.multiselect, ".group.pick").set_value(names)
    _end(at.text_input, ".group.name").set_value(block)
    at.button(key="bld.group").click().run()


def _plain_keras_b3_count() -> int:
    """The same model in plain Keras (with the project's B2 layer class)."""
    import keras

    from tfcore.model.layers import FixedHiddenMLP

    net = keras.Sequential([keras.layers.Dense(64, activation="relu"),
                            keras.layers.Dense(32, activation="relu")])
    block = keras.Sequential([net, keras.layers.Dense(16, activation="relu")])
    model = keras.Sequential([keras.Input((20,)), block,
                              keras.layers.Dense(20, activation="relu"),
                              FixedHiddenMLP(units=20)])
    return model.count_params()


def test_b3_blocks_built_by_click_then_edited_inside_and_ungrouped() -> None:
    at = open_page(PAGE, "en")
    _load(at, "scratch")
    _end(at.text_input, ".in.0.shape").set_value("20").run()
    for index, units in enumerate((64, 32, 16, 20)):
        _add(at, "Dense")
        _end(at.number_input, f".layer.{index}.units").set_value(units).run()
        _end(at.selectbox, f".layer.{index}.activation").set_value("relu").run()
    _add(at, "FixedHiddenMLP")
    _group(at, ["dense", "dense_2"], "net")
    _group(at, ["net", "dense_3"], "nest_mlp")
    assert not at.exception
    spec = at.session_state["builder.draft"]
    assert [e.name for e in spec.layers] == ["nest_mlp", "dense_4", "fixed_hidden_mlp"]
    assert [c.name for c in spec.layers[0].layers] == ["net", "dense_3"]
    assert [c.name for c in spec.layers[0].layers[0].layers] == ["dense", "dense_2"]
    expected = _plain_keras_b3_count()
    assert _total(at) == f"{expected:,}"
    assert at.session_state["builder.spec"] == spec   # the valid model goes to the others

    # open nest_mlp, then net inside it: add a Dense(8), move it up, remove it
    _end(at.button, ".layer.0.open").click().run()
    inside = EN["blocks.inside"].format(trail=f"{EN['blocks.model']} › nest_mlp")
    assert inside in [i.value for i in at.info], [i.value for i in at.info]
    _end(at.button, ".in_block.nest_mlp.layer.0.open").click().run()
    assert at.session_state["bld.open_block"] == ("nest_mlp", "net")
    assert at.button(key="bld.add").label == EN["blocks.add_inside"].format(name="net")
    _add(at, "Dense")
    inner = at.session_state["builder.draft"].layers[0].layers[0]
    assert [c.name for c in inner.layers] == ["dense", "dense_2", "dense_5"]
    _end(at.button, ".in_block.nest_mlp.net.up.2").click().run()
    inner = at.session_state["builder.draft"].layers[0].layers[0]
    assert [c.name for c in inner.layers] == ["dense", "dense_5", "dense_2"]
    _end(at.button, ".in_block.nest_mlp.net.rm.1").click().run()
    assert _total(at) == f"{expected:,}"
    assert_clean(at, "en")
    at.button(key="bld.block_top").click().run()
    assert at.session_state["bld.open_block"] == ()

    # a gap is refused, located, and nothing changes
    before = at.session_state["builder.draft"]
    _group(at, ["nest_mlp", "fixed_hidden_mlp"], "bad")
    gap = EN["spec.group_gap"].format(between="dense_4")
    assert gap in [e.value for e in at.error], [e.value for e in at.error]
    assert at.session_state["builder.draft"] == before
    # ungroup the outer block: its two layers come back in its place
    _end(at.button, ".layer.0.ungroup").click().run()
    spec = at.session_state["builder.draft"]
    assert [e.name for e in spec.layers] == ["net", "dense_3", "dense_4", "fixed_hidden_mlp"]
    assert _total(at) == f"{expected:,}"
    assert_clean(at, "en")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_b1_try_it_panel_shows_a_2_by_10_output_and_locates_a_bad_shape(lang: str) -> None:
    at = open_page(PAGE, lang)
    at.session_state["lang"] = lang
    _load(at, "b1_mlp")
    assert at.text_input(key="bld.try.shape.0").value == "2, 20"
    at.number_input(key="bld.try.seed").set_value(3)
    at.button(key="bld.try.run").click().run()
    texts = catalog(lang)
    assert texts["tryit.output"].format(number=1, shape="(2, 10)", dtype="float32") in [
        m.value for m in at.markdown]
    frame = at.dataframe[-1].value
    assert frame.shape == (2, 10)
    assert frame.abs().to_numpy().max() > 0 and (frame.round(4) == frame).all().all()
    assert texts["tryit.ran"].format(shapes="(2, 20)", seed=3) in [c.value for c in at.caption]
    at.text_input(key="bld.try.shape.0").set_value("2, 21")
    at.button(key="bld.try.run").click().run()
    errors = [e.value for e in at.error]
    assert texts["tryit.shape_mismatch"].format(where="x", expected="(None, 20)",
                                                shape="(2, 21)") in errors
    assert_clean(at, lang)


def test_empty_model_code_tab_in_every_style() -> None:
    at = open_page(PAGE, "en")
    _load(at, "scratch")
    for style in ("functional", "subclass", "sequential"):
        at.radio(key="bld.code_style").set_value(style).run()
        assert not at.exception
        assert not at.error, [e.value for e in at.error]
        assert any("def build_model" in c.value for c in at.code)


def test_a_second_bad_value_replaces_the_first_message() -> None:
    at = open_page(PAGE, "en")
    _end(at.number_input, ".layer.1.units").set_value(0).run()
    assert any(e.value.startswith("dense.units: 0 is not allowed") for e in at.error)
    _end(at.number_input, ".layer.1.units").set_value(-5).run()
    shown = [e.value for e in at.error if e.value.startswith("dense.units")]
    assert shown and all("5 is not allowed" in e for e in shown), shown
    assert not any("0 is not allowed" in e for e in shown), shown


def test_save_as_follows_the_model_name_not_the_preset() -> None:
    at = open_page(PAGE, "en")
    _load(at, "cnn")
    assert at.text_input(key="bld.save_name").value == "cnn"
    _end(at.text_input, ".model_name").set_value("my_digits_net").run()
    assert at.text_input(key="bld.save_name").value == "my_digits_net"
    _load(at, "tied")                                    # the rename is unsaved: it asks
    at.button(key="bld.confirm_replace").click().run()
    assert at.text_input(key="bld.save_name").value == "tied"


def test_layer_buttons_are_full_words_with_their_own_icon_and_help() -> None:
    at = open_page(PAGE, "en")
    names = ("up", "down", "dup", "reuse", "rm")
    buttons = [_end(at.button, f".{name}.1") for name in names]
    assert [b.label for b in buttons] == [EN["builder.up"], EN["builder.down"],
                                          EN["builder.duplicate"], EN["builder.reuse"],
                                          EN["builder.remove"]]
    icons = [b.proto.icon for b in buttons]
    assert len(set(icons)) == 5 and all(icons)
    assert all(b.help for b in buttons) and len({b.help for b in buttons}) == 5


def test_blocks_in_chinese_open_nested_preset_and_refuse_a_taken_name() -> None:
    zh = catalog("zh")
    at = open_page(PAGE, "zh")
    at.session_state["lang"] = "zh"
    _load(at, "nested_mlp")
    assert _total(at, "zh") == "4,712"
    _end(at.button, ".layer.0.open").click().run()
    assert zh["blocks.inside"].format(trail=f"{zh['blocks.model']} › nest_mlp") in [
        i.value for i in at.info]
    assert at.button(key="bld.block_up").label == zh["blocks.back"].format(
        name=zh["blocks.model"])
    _group(at, ["net"], "nest_dense")   # the name of the block's own Dense(16)
    assert zh["spec.name_taken"].format(name="nest_dense") in [e.value for e in at.error]
    _group(at, ["nest_dense"], "inner")
    inner = at.session_state["builder.draft"].layers[0].layers[1]
    assert inner.name == "inner" and [c.name for c in inner.layers] == ["nest_dense"]
    assert _total(at, "zh") == "4,712"
    _end(at.button, ".in_block.nest_mlp.layer.1.open").click().run()
    _end(at.button, ".in_block.nest_mlp.inner.rm.0").click().run()
    assert zh["blocks.empty"] in [i.value for i in at.info]
    assert_clean(at, "zh")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_b2_and_b3_show_the_tutorials_counts_and_scalar(lang: str) -> None:
    """Issue 24 item 4: 420 and 4,712 parameters (the fixed 20x20 weight is a constant, not
    a parameter) and an output of shape (), each beside the preset's tutorial number."""
    text = catalog(lang)
    at = open_page(PAGE, lang)
    at.session_state["lang"] = lang
    _load(at, "fixed_hidden")
    assert not at.exception
    metrics = {m.label: m.value for m in at.metric}
    assert (metrics[text["builder.total"]], metrics[text["builder.trainable"]],
            metrics[text["builder.non_trainable"]]) == ("420", "420", "0")
    table = at.dataframe[0].value
    assert list(table[text["builder.col.shape"]]) == ["()"]
    assert list(table[text["builder.col.params"]]) == ["420"]
    note = text["builder.scalar_output"].format(layers="fixed_hidden_mlp")
    assert note in [i.value for i in at.info]
    titles = at.selectbox(key="bld.start")
    assert "420" in titles.format_func("fixed_hidden")
    assert "4,712" in titles.format_func("nested_mlp")
    _load(at, "nested_mlp")
    assert _total(at, lang) == "4,712"
    table = at.dataframe[0].value
    assert list(table[text["builder.col.params"]]) == ["3,952", "340", "420"]
    assert list(table[text["builder.col.shape"]])[-1] == "()"
    assert_clean(at, lang)
