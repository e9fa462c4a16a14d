"""One-click chips for the common activations (issue 14: no typing except numbers): a chip
and the full list agree both ways, and clicking the highlighted chip keeps the value."""

from __future__ import annotations

import pytest
from streamlit.elements.lib import policies
from streamlit.runtime.state import get_session_state
from streamlit.testing.v1 import AppTest

from tests.app.apptest_helpers import assert_clean, open_page
from ui.common.i18n import catalog

ACTIVATION = ".layer.0.activation"


def _by_key_end(elements, suffix: str):
    found = [el for el in elements if el.key and el.key.endswith(suffix)]
    assert found, f"no widget whose key ends with {suffix}"
    return found[0]


@pytest.fixture
def doubly_set(monkeypatch) -> list[str]:
    """Keys of widgets created with a default while their value was also set through the
    Session State API this run (Streamlit only logs that warning on a live server)."""
    seen: list[str] = []
    check = policies.check_session_state_rules

    def spy(default_value, key, writes_allowed=True):
        if key is not None and default_value is not None \
                and get_session_state().is_new_state_value(key):
            seen.append(key)
        return check(default_value, key, writes_allowed)

    monkeypatch.setattr(policies, "check_session_state_rules", spy)
    return seen


def _one_dense(lang: str) -> AppTest:
    at = open_page("app_pages/builder.py", lang)
    if lang != "en":
        at.session_state["lang"] = lang  # AppTest drops the language widget's state on rerun
    at.selectbox(key="bld.start").set_value("scratch")
    at.button(key="bld.load").click().run()
    at.selectbox(key="bld.add_type").set_value("Dense")
    at.button(key="bld.add").click().run()
    return at


def _state(at: AppTest) -> tuple:
    """(chip highlighted, list value, the draft's activation, the code tab mentions it)."""
    chips = _by_key_end(at.button_group, ACTIVATION + ".quick")
    box = _by_key_end(at.selectbox, ACTIVATION)
    config = at.session_state["builder.draft"].layers[0].config
    code = " ".join(c.value for c in at.code)
    return chips.value, box.value, config.get("activation", "linear"), code


def test_a_chip_sets_the_list_and_the_list_moves_the_chip(doubly_set) -> None:
    at = _one_dense("en")
    chips = _by_key_end(at.button_group, ACTIVATION + ".quick")
    assert chips.options == ["linear", "relu", "sigmoid", "tanh", "softmax"]
    assert chips.label == catalog("en")["builder.common_choices"].format(name="activation")
    assert len(_by_key_end(at.selectbox, ACTIVATION).options) == 32   # the list keeps all
    assert _state(at)[:3] == ("linear", "linear", "linear")

    chips.set_value("relu").run()
    chip, box, spec_value, code = _state(at)
    assert (chip, box, spec_value) == ("relu", "relu", "relu")
    assert "activation='relu'" in code
    assert at.session_state["builder.spec"].layers[0].config["activation"] == "relu"

    _by_key_end(at.selectbox, ACTIVATION).set_value("gelu").run()
    chip, box, spec_value, code = _state(at)
    assert (chip, box, spec_value) == (None, "gelu", "gelu")   # not a common one: no chip
    assert "activation='gelu'" in code

    _by_key_end(at.selectbox, ACTIVATION).set_value("tanh").run()
    assert _state(at)[:3] == ("tanh", "tanh", "tanh")

    # clicking the highlighted chip deselects it in the browser: the value stays
    _by_key_end(at.button_group, ACTIVATION + ".quick").unselect("tanh").run()
    assert _state(at)[:3] == ("tanh", "tanh", "tanh")
    _by_key_end(at.button_group, ACTIVATION + ".quick").set_value("softmax").run()
    assert _state(at)[:3] == ("softmax", "softmax", "softmax")
    assert not doubly_set, doubly_set
    assert_clean(at, "en")


def test_chips_in_chinese_and_a_model_with_no_typing(doubly_set) -> None:
    at = _one_dense("zh")
    chips = _by_key_end(at.button_group, ACTIVATION + ".quick")
    assert chips.label == catalog("zh")["builder.common_choices"].format(name="activation")
    chips.set_value("sigmoid").run()
    assert _state(at)[:3] == ("sigmoid", "sigmoid", "sigmoid")
    _by_key_end(at.button_group, ACTIVATION + ".quick").set_value(None).run()
    assert _state(at)[:3] == ("sigmoid", "sigmoid", "sigmoid")
    assert not doubly_set, doubly_set
    assert_clean(at, "zh")


def test_the_spy_sees_a_widget_given_a_default_and_a_state_value(doubly_set) -> None:
    """The check above can fail: a selectbox created with index=1 after its key was set."""
    at = AppTest.from_string(
        "import streamlit as st\n"
        "st.session_state['box'] = 'b'\n"
        "st.selectbox('x', ['a', 'b'], index=1, key='box')\n")
    at.run()
    assert doubly_set == ["box"]
