"""The model canvas in a real browser, with real mouse gestures (mouse down/move/up) and no
typing except numbers (lists and chips are clicked): the MLP from an empty canvas (79,510
parameters) and undo three steps; a Functional model with a branch, an Add merge and a
shared layer whose exported code runs; two layers grouped into a block, the block opened
and a layer dropped inside it. Each flow runs in one language, the two alternating (the
canvas's gestures do not depend on it; a run per language cost 160 s more)."""

from __future__ import annotations

import pytest

from tests.browser.conftest import (
    click_and_wait,
    click_chip,
    fill_and_wait,
    pick_option,
    select_tab,
    wait_idle,
)
from tests.browser.waits import set_toggle
from tfcore.model import get_type
from ui.common.i18n import catalog

NODE = "[data-testid='canvas-node']"


def _frame(page):
    """The canvas iframe's content (it renders once Streamlit sent the first args)."""
    handle = page.locator("[data-testid='stCustomComponentV1']").first.element_handle()
    frame = handle.content_frame()
    frame.wait_for_selector("[data-testid='canvas-pane']")
    return frame


def _center(locator) -> tuple[float, float]:
    box = locator.bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def _drag(page, start: tuple[float, float], end: tuple[float, float],
          held=None) -> None:
    """Press, move in steps, release; ``held()`` (a wait for a state) runs before the
    release: a dragged node follows the pointer on the next animation frame."""
    page.mouse.move(*start)
    page.mouse.down()
    page.mouse.move(start[0] + 3, start[1] + 3, steps=2)     # past the drag threshold
    page.mouse.move((start[0] + end[0]) / 2, (start[1] + end[1]) / 2, steps=10)
    page.mouse.move(*end, steps=10)
    if held is not None:
        held()
    page.mouse.up()


def _node(frame, name: str):
    return frame.locator(f"{NODE}[data-name='{name}']")


def _open_canvas(page, server: str, lang: str, tr: dict):
    page.set_viewport_size({"width": 1400, "height": 1400})   # the whole canvas in view
    page.goto(f"{server}/builder?lang={lang}")
    wait_idle(page)
    pick_option(page, page.get_by_label(tr["builder.start"], exact=True).first,
                tr["builder.scratch"])
    click_and_wait(page, page.get_by_role("button", name=tr["builder.load"], exact=True))
    click_and_wait(page, page.locator("[data-testid='stRadio']").first.get_by_text(
        tr["canvas.mode.canvas"], exact=True), page.get_by_text(tr["canvas.selected"],
                                                                 exact=True))
    return _frame(page)


def _add(page, frame, tr: dict, type_name: str, at: tuple[float, float], name: str) -> None:
    """Drag a type from the palette (opening its family first: a click) to a pane point
    given as fractions of the pane; wait for the node to be drawn."""
    item = frame.locator(f".tfl-item[data-type='{type_name}']")
    if not item.is_visible():
        family = get_type(type_name).category
        frame.locator("summary", has_text=tr[f"builder.category.{family}"]).first.click()
    box = frame.locator(".tfl-flow").bounding_box()
    end = (box["x"] + box["width"] * at[0], box["y"] + box["height"] * at[1])
    _drag(page, _center(item), end)
    _node(frame, name).wait_for()
    wait_idle(page)


def _select(page, frame, name: str) -> None:
    """Click a node; the side panel then shows its form (its name in the name box)."""
    page.mouse.click(*_center(_node(frame, name).locator(".tfl-name")))
    page.wait_for_function("n => [...document.querySelectorAll(\"[data-testid='stTextInput']"
                           " input\")].some(i => i.value === n)", arg=name)
    wait_idle(page)


def _exported_model(page, tr: dict):
    """Run the code the Code tab shows; return the Keras model its build_model() makes."""
    panel = select_tab(page, tr["builder.tab.code"])
    code = panel.locator("[data-testid='stCode']").first.inner_text()
    namespace: dict = {}
    exec(compile(code, "canvas_model.py", "exec"), namespace)   # noqa: S102 - our code
    return namespace["build_model"]()


def _status(frame, text: str) -> None:
    frame.locator("[data-testid='canvas-status']", has_text=text).wait_for()


