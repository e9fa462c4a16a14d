"""The weights lab's variable selector after the model changes: a variable of the new model,
shown with the new model's label (path and shape), in the browser as in the session.

A browser keeps drawing a keyed selectbox with the label it last showed until the server
sends a value (``set_value`` with ``raw_value`` in the widget's message): the widget keeps
its id when only its options change. ``_drawn`` follows that rule, so these tests see
what a person sees, not only what the session holds.
"""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests.app.apptest_helpers import assert_clean, open_page
from ui.common.i18n import catalog

PAGE = "app_pages/weights.py"
EN = catalog("en")


def _box(at: AppTest):
    """The variable selectbox, found by its label."""
    return next(b for b in at.selectbox if b.label == EN["weights.inspect.variable"])


def _drawn(at: AppTest, before: tuple[str, str]) -> tuple[str, str]:
    """The (widget id, label) the browser shows after a run, given what it showed before:
    the value the server sent, else the same label while the widget keeps its id."""
    box = _box(at)
    if box.proto.set_value:
        return box.id, box.proto.raw_value
    assert box.id == before[0], "a new widget id: the browser would draw its default"
    return before


def _pick(at: AppTest, path: str) -> tuple[str, str]:
    """A person picks ``path``: the browser shows the option they clicked."""
    box = _box(at)
    label = box.options[[o.split("  ")[0] for o in box.options].index(path)]
    box.set_value(path).run()
    assert _box(at).value == path
    return _box(at).id, label


def _switch(at: AppTest, preset: str, before: tuple[str, str]) -> str:
    at.selectbox(key="weights.preset").set_value(preset).run()
    assert_clean(at, "en")
    return _drawn(at, before)[1]


def _editing(at: AppTest) -> list[str]:
    prefix = EN["weights.edit.target"].split("{")[0]
    return [c.value for c in at.caption if c.value.startswith(prefix)]


def test_mlp_to_cnn_keeps_the_path_and_shows_the_cnn_shape() -> None:
    at = open_page(PAGE, "en")
    before = _pick(at, "logits/kernel")
    assert before[1] == "logits/kernel  (100, 10)"

    shown = _switch(at, "cnn", before)
    box = _box(at)
    assert box.value == "logits/kernel"
    assert shown == "logits/kernel  (1024, 10)"   # the CNN's logits take 1024 inputs
    assert shown == box.options[box.index]
    assert box.options[0] == "conv1/kernel  (5, 5, 1, 32)"
    assert _editing(at) == [EN["weights.edit.target"].format(path="logits/kernel",
                                                             shape="(1024, 10)")]


def test_a_path_the_new_model_lacks_falls_back_to_its_first_variable() -> None:
    at = open_page(PAGE, "en")
    at.selectbox(key="weights.preset").set_value("cnn").run()
    before = _pick(at, "conv2/kernel")
    assert before[1] == "conv2/kernel  (5, 5, 32, 64)"

    shown = _switch(at, "mlp", before)
    assert _box(at).value == "dense/kernel"
    assert shown == "dense/kernel  (784, 100)"
    shown = _switch(at, "tied", (_box(at).id, shown))
    assert _box(at).value == "shared/kernel"
    assert shown == "shared/kernel  (4, 4)"
    assert _editing(at) == [EN["weights.edit.target"].format(path="shared/kernel",
                                                             shape="(4, 4)")]


def test_a_pick_on_the_same_model_is_left_as_the_person_made_it() -> None:
    at = open_page(PAGE, "en")
    before = _pick(at, "dense/bias")
    at.toggle(key="weights.act.show").set_value(True).run()   # any rerun, same model
    assert _box(at).value == "dense/bias"
    assert _drawn(at, before) == before
