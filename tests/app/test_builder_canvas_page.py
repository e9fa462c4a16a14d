"""The builder page's Canvas mode through AppTest: it renders the canvas component and the
side panel without error in both languages, and canvas events sent as the component's value
are applied as spec edits (AppTest cannot drive the React component itself; the browser
tests do)."""

from __future__ import annotations

import json

import pytest

from tests.app.apptest_helpers import assert_clean, open_page
from ui.canvas.component import PROTOCOL
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
    assert set(_args(at)) - {"key", "default"} == set(PROTOCOL["args"])   # Streamlit adds two
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


def _args(at) -> dict:
    """What the page sent the canvas component this run (its JSON arguments)."""
    return json.loads(at.get("component_instance")[0].proto.json_args)


def _send(at, *events, token="t2"):
    seq = at.session_state["canvas.ack"]["seq"] if "canvas.ack" in at.session_state \
        and at.session_state["canvas.ack"]["token"] == token else 0
    at.session_state["canvas.events"] = {"token": token, "events": [
        {**e, "seq": seq + n + 1} for n, e in enumerate(events)]}
    at.run()
    assert not at.exception


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_group_on_the_canvas_then_open_the_block_and_edit_inside(lang: str) -> None:
    tr = catalog(lang)
    at = open_page("app_pages/builder.py", lang)
    _canvas(at)                                   # the MLP preset: flatten, dense, logits, softmax
    _send(at, {"op": "group", "names": ["dense", "logits"]})
    spec = at.session_state["builder.draft"]
    assert [e.name for e in spec.layers] == ["flatten", "block", "softmax"]
    # the block's side panel opens it (the canvas's own button sends the same "open")
    _send(at, {"op": "select", "name": "block"})
    open_button = next(b for b in at.button if b.label == tr["blocks.open"])
    open_button.click().run()
    assert at.session_state["bld.open_block"] == ("block",)
    args = _args(at)
    assert args["status"] == tr["canvas.status_block"].format(
        block="block", count=2, params="79,510", total="79,510")
    assert [c["label"] for c in args["trail"]] == [tr["blocks.model"], "block"]
    drawn = {n["id"]: n for n in args["graph"]["nodes"]}
    assert list(drawn) == ["__block_input__", "dense", "logits", "__outputs__"]
    assert drawn["__block_input__"]["name"] == tr["canvas.block_input"]
    assert drawn["__block_input__"]["shape"] == "(None, 784)"
    assert drawn["dense"]["shape"] == "(None, 100)"
    assert drawn["logits"]["params"] == tr["canvas.params"].format(count="1,010")
    assert any("block" in i.value for i in at.info)            # the breadcrumb
    # a Dropout dropped between the two layers of the block, then Dense units edited inside
    _send(at, {"op": "add", "type": "Dropout", "x": 0, "y": 150})
    spec = at.session_state["builder.draft"]
    assert [e.name for e in spec.layer("block").layers] == ["dense", "dropout", "logits"]
    assert at.session_state["canvas.selected"] == "dropout"
    _send(at, {"op": "select", "name": "dense"})
    units = [w for w in at.number_input if w.key and w.key.endswith(".dense.units")][0]
    units.set_value(50).run()
    spec = at.session_state["builder.draft"]
    assert dict(spec.layer("dense").config)["units"] == 50
    total = next(m.value for m in at.metric if m.label == tr["builder.total"])
    assert total == f"{784 * 50 + 50 + 50 * 10 + 10:,}"
    # a model input cannot be dropped into a block: located warning, nothing changed
    _send(at, {"op": "add", "type": "__input__", "x": 0, "y": 0})
    assert at.session_state["builder.draft"] == spec
    assert any(tr["canvas.input_in_block"] in w.value for w in at.warning)
    # back out through the canvas trail, and undo walks back through the edits inside
    _send(at, {"op": "open", "path": []})
    assert at.session_state["bld.open_block"] == ()
    _send(at, {"op": "undo"}, {"op": "undo"})
    spec = at.session_state["builder.draft"]
    assert [e.name for e in spec.layer("block").layers] == ["dense", "logits"]
    assert_clean(at, lang)


def test_opening_what_is_not_a_block_is_refused_with_a_message() -> None:
    at = open_page("app_pages/builder.py", "en")
    _canvas(at)
    before = at.session_state["builder.draft"]
    _send(at, {"op": "open", "name": "dense"})
    assert at.session_state["builder.draft"] == before
    assert any("dense" in w.value for w in at.warning)
    assert _args(at)["trail"] == []
    _send(at, {"op": "open", "path": ["elsewhere"]})          # not on the trail: ignored
    assert not at.warning
    assert _args(at)["trail"] == []


def test_a_bad_value_inside_a_block_outlines_its_node_and_the_counts_read_unknown() -> None:
    tr = catalog("en")
    at = open_page("app_pages/builder.py", "en")
    _canvas(at)
    _send(at, {"op": "group", "names": ["dense", "logits"]}, {"op": "open", "name": "block"},
          {"op": "add", "type": "Dropout", "x": 0, "y": 150})
    rate = [w for w in at.number_input if w.key and w.key.endswith(".dropout.rate")][0]
    rate.set_value(1.5).run()
    assert not at.exception
    args = _args(at)
    assert args["status"] == tr["canvas.status_block"].format(
        block="block", count=3, params="?", total="?")
    node = next(n for n in args["graph"]["nodes"] if n["id"] == "dropout")
    assert "1.5" in node["problem"]
    assert any(e.value.startswith("dropout.rate: 1") for e in at.error)   # located
    rate.set_value(0.5).run()
    assert _args(at)["status"] == tr["canvas.status_block"].format(
        block="block", count=3, params="79,510", total="79,510")


def test_garbage_from_the_component_changes_nothing_and_breaks_nothing() -> None:
    at = open_page("app_pages/builder.py", "zh")
    _canvas(at)
    before = at.session_state["builder.draft"]
    for value in [None, [], "x", {"token": 3, "events": "no"},
                  {"token": "g", "events": [None, 7, {"seq": "1"}, {"op": "open", "seq": 1,
                                                                  "name": ["dense"]},
                                            {"op": "reorder", "seq": 2, "name": {"a": 1}},
                                            {"op": "select", "seq": 3, "name": [1]},
                                            {"op": "open", "seq": 4, "path": "block"}]}]:
        at.session_state["canvas.events"] = value
        at.run()
        assert not at.exception
        assert at.session_state["builder.draft"] == before
    assert_clean(at, "zh")
