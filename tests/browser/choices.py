"""Choices made without typing (issue 14: "no typing except numbers"), waiting for states
like the helpers of ``waits.py``.

* ``click_chip(page, group, option)``: a one-click chip of an ``st.pills`` row (the
  builder's common activations), then the rerun and the chip highlighted.
* ``pick_option(page, box, option)``: a selectbox option reached by wheeling its virtual
  list with the mouse (never typing to filter it), then the rerun.
"""

from __future__ import annotations

import re

from tests.browser.waits import (
    LOST_CLICK_MS,
    TIMEOUT_MS,
    Expect,
    _center,
    _locator,
    _wait_visible,
    act_and_wait,
    click_option,
    wait_idle,
)


def _exact(text: str) -> re.Pattern:
    return re.compile(rf"^\s*{re.escape(text)}\s*$")


def click_chip(page, group, option: str, expect: Expect = None, **kwargs) -> None:
    """Click the chip ``option`` of the chip row ``group`` (an ``stButtonGroup`` locator,
    or its label) and wait for the rerun, then for ``expect`` (by default: that chip
    highlighted). A chip already highlighted is left alone when nothing is expected."""
    if isinstance(group, str):
        group = page.locator("[data-testid='stButtonGroup']").filter(has_text=group).first
    chip = group.locator("button").filter(has_text=_exact(option)).first
    chosen = group.locator("button[aria-checked='true'], button[aria-pressed='true']")
    chosen = chosen.filter(has_text=_exact(option))
    wait_idle(page, kwargs.get("timeout", TIMEOUT_MS))
    if expect is None and chosen.count():
        return                                    # nothing changes: no rerun will come
    act_and_wait(page, lambda: chip.click(timeout=kwargs.get("timeout", TIMEOUT_MS)),
                 chosen if expect is None else expect, what=f"chip {option!r}", **kwargs)


# The list's scroll position ({top}), once it has stayed put for one animation frame (a smooth
# wheel scroll moves it over several) and the options at its top and bottom edges are drawn
# (the list is virtual: it draws the rows in view); null while it is moving or drawing.
SCROLLED_JS = """el => {
  const top = el.scrollTop, still = el.__tflabTop === top;
  el.__tflabTop = top;
  const b = el.getBoundingClientRect();
  const ys = [b.top + 2, Math.min(b.bottom, b.top + el.scrollHeight - top) - 2];
  const rows = [...el.querySelectorAll("[role='option']")].map(o => o.getBoundingClientRect());
  return still && ys.every(y => rows.some(r => r.top <= y && r.bottom >= y)) ? {top} : null;
}"""


def pick_option(page, box, option: str, expect: Expect = None, scrolls: int = 40,
                step: int = 150, tries: int = 3, timeout: float = TIMEOUT_MS) -> None:
    """Pick ``option`` in the selectbox ``box`` (a locator, or its label) without typing:
    open the list, wheel it up to its top, then down a step at a time until ``option`` is
    drawn (at most ``scrolls`` steps, or to the end of the list), click it and wait for
    the rerun and ``expect``. A list that did not open or that a rerun closed is reopened;
    an option never reached is an AssertionError naming the options last drawn."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    if isinstance(box, str):
        box = page.locator("[data-testid='stSelectbox']").filter(has_text=box).first
    listbox = page.get_by_role("listbox").first
    choice = listbox.get_by_role("option", name=option, exact=True).first
    target = _locator(page, expect)

    def scrolled() -> float:
        handle = page.wait_for_function(SCROLLED_JS, arg=listbox.element_handle(),
                                        polling="raf", timeout=LOST_CLICK_MS)
        return handle.json_value()["top"]

    def wheel(dy: int) -> bool:
        """One wheel step over the list; False at its end (or top) or if it did not move."""
        top = scrolled()
        at_end = listbox.evaluate(
            "(el, top) => top + el.clientHeight >= el.scrollHeight - 1", top)
        if (dy < 0 and top <= 0) or (dy > 0 and at_end):
            return False
        listbox.hover(timeout=timeout)
        page.mouse.wheel(0, dy)
        try:
            page.wait_for_function("el => el.scrollTop !== el.__tflabTop",
                                   arg=listbox.element_handle(), polling="raf",
                                   timeout=LOST_CLICK_MS)
        except PlaywrightTimeout:
            return False
        scrolled()
        return True

    seen: list[str] = []
    for _ in range(tries):
        wait_idle(page, timeout)
        _center(box)
        box.click(timeout=timeout)
        if not _wait_visible(listbox, LOST_CLICK_MS):
            continue
        for dy in (-10 * step, step):
            for _ in range(scrolls):
                if choice.is_visible() or not wheel(dy):
                    break
        if not choice.is_visible():
            seen = listbox.get_by_role("option").all_inner_texts()
            page.keyboard.press("Escape")
            continue
        if click_option(page, choice, target, timeout):
            return
    raise AssertionError(f"picking {option!r} in {box} by scrolling: not reached after "
                         f"{tries} tries of {scrolls} wheel steps (last drawn: {seen})")
