"""The model canvas at 1280x800 (issue 23 item 9), in English and Chinese: the graph takes
most of the page with the side panel closed and the whole screen in full screen (Escape
leaves); fit-view keeps a long model's node text readable; dropped and re-used nodes land
on free places; each node shows its activation;
Ctrl+Z / Ctrl+Shift+Z work with the focus anywhere on the builder page, and the Undo /
Redo buttons say their shortcuts.

Each behaviour runs in one language, the two languages alternating (Chinese where its
longer node labels make the check stricter: fit-view, auto layout, the activation text):
the canvas's behaviour does not depend on the language, and a run per language doubled
the module's 230 s. Whether a page is cut in either language is
``test_no_cutoff_browser.py``'s check, in both."""

from __future__ import annotations

import json

import pytest

from tests.browser.conftest import act_and_wait, click_and_wait, select_tab, wait_idle
from tests.browser.waits import set_toggle
from tests.browser.test_canvas_browser import (
    NODE,
    _add,
    _center,
    _drag,
    _frame,
    _node,
    _open_canvas,
    _select,
    _status,
)
from ui.common.i18n import catalog

WIDTH, HEIGHT = 1280, 800
READABLE_PX = 11

# The smallest text of the canvas's nodes as drawn on the screen (its CSS size times the
# pane's zoom), in px.
SMALLEST_TEXT_JS = """() => {
  let smallest = Infinity;
  for (const node of document.querySelectorAll("[data-testid='canvas-node']")) {
    const zoom = node.getBoundingClientRect().width / node.offsetWidth;
    for (const el of [node, ...node.querySelectorAll('*')]) {
      const own = [...el.childNodes].some(c => c.nodeType === 3 && c.textContent.trim());
      if (own) smallest = Math.min(smallest, parseFloat(getComputedStyle(el).fontSize) * zoom);
    }
  }
  return smallest;
}"""

# The nodes whose boxes are not wholly inside the canvas's drawing area (the pane under the
# toolbar), as "name: box" lines.
OUT_OF_VIEW_JS = """() => {
  const pane = document.querySelector('.tfl-flow').getBoundingClientRect();
  return [...document.querySelectorAll("[data-testid='canvas-node']")]
    .map(n => [n.dataset.name, n.getBoundingClientRect()])
    .filter(([, b]) => b.left < pane.left - 0.5 || b.right > pane.right + 0.5
                       || b.top < pane.top - 0.5 || b.bottom > pane.bottom + 0.5)
    .map(([name, b]) => `${name}: ${Math.round(b.left)},${Math.round(b.top)}-`
                        + `${Math.round(b.right)},${Math.round(b.bottom)} outside `
                        + `${Math.round(pane.left)},${Math.round(pane.top)}-`
                        + `${Math.round(pane.right)},${Math.round(pane.bottom)}`);
}"""

# The pairs of nodes whose boxes overlap.
OVERLAPS_JS = """() => {
  const boxes = [...document.querySelectorAll("[data-testid='canvas-node']")]
    .map(n => [n.dataset.name, n.getBoundingClientRect()]);
  const out = [];
  boxes.forEach(([a, p], i) => boxes.slice(i + 1).forEach(([b, q]) => {
    if (p.left < q.right && q.left < p.right && p.top < q.bottom && q.top < p.bottom)
      out.push(a + '/' + b);
  }));
  return out;
}"""


def _canvas(page, server: str, lang: str, tr: dict):
    """The builder at 1280x800 in Canvas mode (this session's model: the MLP preset)."""
    page.set_viewport_size({"width": WIDTH, "height": HEIGHT})
    page.goto(f"{server}/builder?lang={lang}")
    wait_idle(page)
    click_and_wait(page, page.locator("[data-testid='stRadio']").first.get_by_text(
        tr["canvas.mode.canvas"], exact=True), page.get_by_text(tr["canvas.selected"],
                                                                 exact=True))
    return _in_view(page)


def _in_view(page):
    """The canvas scrolled into the window (at 1280x800 it starts below the fold); its
    frame."""
    page.locator("[data-testid='stCustomComponentV1']").first.scroll_into_view_if_needed()
    return _frame(page)


def _box(locator) -> dict:
    box = locator.bounding_box()
    assert box is not None
    return box


