"""The builder in a real browser: a Functional model with a branch, a merge and a shared
layer built by clicking; the diagram renders; the code tab's code runs."""

from __future__ import annotations

from tests.browser.conftest import wait_for_app
from ui.common.i18n import catalog

EN = catalog("en")


def _choose(page, label: str, option: str) -> None:
    page.get_by_label(label, exact=True).first.click()
    page.keyboard.type(option.split(" · ")[-1])  # the list is virtual: filter it first
    page.get_by_role("option", name=option, exact=True).click()
    wait_for_app(page)


def _click(page, name: str, then: str | None = None) -> None:
    """Click a button; wait for the rerun, and for the text ``then`` when given."""
    page.get_by_role("button", name=name, exact=True).first.click()
    wait_for_app(page)
    if then:
        page.get_by_text(then).first.wait_for()


def test_functional_branch_merge_shared_layer_diagram_and_code(server: str, page) -> None:
    page.goto(f"{server}/builder")
    wait_for_app(page)
    page.get_by_text(EN["builder.title"], exact=True).first.wait_for()
    _choose(page, EN["builder.start"], EN["builder.scratch"])
    _click(page, EN["builder.load"], EN["builder.no_layers"])
    for _ in range(3):  # a click that lands while the page is still redrawing can be lost
        page.locator("[data-testid='stRadio']").first.get_by_text(
            EN["builder.kind.functional"], exact=True).click()
        wait_for_app(page)
        try:
            page.get_by_text(EN["builder.outputs"], exact=True).wait_for(timeout=10_000)
            break
        except Exception:  # noqa: BLE001 - retried, then the assertion below fails
            continue
    assert page.get_by_text(EN["builder.outputs"], exact=True).is_visible()
    _click(page, EN["builder.add_layer"], "1. dense · Dense")  # dense <- input
    _click(page, EN["builder.add_layer"], "2. dense_2 · Dense")  # dense_2 <- dense
    page.get_by_text("2. dense_2 · Dense", exact=True).click()
    _click(page, EN["builder.reuse"], "3. dense_2_again · Dense")  # same weights again
    _choose(page, EN["builder.add_type"], "Merge · Add")
    _click(page, EN["builder.add_layer"], "4. add · Add")  # add <- dense_2_again
    # the new merge has one input, so its form opens by itself, marked ⚠
    expander = page.locator("[data-testid='stExpander']").filter(has_text="4. add · Add")
    expander.locator("[data-testid='stMultiSelect']").click()
    page.keyboard.type("dense")
    page.get_by_role("option", name="dense", exact=True).wait_for()
    page.keyboard.press("Enter")  # the first match: the branch dense -> add
    page.keyboard.press("Escape")
    wait_for_app(page)
    page.get_by_text("4. add · Add ⚠").wait_for(state="detached")  # the merge is valid

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

    page.get_by_role("tab", name=EN["builder.tab.code"]).click()
    code = page.locator("[data-testid='stCode'] code").first.inner_text()
    assert "keras.layers.Add" in code and "dense_2(" in code
    namespace: dict = {"__name__": "generated"}
    exec(compile(code, "<from the browser>", "exec"), namespace)
    model = namespace["build_model"]()
    assert model.count_params() == 130 and len(model.weights) == 4
