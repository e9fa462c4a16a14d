"""Issue 26, item 6: a page's state is its address. Clicking a tab writes ``?tab=<name>``
(the engine's name, in either language) without making the tabs a new element; a new
session on that address (a reload, a shared link) opens the same tab; "Add this view to a
lesson" captures it; the Runs page and the Weights lab keep their chosen run in ``?run=``.

AppTest has no tab clicks: :func:`click_tab` sends what the browser sends when a tab is
clicked, the tab strip's widget value (the tab's label) under its element id.
"""

from __future__ import annotations

import json

import pytest
from streamlit.proto.Block_pb2 import Block as BlockProto
from streamlit.proto.WidgetStates_pb2 import WidgetState

from streamlit.testing.v1 import AppTest

from tests.app.apptest_helpers import APP, assert_clean, open_page
from tests.app.lesson_helpers import _blocks, open_tab
from tests.unit.fixtures_runs import make_run
from tests.unit.fixtures_weights import make_run as make_weights_run
from tfcore.lessons import PAGES, lessons_dir
from tfcore.workspace import default_workspace
from ui.common.i18n import catalog

LABELS = {"tensors": "foundations.tab.{}", "timing": "timing.tab.{}",
          "builder": "builder.tab.{}", "runs": "runs.tab.{}"}
LABELS_OF = {"builder": {"tryit": "tryit.tab"}}


def label(page: str, name: str, lang: str = "en") -> str:
    key = LABELS_OF.get(page, {}).get(name, LABELS[page].format(name))
    return catalog(lang)[key]


def tab_strip(at):
    """The page's (first) tab strip's proto."""
    for block in _blocks(at._tree):
        proto = getattr(block, "proto", None)
        if isinstance(proto, BlockProto) and proto.WhichOneof("type") == "tab_container":
            return proto.tab_container
    raise AssertionError("no tabs on the page")


def click_tab(at, text: str):
    """Click the tab labelled ``text``: the browser sends the strip's new value."""
    assert text in [tab.label for tab in at.tabs], text
    states = at._tree.get_widget_states()
    states.widgets.append(WidgetState(id=tab_strip(at).id, string_value=text))
    at._run(states)
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.fixture
def run_ids() -> list[str]:
    """Two small runs in this test's workspace."""
    root = default_workspace().ensure().runs
    return [make_run(root, name=f"tabs_{n}", seed=n, steps=4, ckpt_every=2) for n in (0, 1)]


def _open(page: str, lang: str = "en", query: dict | None = None) -> AppTest:
    """A new session on ``/<page>?<query>`` (a reload, a shared link); no query: the page
    opened from the menu."""
    if query is None:
        return open_page(f"app_pages/{page}.py", lang)
    at = AppTest.from_file(APP, default_timeout=180)
    at.query_params.update({**query, "lang": lang})
    at.switch_page(f"app_pages/{page}.py")
    return at.run()


def _link_warnings(at) -> list[str]:
    return [w.value for w in at.warning if "=" in w.value and "link" in w.value.lower()]


@pytest.mark.parametrize("page", ["tensors", "timing", "builder",
                                  "runs"])
def test_a_click_writes_the_tab_and_a_new_session_opens_it(page: str, request) -> None:
    if page == "runs":
        request.getfixturevalue("run_ids")
    names = PAGES[page].tabs
    at = _open(page)
    assert open_tab(at) == 0 and "tab" not in at.query_params
    strip = tab_strip(at).id
    for name in (names[-1], names[1], names[0]):
        click_tab(at, label(page, name))
        assert at.query_params["tab"] == name
        assert open_tab(at) == names.index(name)
        assert tab_strip(at).id == strip                  # the same element: no flash
    click_tab(at, label(page, names[2]))
    at.run()                                              # any other rerun keeps it
    assert (at.query_params["tab"], open_tab(at)) == (names[2], 2)

    fresh = _open(page, query={"tab": names[2]})          # a reload, a shared link
    assert not fresh.exception, [e.value for e in fresh.exception]
    assert open_tab(fresh) == 2 and not _link_warnings(fresh)
    assert [tab.label for tab in fresh.tabs][:len(names)] == [label(page, n) for n in names]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_address_holds_the_name_in_either_language_and_a_link_moves_the_tab(
        lang: str) -> None:
    at = open_page("app_pages/tensors.py", lang)
    click_tab(at, label("tensors", "gd", lang))
    assert at.query_params["tab"] == "gd"                 # the name, not 梯度下降...
    strip = tab_strip(at).id
    at.query_params["tab"] = "save"                       # a step on the same page
    at.run()
    assert open_tab(at) == 3 and tab_strip(at).id == strip
    at.query_params["tab"] = "graph"                      # a stale link: located, ignored
    at.run()
    (warning,) = [w.value for w in at.warning]
    assert warning == catalog(lang)["links.ignored"].format(name="tab", value="graph")
    click_tab(at, label("tensors", "tape", lang))         # a click replaces it
    assert at.query_params["tab"] == "tape" and not at.warning
    assert_clean(at, lang)


