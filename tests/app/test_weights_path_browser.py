"""The weights lab's path browser (scenario B4): four nested blocks, 85 parameters, and one
bias reached level by level; its path, shape, dtype and values shown."""

from __future__ import annotations

import numpy as np
import pytest

from tests.app.apptest_helpers import assert_clean, open_page
from ui.common.i18n import catalog

PAGE = "app_pages/weights.py"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_b4_reach_one_nested_bias_by_the_path_browser(lang: str) -> None:
    texts = catalog(lang)
    at = open_page(PAGE, lang)
    at.session_state["lang"] = lang
    at.selectbox(key="weights.preset").set_value("nested_blocks").run()
    assert not at.exception
    params = next(m.value for m in at.metric if m.label == texts["weights.overview.params"])
    assert params == "85"
    # level 1 offers the outer block and the output layer
    assert at.selectbox(key="weights.pb.level.0").options == [
        texts["paths.kind.block"].format(name="block2"),
        texts["paths.kind.layer"].format(name="output")]
    at.selectbox(key="weights.pb.level.0").set_value("block2").run()
    at.selectbox(key="weights.pb.level.1").set_value("block_2").run()
    assert at.selectbox(key="weights.pb.level.2").value == "dense_2"
    at.selectbox(key="weights.pb.level.3").set_value("bias").run()
    assert at.selectbox(key="weights.pb.level.3").label == texts["paths.level.variable"].format(
        depth=4)
    shown = [m.value for m in at.markdown]
    assert texts["paths.path"].format(path="block2/block_2/dense_2/bias") in shown, shown
    assert texts["paths.facts"].format(shape="(4,)", dtype="float32", params=4,
                                       trainable=texts["paths.trainable.True"]) in shown
    values = next(d.value for d in at.dataframe if d.value.shape == (1, 4))
    np.testing.assert_array_equal(values.to_numpy(), np.zeros((1, 4)))  # biases start at 0
    # another inner block: the levels below follow it, keeping "bias" (it has one too)
    at.selectbox(key="weights.pb.level.1").set_value("block_0").run()
    assert at.selectbox(key="weights.pb.level.2").value == "dense_0"
    assert at.selectbox(key="weights.pb.level.3").value == "bias"
    # the output layer: two levels only, its first variable
    at.selectbox(key="weights.pb.level.0").set_value("output").run()
    assert at.selectbox(key="weights.pb.level.1").value == "kernel"
    assert at.selectbox(key="weights.pb.level.1").label == texts[
        "paths.level.variable"].format(depth=2)
    assert not [s for s in at.selectbox if s.key == "weights.pb.level.2"]
    at.selectbox(key="weights.pb.level.0").set_value("block2").run()   # back: its first one
    assert [at.selectbox(key=f"weights.pb.level.{n}").value for n in range(4)] == [
        "block2", "block_0", "dense_0", "kernel"]
    at.selectbox(key="weights.pb.level.3").set_value("bias").run()
    at.button(key="weights.pb.inspect").click().run()
    assert at.selectbox(key="weights.var").value == "block2/block_0/dense_0/bias"
    assert_clean(at, lang)
