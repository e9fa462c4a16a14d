"""The builder in a real browser: B1's two layers grouped into a block by click, the
layer buttons readable in full, and the "Try it" panel's (2, 10) output."""

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
TRUNCATED_JS = """button => [button, ...button.querySelectorAll('*')].some(
    node => node.scrollWidth > node.clientWidth + 1)"""


def test_group_two_layers_into_a_block_then_try_it(server: str, page) -> None:
    page.goto(f"{server}/builder")
    wait_idle(page)
    page.get_by_text(EN["builder.title"], exact=True).first.wait_for()
    choose_option(page, page.get_by_label(EN["builder.start"], exact=True).first,
                  "Dense(256) -> Dense(10) (B1)")
    click_button(page, EN["builder.load"], "2. output · Dense", confirm=True)

    group = page.locator("[data-testid='stMultiSelect']").filter(
        has_text=EN["blocks.group_pick"])

    def pick(name: str):
        def action() -> None:
            group.click()
            page.keyboard.type(name)
            page.get_by_role("option", name=name, exact=True).wait_for()
            page.keyboard.press("Enter")
            page.keyboard.press("Escape")
        return action

    for name in ("hidden", "output"):
        act_and_wait(page, pick(name), group.get_by_text(name, exact=True).first,
                     what=f"choosing {name} to group")
    click_button(page, EN["blocks.group"], "1. block · Block", confirm=True)
    assert page.get_by_text("2. output · Dense", exact=True).count() == 0
    total = page.locator("[data-testid='stMetric']").filter(has_text=EN["builder.total"])
    total.get_by_text("7,946", exact=True).first.wait_for()  # 20*256+256 + 256*10+10

    # the block's form: its buttons read in full (no "D..", "R.."), and it can be opened
    block = page.locator("[data-testid='stExpander']").filter(has_text="1. block · Block")
    open_button = block.get_by_role("button", name=EN["blocks.open"], exact=True)
    if block.locator("[data-testid='stExpanderDetails']").get_attribute("inert") is not None:
        click_and_wait(page, block.get_by_text("1. block · Block", exact=True), open_button,
                       rerun=False)
    for label in (EN["builder.duplicate"], EN["builder.reuse"], EN["builder.remove"],
                  EN["blocks.ungroup"]):
        button = block.get_by_role("button", name=label, exact=True)
        assert not button.evaluate(TRUNCATED_JS), f"{label!r} is cut short"
    click_and_wait(page, open_button,
                   page.get_by_role("button", name=EN["blocks.add_inside"].format(
                       name="block"), exact=True))
    page.get_by_text("1. hidden · Dense", exact=True).first.wait_for()

    panel = select_tab(page, EN["tryit.tab"],
                       expect=page.get_by_role("button", name=EN["tryit.run"], exact=True))
    click_button(page, EN["tryit.run"],
                 panel.get_by_text("shape (2, 10), dtype float32", exact=False).first,
                 scope=panel)
    panel.get_by_text(EN["tryit.ran"].format(shapes="(2, 20)", seed=0),
                      exact=True).first.wait_for()
    assert panel.locator("[data-testid='stDataFrame']").count() == 1