@pytest.mark.parametrize("lang", ["en"])
def test_build_the_mlp_on_the_canvas_then_undo_three_steps(server: str, page,
                                                           lang: str) -> None:
    tr = catalog(lang)
    frame = _open_canvas(page, server, lang, tr)
    for type_name, name in [("Flatten", "flatten"), ("Dense", "dense"),
                            ("Dense", "dense_2"), ("Softmax", "softmax")]:
        _add(page, frame, tr, type_name, (0.5, 0.97), name)   # below the stack: appended
    names = frame.locator(NODE).evaluate_all("ns => ns.map(n => n.dataset.name)")
    assert names.index("flatten") < names.index("dense") < names.index("dense_2") \
        < names.index("softmax")
    _select(page, frame, "dense")
    units = page.get_by_label(tr["builder.param"].format(name="units"), exact=True).first
    fill_and_wait(page, units, 100, expect=None)
    _node(frame, "dense").locator(".tfl-params",
                                  has_text=tr["canvas.params"].format(count="78,500")).wait_for()
    click_chip(page, tr["builder.common_choices"].format(name="activation"), "relu")
    _status(frame, tr["canvas.status"].format(count=4, total="79,510"))
    total = page.locator("[data-testid='stMetric']").filter(has_text=tr["builder.total"])
    total.filter(has_text="79,510").wait_for()
    # undo three steps with Ctrl+Z on the canvas: relu, units 100, the Softmax
    page.mouse.click(*_center(frame.locator(".tfl-toolbar")))   # focus the canvas
    for _ in range(3):
        frame.locator("[data-testid='canvas-pane']").press("Control+z")
    _status(frame, tr["canvas.status"].format(count=3, total="7,960"))
    assert _node(frame, "softmax").count() == 0
    frame.locator("[data-testid='canvas-pane']").press("Control+Shift+z")
    _status(frame, tr["canvas.status"].format(count=4, total="7,960"))
    wait_idle(page)
    # the stack is reordered by dragging: softmax above flatten becomes the first layer
    above = ("names => { const y = n => document.querySelector("
             "`[data-testid='canvas-node'][data-name='${n}']`).getBoundingClientRect().top;"
             " return y(names[0]) < y(names[1]); }")
    flatten = _node(frame, "flatten").bounding_box()
    _drag(page, _center(_node(frame, "softmax").locator(".tfl-name")),
          (flatten["x"] + flatten["width"] / 2, flatten["y"] - 10),
          held=lambda: frame.wait_for_function(above, arg=["softmax", "flatten"],
                                               timeout=30_000))
    _node(frame, "flatten").locator(".tfl-shape", has_text="(None, 784)").wait_for()
    frame.locator(f"{NODE}[data-name='softmax'] .tfl-shape",
                  has_text="(None, 28, 28, 1)").wait_for()   # softmax now takes the input
    wait_idle(page)
    names = frame.locator(NODE).evaluate_all("ns => ns.map(n => n.dataset.name)")
    assert names.index("softmax") < names.index("flatten")      # the spec's order changed


def _handle(frame, name: str, side: str):
    return _node(frame, name).locator(f".react-flow__handle-{side}")


def _connect(page, frame, source: str, target: str, edges: int) -> None:
    """Drag from source's output handle to target's input handle; wait for the edge."""
    _drag(page, _center(_handle(frame, source, "bottom")), _center(_handle(frame, target, "top")))
    frame.wait_for_function(f"() => document.querySelectorAll('.react-flow__edge').length "
                            f">= {edges}")
    wait_idle(page)


@pytest.mark.parametrize("lang", ["zh"])
def test_functional_branch_merge_shared_layer_delete_and_code(server: str, page,
                                                              lang: str) -> None:
    tr = catalog(lang)
    frame = _open_canvas(page, server, lang, tr)
    click_and_wait(page, page.locator("[data-testid='stRadio']").filter(
        has_text=tr["builder.kind"]).get_by_text(tr["builder.kind.functional"], exact=True),
        frame.locator(".tfl-item[data-type='__input__']"))
    # the side panel below: the canvas spans the page, so fit-view (which keeps node text
    # readable) shows the whole graph
    set_toggle(page, tr["canvas.side_panel"], False)
    frame = _frame(page)
    _select(page, frame, "input")
    fill_and_wait(page, page.get_by_label(tr["builder.input_shape"], exact=True).first, 10)
    _node(frame, "input").locator(".tfl-shape", has_text="(None, 10)").wait_for()
    pane = frame.locator(".tfl-flow").bounding_box()

    def at(fx: float, fy: float) -> tuple[float, float]:
        return pane["x"] + pane["width"] * fx, pane["y"] + pane["height"] * fy

    _drag(page, _center(_node(frame, "__outputs__").locator(".tfl-name")), at(0.75, 0.85))
    wait_idle(page)
    for type_name, name, spot in [("Dense", "dense", (0.2, 0.3)), ("Dense", "dense_2",
                                  (0.12, 0.55)), ("Dense", "dense_3", (0.45, 0.55)),
                                  ("Add", "add", (0.2, 0.8))]:
        _add(page, frame, tr, type_name, spot, name)
    frame.locator(".react-flow__controls-fitview").click()     # every node in view
    for n, (source, target) in enumerate([("input", "dense"), ("dense", "dense_2"),
                                          ("dense", "dense_3"), ("dense_2", "add"),
                                          ("dense_3", "add")]):
        _connect(page, frame, source, target, n + 1)
    # add -> dense: dense already has its input, so it is applied again (shared weights)
    _connect(page, frame, "add", "dense", 7)      # the new data edge and the "shares" edge
    _node(frame, "dense_again").wait_for()
    frame.locator(".react-flow__controls-fitview").click()
    _connect(page, frame, "dense_again", "__outputs__", 8)
    _status(frame, tr["canvas.status"].format(count=5, total="330"))
    shares = frame.locator(".react-flow__edge.tfl-shares-edge")
    assert shares.count() == 1
    assert frame.locator(".react-flow__edge-text", has_text=tr["canvas.shares"]).count() == 1
    assert frame.locator(f"{NODE}.tfl-bad").count() == 0
    # auto-layout (dagre): the graph reads top to bottom, input first, outputs last

    order = ["input", "dense", "dense_2", "add", "__outputs__"]
    laid_out = ("names => { const y = n => document.querySelector("
                "`[data-testid='canvas-node'][data-name='${n}']`).getBoundingClientRect().top;"
                " return names.every((n, i) => i === 0 || y(names[i - 1]) < y(n)); }")
    assert not frame.evaluate(laid_out, order)     # input was dropped below dense
    frame.get_by_role("button", name=tr["canvas.auto_layout"]).click()
    frame.wait_for_function(laid_out, arg=order)
    wait_idle(page)
    # the exported code runs and has the same parameters
    model = _exported_model(page, tr)
    assert model.count_params() == 330
    assert len(model.get_layer("dense")._inbound_nodes) == 2
    # Delete key on a node: the merge loses an input and is outlined red; Ctrl+Z restores
    page.locator("[data-testid='stCustomComponentV1']").first.scroll_into_view_if_needed()
    _select(page, frame, "dense_3")
    frame.locator("[data-testid='canvas-pane']").press("Delete")
    _node(frame, "dense_3").wait_for(state="detached")
    bad = _node(frame, "add")
    frame.locator(f"{NODE}.tfl-bad[data-name='add']").wait_for()
    assert bad.get_attribute("title")
    frame.locator("[data-testid='canvas-pane']").press("Control+z")
    _node(frame, "dense_3").wait_for()
    _status(frame, tr["canvas.status"].format(count=5, total="330"))
    wait_idle(page)


