"""The builder in a real browser: a Functional model with a branch, a merge and a shared
layer built by clicking; the diagram renders; the code tab's code runs."""

from __future__ import annotations

from tests.browser.conftest import (
    act_and_wait,
    choose_option,
    click_and_wait,
    click_button,
    select_tab,
    wait_idle,
)
from ui.common.i18n import catalog

EN = catalog("en")


def test_functional_branch_merge_shared_layer_diagram_and_code(server: str, page) -> None:
    page.goto(f"{server}/builder")
    wait_idle(page)
    page.get_by_text(EN["builder.title"], exact=True).first.wait_for()
    choose_option(page, page.get_by_label(EN["builder.start"], exact=True).first,
                  EN["builder.scratch"])
    click_button(page, EN["builder.load"], EN["builder.no_layers"])
    functional = page.locator("[data-testid='stRadio']").filter(
        has_text=EN["builder.kind"]).first.get_by_text(
        EN["builder.kind.functional"], exact=True)
    click_and_wait(page, functional, page.get_by_text(EN["builder.outputs"], exact=True))
    # dense <- input, then dense_2 <- dense (confirm: a lost click is done again)
    click_button(page, EN["builder.add_layer"], "1. dense · Dense", confirm=True)
    click_button(page, EN["builder.add_layer"], "2. dense_2 · Dense", confirm=True)
    # dense_2's own Re-use button (another layer's form may be open too): open its
    # expander if it is closed, which is the browser's own business (no rerun)
    second = page.locator("[data-testid='stExpander']").filter(has_text="2. dense_2 · Dense")
    closed = second.locator("[data-testid='stExpanderDetails']").get_attribute("inert")
    if closed is not None:  # a closed expander's content is inert
        click_and_wait(page, second.get_by_text("2. dense_2 · Dense", exact=True),
                       second.get_by_role("button", name=EN["builder.reuse"], exact=True).first,
                       rerun=False)
    click_button(page, EN["builder.reuse"], "3. dense_2_again · Dense",  # same weights again
                 scope=second, confirm=True)
    choose_option(page, page.get_by_label(EN["builder.add_type"], exact=True).first,
                  "Merge · Add")
    # add <- dense_2_again
    click_button(page, EN["builder.add_layer"], "4. add · Add ⚠", confirm=True)
    # the new merge has one input, so its form opens by itself, marked ⚠; give it the
    # branch dense -> add as its second input, and the ⚠ goes
    expander = page.locator("[data-testid='stExpander']").filter(has_text="4. add · Add")
    dense = page.get_by_role("option", name="dense", exact=True)

    def pick_dense() -> None:
        expander.locator("[data-testid='stMultiSelect']").click()
        page.keyboard.type("dense")
        dense.wait_for()
        page.keyboard.press("Enter")
        page.keyboard.press("Escape")

    act_and_wait(page, pick_dense, page.get_by_text("4. add · Add", exact=True).first,
                 what="adding dense to the merge's inputs")
    assert page.get_by_text("4. add · Add ⚠").count() == 0  # the merge is valid

    total = page.locator("[data-testid='stMetric']").filter(has_text=EN["builder.total"])
    total.get_by_text("130", exact=True).first.wait_for()  # 1*10+10 + 10*10+10, shared once
    svg = page.locator("[data-testid='stGraphVizChart'] svg").first
    svg.wait_for()
    page.wait_for_function("() => [...document.querySelectorAll("
                           "'[data-testid=stGraphVizChart] svg text')].some(t => "
                           "t.textContent === 'add')")
    drawn = svg.text_content()
    assert "dense_2_again" in drawn and EN["builder.diagram.shares"] in drawn
    assert "output 1" in drawn

    panel = select_tab(page, EN["builder.tab.code"],
                       expect=page.locator("[data-testid='stCode'] code").first)
    code = panel.locator("[data-testid='stCode'] code").first.inner_text()
    assert "keras.layers.Add" in code and "dense_2(" in code
    namespace: dict = {"__name__": "generated"}
    exec(compile(code, "<from the browser>", "exec"), namespace)
    model = namespace["build_model"]()
    assert model.count_params() == 130 and len(model.weights) == 4
