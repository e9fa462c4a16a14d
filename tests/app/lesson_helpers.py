"""Helpers for the lesson AppTests: open a lesson link in a fresh session, read the state a
page shows (its title, its open tab, the widgets a step's query fills)."""

from __future__ import annotations

from streamlit.proto.Block_pb2 import Block as BlockProto
from streamlit.testing.v1 import AppTest

from tests.app.apptest_helpers import APP
from tfcore.lessons import PAGES, LessonStep
from tfcore.model import get_preset
from ui.common.i18n import catalog
from ui.common.nav import PAGES as NAV
from ui.training.url import PARAMS, TASK

WIDGET_KINDS = ("selectbox", "radio", "number_input", "slider", "select_slider", "checkbox",
                "multiselect", "text_input", "toggle")
# the widget that shows a non-Train page's ``preset`` parameter
PRESET_WIDGETS = {"builder": "bld.start", "weights": "weights.preset"}


def open_link(query: dict[str, str], lang: str = "en") -> AppTest:
    """A new session (a reload, a shared link) on the app's address with ``query``."""
    at = AppTest.from_file(APP, default_timeout=180)
    at.query_params.update({**query, "lang": lang})
    at.run()
    return at


def page_title(page: str, lang: str = "en") -> str:
    key = next(p.key for p in NAV if p.path == f"app_pages/{page}.py")
    return catalog(lang)[key]


def shown_title(at: AppTest) -> str | None:
    return at.title[0].value if len(at.title) else None


def _blocks(node):
    for child in getattr(node, "children", {}).values():
        yield child
        yield from _blocks(child)


def open_tab(at: AppTest) -> int | None:
    """The index of the tab the page's (first) tab strip opens at, None without tabs."""
    for block in _blocks(at._tree):
        proto = getattr(block, "proto", None)
        if isinstance(proto, BlockProto) and proto.WhichOneof("type") == "tab_container":
            return proto.tab_container.default_tab_index
    return None


def widget(at: AppTest, key: str):
    for kind in WIDGET_KINDS:
        found = [w for w in at.get(kind) if getattr(w, "key", None) == key]
        if found:
            return found[0]
    raise AssertionError(f"no widget with key {key!r} on the page")


def shown_query(at: AppTest, step: LessonStep,
                task: str = "classification") -> dict[str, tuple]:
    """For each parameter of the step's query: (the value it asks for, parsed as the page
    parses its link, the value the page's widget shows)."""
    shown = {}
    for name, text in step.query.items():
        if step.page == "train":
            param = PARAMS[name]
            shown[name] = (param.parse(text), widget(at, param.key.replace(TASK, task)).value)
        else:
            shown[name] = (text, widget(at, PRESET_WIDGETS[step.page]).value)
    return shown


def assert_on_step(at: AppTest, step: LessonStep, lang: str = "en") -> None:
    """No exception; the step's page, its tab and its query's values are what shows."""
    assert not at.exception, [e.value for e in at.exception]
    assert shown_title(at) == page_title(step.page, lang)
    tabs = PAGES[step.page].tabs
    if tabs and (step.tab is not None or open_tab(at) is not None):  # Runs: none without runs
        assert open_tab(at) == tabs.index(step.tab or tabs[0])
    differ = {name: pair for name, pair in shown_query(at, step).items() if pair[0] != pair[1]}
    assert not differ, f"asked for != shown: {differ}"
    if step.page == "builder":                          # the preset is the model edited
        assert at.session_state["builder.draft"] == get_preset(step.query["preset"])
