"""The builder page's Canvas mode through AppTest: it renders the canvas component and the
side panel without error in both languages, and canvas events sent as the component's value
are applied as spec edits (AppTest cannot drive the React component itself; the browser
tests do)."""

from __future__ import annotations

import pytest

from tests.app.apptest_helpers import assert_clean, open_page
from ui.common.i18n import catalog


def _canvas(at):
    at.radio(key="bld.mode").set_value("canvas").run()
    assert not at.exception
    return at


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_canvas_mode_renders_with_the_mlp_preset(lang: str) -> None:
    at = _canvas(open_page("app_pages/builder.py", lang))
    assert at.session_state["builder.draft"].name == "mlp"
    assert any(s.value == catalog(lang)["canvas.selected"] for s in at.subheader)
    total = catalog(lang)["builder.total"]
    assert next(m.value for m in at.metric if m.label == total) == "79,510"
    assert_clean(at, lang)


def test_canvas_events_are_spec_edits_and_undo_is_one_too() -> None:
    at = open_page("app_pages/builder.py", "en")
    at.selectbox(key="bld.start").set_value("scratch")
    at.button(key="bld.load").click().run()
    _canvas(at)
    events = [{"op": "add", "type": t, "x": 0, "y": 100 * (n + 1), "seq": n + 1}
              for n, t in enumerate(["Flatten", "Dense", "Dense", "Softmax"])]
    at.session_state["canvas.events"] = {"token": "t1", "events": events}
    at.run()
    assert not at.exception
    spec = at.session_state["builder.draft"]
    assert [e.type for e in spec.layers] == ["Flatten", "Dense", "Dense", "Softmax"]
    # the same events again (a rerun of the component's value) are not applied twice
    at.run()
    assert len(at.session_state["builder.draft"].layers) == 4
    # the side panel shows the selected layer's form: Dense(100)
    at.session_state["canvas.events"] = {"token": "t1", "events": [
        {"op": "select", "name": "dense", "seq": 5}]}
    at.run()
    units = [w for w in at.number_input if w.key and w.key.endswith(".dense.units")][0]
    units.set_value(100).run()
    assert dict(at.session_state["builder.draft"].layer("dense").config)["units"] == 100
    at.session_state["canvas.events"] = {"token": "t1", "events": [
        {"op": "undo", "seq": 6}, {"op": "undo", "seq": 7}]}
    at.run()
    assert [e.type for e in at.session_state["builder.draft"].layers] == [
        "Flatten", "Dense", "Dense"]
    at.session_state["canvas.events"] = {"token": "t1", "events": [{"op": "redo", "seq": 8}]}
    at.run()
    assert len(at.session_state["builder.draft"].layers) == 4
    # a refused edit: a located warning, nothing changed
    before = at.session_state["builder.draft"]
    at.session_state["canvas.events"] = {"token": "t1", "events": [
        {"op": "add", "type": "NoSuchLayer", "x": 0, "y": 0, "seq": 9}]}
    at.run()
    assert not at.exception
    assert at.session_state["builder.draft"] == before
    assert any("NoSuchLayer" in w.value for w in at.warning)