def test_the_canvas_builder_links_its_three_tabs() -> None:
    at = open_page("app_pages/builder.py", "en")
    at.radio(key="bld.mode").set_value("canvas").run()
    assert [tab.label for tab in at.tabs][:3] == [label("builder", n)
                                                  for n in ("code", "io", "save")]
    click_tab(at, label("builder", "save"))
    assert at.query_params["tab"] == "save" and open_tab(at) == 2
    at.query_params["tab"] = "tryit"          # the page's tab, not in this view: no warning
    at.run()
    assert open_tab(at) == 2 and not at.warning and not at.exception   # it stays


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_clicked_tab_is_captured_into_a_lesson_step(lang: str) -> None:
    at = open_page("app_pages/tensors.py", lang)   # (AppTest formats the Timing page's
    click_tab(at, label("tensors", "gd", lang))     # choices in English only)
    at.selectbox(key="lessons.add.lesson").set_value("").run()
    at.text_input(key="lessons.add.name").set_value(f"tabs_{lang}").run()
    at.button(key="lessons.add.go").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    saved = json.loads((lessons_dir(default_workspace()) / f"tabs_{lang}.json")
                       .read_text("utf-8"))
    assert [(s["page"], s["tab"]) for s in saved["steps"]] == [("tensors", "gd")]


def test_the_runs_page_keeps_its_run_in_the_address(run_ids: list[str]) -> None:
    first, second = run_ids
    at = _open("runs")
    chosen = at.selectbox(key="runs.detail.run").value
    assert at.query_params["run"] == chosen
    at.selectbox(key="runs.detail.run").set_value(second).run()
    assert at.query_params["run"] == second
    at.selectbox(key="runs.detail.run").set_value(first).run()
    assert at.query_params["run"] == first                # not pulled back to the link
    assert at.selectbox(key="runs.detail.run").value == first

    fresh = _open("runs", query={"run": second, "tab": "ckpts"})
    assert fresh.selectbox(key="runs.detail.run").value == second
    assert open_tab(fresh) == PAGES["runs"].tabs.index("ckpts")
    assert not _link_warnings(fresh)

    stale = _open("runs", query={"run": "gone_run"})     # a deleted run: located, ignored
    words = catalog("en")
    refused = words["links.ignored"].format(name="run", value="gone_run")
    assert refused in [w.value for w in stale.warning]
    assert stale.query_params["run"] == stale.selectbox(key="runs.detail.run").value
    stale.run()                   # a rerun keeps it, though the address holds a listed run
    assert refused in [w.value for w in stale.warning]
    stale.switch_page("app_pages/home.py").run()      # another page forgets it
    stale.switch_page("app_pages/runs.py").run()
    assert refused not in [w.value for w in stale.warning]


def test_the_weights_lab_keeps_its_run_in_the_address() -> None:
    runs = default_workspace().ensure().runs
    make_weights_run(runs / "weights_a", steps=(5, 9))
    make_weights_run(runs / "weights_b", steps=(3,))
    at = _open("weights")
    assert "run" not in at.query_params
    at.radio(key="weights.origin").set_value("run").run()
    at.selectbox(key="weights.run").set_value("weights_b").run()
    assert at.query_params["run"] == "weights_b"

    fresh = _open("weights", query={"run": "weights_b"})   # a reload, a shared link
    assert not fresh.exception, [e.value for e in fresh.exception]
    assert fresh.radio(key="weights.origin").value == "run"
    assert fresh.selectbox(key="weights.run").value == "weights_b"
    fresh.selectbox(key="weights.run").set_value("weights_a").run()
    assert fresh.query_params["run"] == "weights_a"         # the person's choice stays
    assert fresh.selectbox(key="weights.run").value == "weights_a"
    fresh.radio(key="weights.origin").set_value("model").run()
    assert "run" not in fresh.query_params                  # a model: no run in the address

    stale = _open("weights", query={"run": "gone"})
    assert catalog("en")["links.ignored"].format(name="run", value="gone") in [
        w.value for w in stale.warning]
    assert stale.radio(key="weights.origin").value == "model" and not stale.exception