@pytest.mark.parametrize("lang", ["en"])
def test_the_canvas_takes_the_page_with_the_panels_closed_and_goes_full_screen(
        server: str, page, lang: str) -> None:
    tr = catalog(lang)
    frame = _canvas(page, server, lang, tr)
    page.locator("[data-testid='stSidebar']").hover()
    page.locator("[data-testid='stSidebarCollapseButton'] button").click()
    page.locator("[data-testid='stSidebar'][data-collapsed='true']").wait_for(state="attached")
    set_toggle(page, tr["canvas.side_panel"], False)
    frame = _frame(page)
    frame.wait_for_function(f"() => document.querySelector('.tfl-flow')"
                            f".getBoundingClientRect().width >= {0.7 * WIDTH}")
    assert _box(frame.locator(".tfl-flow"))["width"] >= 0.7 * WIDTH
    # full screen: the canvas fills the viewport; Escape brings it back
    button = frame.get_by_role("button", name=tr["canvas.full_screen"])
    button.click()
    page.wait_for_function("() => document.fullscreenElement?.tagName === 'IFRAME'")
    frame.get_by_role("button", name=tr["canvas.exit_full_screen"]).wait_for()
    frame.wait_for_function(f"() => {{ const b = document.querySelector('.tfl-flow')"
                            f".getBoundingClientRect(); return b.height >= "
                            f"{0.85 * HEIGHT} && b.width >= {0.8 * WIDTH}; }}")
    root = _box(frame.locator("[data-testid='canvas-root']"))
    assert root["width"] >= WIDTH - 2 and root["height"] >= HEIGHT - 2
    page.keyboard.press("Escape")
    page.wait_for_function("() => !document.fullscreenElement")
    button.wait_for()
    frame.wait_for_function(f"() => document.querySelector(\"[data-testid='canvas-root']\")"
                            f".getBoundingClientRect().height < {HEIGHT}")


def _long_model(layers: int) -> str:
    return json.dumps({"name": "long", "kind": "sequential",
                       "inputs": [{"name": "x", "shape": [8]}],
                       "layers": [{"name": f"d{n}", "type": "Dense",
                                   "config": {"units": 8, "activation": "relu"}}
                                  for n in range(layers)]})


@pytest.mark.parametrize("lang", ["zh"])
def test_fit_view_keeps_the_text_of_a_long_model_readable(server: str, page,
                                                           lang: str) -> None:
    tr = catalog(lang)
    frame = _canvas(page, server, lang, tr)
    panel = select_tab(page, tr["builder.tab.io"])
    panel.get_by_label(tr["builder.paste_json"]).fill(_long_model(30))
    click_and_wait(page, panel.get_by_role("button", name=tr["builder.load_json"]))
    frame = _frame(page)
    _status(frame, tr["canvas.status"].format(count=30, total="2,160"))
    frame.locator(".react-flow__controls-fitview").click()
    _node(frame, "d0").wait_for()
    smallest = frame.evaluate(SMALLEST_TEXT_JS)
    assert smallest >= READABLE_PX, f"fit-view drew node text at {smallest:.1f} px"


@pytest.mark.parametrize("lang", ["zh"])
def test_auto_layout_keeps_every_node_of_a_long_model_in_view_and_readable(
        server: str, page, lang: str) -> None:
    tr, layers = catalog(lang), 30
    _canvas(page, server, lang, tr)
    set_toggle(page, tr["canvas.side_panel"], False)  # room
    panel = select_tab(page, tr["builder.tab.io"])
    panel.get_by_label(tr["builder.paste_json"]).fill(_long_model(layers))
    click_and_wait(page, panel.get_by_role("button", name=tr["builder.load_json"]))
    frame = _frame(page)
    _status(frame, tr["canvas.status"].format(count=layers, total=f"{layers * 72:,}"))
    before = _box(frame.locator("[data-testid='canvas-root']"))["height"]
    assert frame.evaluate(OUT_OF_VIEW_JS)          # too long for the pane as it was
    frame.get_by_role("button", name=tr["canvas.auto_layout"]).click()
    frame.wait_for_function(f"() => ({OUT_OF_VIEW_JS})().length === 0")
    _in_view(page)
    assert frame.evaluate(OUT_OF_VIEW_JS) == []
    assert frame.evaluate(OVERLAPS_JS) == []
    smallest = frame.evaluate(SMALLEST_TEXT_JS)
    assert smallest >= READABLE_PX, f"auto-layout drew node text at {smallest:.1f} px"
    # the canvas grew (the page scrolls), at most 2.5 window heights
    after = _box(frame.locator("[data-testid='canvas-root']"))["height"]
    assert before < after <= 2.5 * HEIGHT
    frame_box = _box(page.locator("[data-testid='stCustomComponentV1']").first)
    assert frame_box["height"] >= after