@pytest.mark.parametrize("lang", ["en"])
def test_group_two_layers_on_the_canvas_then_open_the_block_and_add_inside(
        server: str, page, lang: str) -> None:
    tr = catalog(lang)
    page.set_viewport_size({"width": 1400, "height": 1400})
    page.goto(f"{server}/builder?lang={lang}")          # the MLP preset: 79,510 parameters
    wait_idle(page)
    click_and_wait(page, page.locator("[data-testid='stRadio']").first.get_by_text(
        tr["canvas.mode.canvas"], exact=True), page.get_by_text(tr["canvas.selected"],
                                                                 exact=True))
    frame = _frame(page)
    _status(frame, tr["canvas.status"].format(count=4, total="79,510"))
    # click dense, Ctrl+click logits: both selected, and the toolbar offers to group them
    _select(page, frame, "dense")
    page.keyboard.down("Control")
    page.mouse.click(*_center(_node(frame, "logits").locator(".tfl-name")))
    page.keyboard.up("Control")
    group = frame.locator("[data-testid='canvas-group']")
    group.wait_for()
    assert frame.locator(f"{NODE}.tfl-selected").count() == 2
    group.click()
    _node(frame, "block").wait_for()
    _status(frame, tr["canvas.status"].format(count=3, total="79,510"))
    assert _node(frame, "dense").count() == 0            # inside the block now
    wait_idle(page)
    # open the block: its layers as a stack, fed by flatten's (None, 784)
    _node(frame, "block").locator("[data-testid='canvas-open']").click()
    frame.locator("[data-testid='canvas-trail']").wait_for()
    _node(frame, "__block_input__").locator(".tfl-shape", has_text="(None, 784)").wait_for()
    _status(frame, tr["canvas.status_block"].format(block="block", count=2, params="79,510",
                                                    total="79,510"))
    wait_idle(page)
    # drag a Dropout from the palette between dense and logits
    item = frame.locator(".tfl-item[data-type='Dropout']")
    if not item.is_visible():
        family = tr[f"builder.category.{get_type('Dropout').category}"]
        frame.locator("summary", has_text=family).first.click()
    upper, lower = _node(frame, "dense").bounding_box(), _node(frame, "logits").bounding_box()
    gap = (upper["x"] + upper["width"] / 2,
           (upper["y"] + upper["height"] + lower["y"]) / 2 + 20)
    _drag(page, _center(item), gap)
    _node(frame, "dropout").wait_for()
    _status(frame, tr["canvas.status_block"].format(block="block", count=3, params="79,510",
                                                    total="79,510"))
    wait_idle(page)
    names = frame.locator(NODE).evaluate_all("ns => ns.map(n => n.dataset.name)")
    assert names.index("dense") < names.index("dropout") < names.index("logits")
    # back out through the trail: the block lists its three layers
    frame.locator("[data-testid='canvas-crumb']", has_text=tr["blocks.model"]).click()
    _node(frame, "block").locator(".tfl-type", has_text="dense, dropout, logits").wait_for()
    _status(frame, tr["canvas.status"].format(count=3, total="79,510"))
    wait_idle(page)
    model = _exported_model(page, tr)
    assert model.count_params() == 79_510
    assert [layer.name for layer in model.get_layer("block").layers] == [
        "dense", "dropout", "logits"]
