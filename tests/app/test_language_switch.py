"""A language switch relabels every choice on the page, in the browser too.

A keyed selectbox or radio travels to the browser as the formatted label of its value and
keeps its identity when its labels change. Before the fix, switching 中文 -> English left
the builder's "Start from" box showing 手写数字多层感知机（M3） and its radios with nothing
selected: the server never sent the values again. Now the switch sends each one again, in
the new language, and changes none of them."""

from __future__ import annotations

import pytest

from tests.app.apptest_helpers import open_page
from ui.common.i18n import WIDGET_KEY, catalog


def _choices(at) -> dict:
    return {w.key: w for w in list(at.selectbox) + list(at.radio) + list(at.multiselect)
            if w.key and not str(w.key).startswith(WIDGET_KEY)}


def _sent_label(widget) -> list[str]:
    proto = widget.proto
    if hasattr(proto, "raw_values") and not hasattr(proto, "raw_value"):
        return list(proto.raw_values)
    return [proto.raw_value]


def _switch(at, lang: str) -> None:
    box = [w for w in at.sidebar.selectbox if str(w.key).startswith(WIDGET_KEY)][0]
    box.set_value(lang).run()


@pytest.mark.parametrize("page,before,after", [
    ("app_pages/builder.py", "zh", "en"),
    ("app_pages/train.py", "en", "zh"),
])
def test_every_choice_is_sent_again_in_the_new_language(page: str, before: str,
                                                        after: str) -> None:
    at = open_page(page, before)
    values = {k: w.value for k, w in _choices(at).items()}
    assert len(values) >= 3, f"{page} shows too few choices to test: {sorted(values)}"
    _switch(at, after)
    assert at.session_state["lang"] == after
    shown = _choices(at)
    assert {k: shown[k].value for k in values if k in shown} == \
        {k: v for k, v in values.items() if k in shown}, "the switch changed a choice"
    stale = []
    for key, widget in shown.items():
        if widget.value in (None, []):
            continue
        labels = _sent_label(widget)
        if not widget.proto.set_value or not all(x in widget.proto.options for x in labels):
            stale.append((key, widget.proto.set_value, labels))
    assert not stale, f"choices the browser would still show in {before!r}: {stale}"


def test_the_builder_start_box_reads_the_new_language() -> None:
    at = open_page("app_pages/builder.py", "zh")
    _switch(at, "en")
    box = at.selectbox(key="bld.start")
    assert box.proto.set_value
    assert box.proto.raw_value == catalog("en")["preset.mlp"].format(scenario="M3")