@pytest.mark.parametrize("lang", ["en"])
def test_dropped_and_reused_nodes_land_apart(
        server: str, page, lang: str) -> None:
    tr = catalog(lang)
    _open_canvas(page, server, lang, tr)                    # an empty model
    page.set_viewport_size({"width": WIDTH, "height": HEIGHT})
    click_and_wait(page, page.locator("[data-testid='stRadio']").filter(
        has_text=tr["builder.kind"]).get_by_text(tr["builder.kind.functional"], exact=True),
        _frame(page).locator(".tfl-item[data-type='__input__']"))
    set_toggle(page, tr["canvas.side_panel"], False)  # room
    frame = _in_view(page)
    for n, name in enumerate(["dense", "dense_2", "dense_3"]):     # all on one spot
        _add(page, frame, tr, "Dense", (0.5, 0.5), name)
        assert frame.evaluate(OVERLAPS_JS) == [], f"drop {n + 1}"
    frame.locator(".react-flow__controls-fitview").click()
    # dense_2 -> dense: dense has its input already, so it is applied again (a re-use)
    edges = frame.locator(".react-flow__edge")
    for source, target in [("input", "dense"), ("dense", "dense_3"), ("dense_2", "dense")]:
        before = edges.count()
        _drag(page, _center(_node(frame, source).locator(".react-flow__handle-bottom")),
              _center(_node(frame, target).locator(".react-flow__handle-top")))
        frame.wait_for_function(f"() => document.querySelectorAll('.react-flow__edge')"
                                f".length > {before}")
        wait_idle(page)
    _node(frame, "dense_again").wait_for()
    assert frame.evaluate(OVERLAPS_JS) == []
    assert frame.locator(NODE).count() == 6        # input, 3 Dense, the re-use, outputs


@pytest.mark.parametrize("lang", ["zh"])
def test_each_node_shows_its_activation(server: str, page, lang: str) -> None:
    tr = catalog(lang)
    frame = _canvas(page, server, lang, tr)
    types = {name: _node(frame, name).locator(".tfl-type").inner_text()
             for name in ("dense", "logits")}        # zh: "全连接层 Dense 100 · relu"
    assert types["dense"].endswith("Dense 100 · relu"), types
    assert types["logits"].endswith("Dense 10 · linear"), types


@pytest.mark.parametrize("lang", ["en"])
def test_undo_and_redo_keys_work_with_the_focus_anywhere_on_the_builder_page(
        server: str, page, lang: str) -> None:
    tr = catalog(lang)
    frame = _canvas(page, server, lang, tr)
    undo, redo = frame.locator("[data-testid='canvas-undo']"), frame.locator(
        "[data-testid='canvas-redo']")
    assert (undo.inner_text(), redo.inner_text()) == (tr["canvas.undo"], tr["canvas.redo"])
    assert "Ctrl+Z" in undo.get_attribute("title")
    assert "Ctrl+Shift+Z" in redo.get_attribute("title")
    assert undo.get_attribute("title") == tr["canvas.undo_tip"]
    _select(page, frame, "logits")
    frame.locator("[data-testid='canvas-pane']").press("Delete")
    _status(frame, tr["canvas.status"].format(count=3, total="78,500"))
    wait_idle(page)
    # the focus on the page, outside the canvas: the title clicked
    page.get_by_role("heading", name=tr["builder.title"]).click()
    assert page.evaluate("() => document.activeElement.tagName") != "IFRAME"
    act_and_wait(page, lambda: page.keyboard.press("Control+z"),
                 frame.locator(f"{NODE}[data-name='logits']"))
    _status(frame, tr["canvas.status"].format(count=4, total="79,510"))
    act_and_wait(page, lambda: page.keyboard.press("Control+Shift+z"),
                 frame.get_by_text(tr["canvas.status"].format(count=3, total="78,500")))
    assert _node(frame, "logits").count() == 0
    click_and_wait(page, undo, frame.locator(f"{NODE}[data-name='logits']"))
    _status(frame, tr["canvas.status"].format(count=4, total="79,510"))
