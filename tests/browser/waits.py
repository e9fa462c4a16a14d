"""Waiting for states in a Streamlit page (never for a time): the helpers every browser
test uses after each action, so that the suite passes on a busy machine
(``make test-load``).

* ``wait_idle(page)``: the app is connected, its script is not running, no element is
  stale. Streamlit shows its status widget only 500 ms into a run and flags a run in
  ``stApp[data-test-script-state]``; this waits on the flag.
* ``click_and_wait(page, target, expect=...)`` / ``click_button`` / ``act_and_wait``: an
  action and the rerun it causes. Between a click and the start of its rerun the app still
  looks idle, so this waits for the rerun to *start* (a probe in the page counts script
  runs) or for ``expect`` to show, then for the app to be idle and ``expect`` visible. An
  action that had no effect at all (a click that landed while the page was redrawing) is
  done again.
* ``fill_and_wait``, ``choose_option``: the same for a text/number input and a selectbox.
* Choices made without typing (``click_chip``, ``pick_option``) are in ``choices.py``.
* ``select_tab(page, name)``: tabs switch in the browser, without a rerun; a rerun in
  flight can reset them, so this clicks until the tab stays selected once the app is idle,
  and returns the tab's panel.
* ``chart_picture`` / ``wait_charts_drawn``: a vega chart has drawn its marks (its canvas
  is no longer blank, or its SVG has marks), optionally a picture unlike a previous one.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Union

# A state that has not come after this long on a busy two-core machine is a failure.
TIMEOUT_MS = 180_000
# An action with no effect at all (no script run started, nothing expected shown) after
# this long was lost, and is done again. Its effect may take longer: that is waited for.
LOST_CLICK_MS = 20_000
CHART = "[data-testid='stVegaLiteChart']"

# The text a selectbox of the main area shows for its choice, found by its label (the
# choice may sit in an input): ``page.evaluate(SELECTBOX_TEXT_JS, label)``.
SELECTBOX_TEXT_JS = """label => {
  const box = [...document.querySelectorAll("[data-testid='stMain'] [data-testid='stSelectbox']")]
    .find(b => b.innerText.trim().startsWith(label));
  if (!box) return '';
  return [box.innerText, ...[...box.querySelectorAll('input')].map(i => i.value || '')]
    .join('\\n');
}"""

Expect = Union[None, str, Any]  # text, or a playwright Locator


# --- waiting for states -----------------------------------------------------------------

# Counts Streamlit script runs (the whole script or a fragment) by watching the attribute
# ``data-test-script-state`` of stApp: ``started`` when it becomes running, ``finished``
# when it becomes notRunning. Installed before the page's own scripts, and again lazily.
PROBE_JS = """() => {
  if (window.__tflabRuns) return;
  const runs = window.__tflabRuns = {started: 0, finished: 0};
  const ATTR = 'data-test-script-state';
  new MutationObserver(records => {
    records.forEach((r, i) => {
      if (r.attributeName !== ATTR) return;
      const later = records.slice(i + 1).find(
        n => n.target === r.target && n.attributeName === ATTR);
      const now = later ? later.oldValue : r.target.getAttribute(ATTR);
      if (now === 'running' || now === 'rerunRequested') runs.started += 1;
      if (now === 'notRunning' && r.oldValue !== 'notRunning') runs.finished += 1;
    });
  }).observe(document, {subtree: true, attributes: true, attributeOldValue: true,
                        attributeFilter: [ATTR]});
}"""

IDLE_JS = """() => {
  const app = document.querySelector("[data-testid='stApp']");
  return !!app
    && app.getAttribute('data-test-connection-state') === 'CONNECTED'
    && app.getAttribute('data-test-script-state') === 'notRunning'
    && !document.querySelector("[data-testid='stStatusWidget']")
    && !document.querySelector("[data-stale='true']");
}"""


def wait_idle(page, timeout: float = TIMEOUT_MS) -> None:
    """Wait until the app is connected and its script has finished: the script state is
    ``notRunning``, the status widget is gone and no element is stale."""
    page.wait_for_selector("[data-testid='stApp']", state="attached", timeout=timeout)
    page.wait_for_function(IDLE_JS, timeout=timeout)


def wait_for_app(page, timeout: float = TIMEOUT_MS) -> None:
    """The app finished its script (kept for older tests): ``wait_idle``."""
    wait_idle(page, timeout)


def _runs(page) -> dict:
    """The probe's counters (installing the probe when the page has none yet)."""
    return page.evaluate(f"() => {{ ({PROBE_JS})(); return window.__tflabRuns; }}")


def _locator(page, expect: Expect):
    """What to wait for: any visible match (a fragment's redraw can show its stale element
    beside the new one for a moment, so a locator may match twice: not an error)."""
    if expect is None:
        return None
    if isinstance(expect, str):
        expect = page.get_by_text(expect)
    return expect.filter(visible=True).first


def _wait_visible(expect, timeout: float) -> bool:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        expect.wait_for(state="visible", timeout=timeout)
        return True
    except PlaywrightTimeout:
        return False


def _reacted(page, before: dict, expect, timeout: float) -> bool:
    """Whether the action took effect within ``timeout``: a script run started after it
    (or, for a run too quick for the probe to see, ``expect`` shows by then)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    started = ("() => !!window.__tflabRuns && (window.__tflabRuns.started > %d"
               " || window.__tflabRuns.finished > %d)" % (before["started"],
                                                          before["finished"]))
    try:
        page.wait_for_function(started, timeout=timeout)
        return True
    except PlaywrightTimeout:
        shown = expect is not None and expect.is_visible()
        print(f"no script run seen {timeout / 1000:.0f} s after the action; "
              f"expected element shown: {shown}")
        return shown


def settle(page, expect: Expect = None, timeout: float = TIMEOUT_MS) -> None:
    """Wait until the app is idle and ``expect`` (text or locator) is visible, then check
    once more that it still is once the page has settled."""
    expect = _locator(page, expect)
    wait_idle(page, timeout)
    if expect is not None:
        expect.wait_for(state="visible", timeout=timeout)
        wait_idle(page, timeout)
        expect.wait_for(state="visible", timeout=timeout)


def act_and_wait(page, action: Callable[[], None], expect: Expect = None, *,
                 rerun: bool = True, tries: int = 3, idle_first: bool = True,
                 confirm: bool = False, timeout: float = TIMEOUT_MS,
                 what: str = "action") -> None:
    """Do ``action`` (a click, a key press) and wait for its effect; retry a lost one.

    Args:
        expect: text or a locator that shows only once the action took effect.
        rerun: the action makes Streamlit rerun the script: wait for the rerun to start
            (or ``expect`` to show), then for the app to be idle. With ``rerun=False``
            (a dropdown opening, say) only ``expect`` is waited for.
        idle_first: wait for the app to be idle before acting (off for a button on a
            page that redraws by itself every second, such as a live training panel).
        confirm: for an action that is safe to repeat until it shows (a button whose
            effect appears within one rerun): a script run seen after it may be the
            sidebar's own periodic refresh, not the click's; once the app is idle again
            without ``expect`` showing, the click was lost and is done again.
    """
    target = _locator(page, expect)
    if not rerun and target is None:
        raise ValueError("an action without a rerun needs something to expect")
    for attempt in range(1, tries + 1):
        if idle_first:
            wait_idle(page, timeout)
        before = _runs(page)
        action()
        if rerun and _reacted(page, before, target, LOST_CLICK_MS):
            if not confirm or target is None:
                break
            wait_idle(page, timeout)
            if _wait_visible(target, LOST_CLICK_MS):
                break
            print(f"{what}: the app ran and is idle but {expect!r} is not shown; "
                  "the run seen was not this action's: acting again")
        if not rerun and _wait_visible(target, LOST_CLICK_MS):
            break
        if attempt == tries:
            raise AssertionError(f"{what}: no effect after {tries} tries "
                                 f"(expected {expect!r})")
    if rerun:
        settle(page, target, timeout)
    else:
        target.wait_for(state="visible", timeout=timeout)


def click_and_wait(page, target, expect: Expect = None, **kwargs) -> None:
    """Click ``target`` (a locator) and wait for the rerun and ``expect``; see
    ``act_and_wait`` for the keyword arguments."""
    timeout = kwargs.get("timeout", TIMEOUT_MS)
    act_and_wait(page, lambda: target.click(timeout=timeout), expect,
                 what=f"click on {target}", **kwargs)


def set_toggle(page, label: str, on: bool, tries: int = 3,
               timeout: float = TIMEOUT_MS) -> None:
    """Switch the toggle (or checkbox) called ``label`` to ``on``, reading its state before
    every click: a click whose rerun the probe missed is never undone by a second one."""
    box = page.get_by_label(label, exact=True)
    for _ in range(tries):
        wait_idle(page, timeout)
        if box.is_checked() == on:
            settle(page, timeout=timeout)
            return
        before = _runs(page)
        page.get_by_text(label, exact=True).click(timeout=timeout)
        _reacted(page, before, None, LOST_CLICK_MS)
    wait_idle(page, timeout)
    if box.is_checked() != on:
        raise AssertionError(f"toggle {label!r}: still {not on} after {tries} clicks")


def click_button(page, name: str, expect: Expect = None, scope=None, **kwargs) -> None:
    """Click the button called ``name`` (the first one, under ``scope`` when given)."""
    button = (scope or page).get_by_role("button", name=name, exact=True).first
    click_and_wait(page, button, expect, **kwargs)


def fill_and_wait(page, box, value: Union[str, int, float], expect: Expect = None,
                  **kwargs) -> None:
    """Type ``value`` into the input ``box`` and press Enter (Streamlit commits it and
    reruns); wait for the rerun and ``expect``, and check the box kept the value."""
    text = str(value)
    if box.input_value() == text and expect is None:
        return                                    # nothing changes: no rerun will come

    def _type() -> None:
        box.fill(text)
        box.press("Enter")

    act_and_wait(page, _type, expect, what=f"typing {text!r} into {box}", **kwargs)
    assert box.input_value() == text


def choose_option(page, box, option: str, expect: Expect = None, tries: int = 3,
                  timeout: float = TIMEOUT_MS, exact: bool = True) -> None:
    """Pick ``option`` in the selectbox ``box`` (a ``stSelectbox`` locator, or its label):
    open the list, filter it by typing (the list is virtual), click the option (its whole
    text, or with ``exact=False`` the first containing ``option``), wait for the rerun and
    ``expect``. A list that did not open, or that a rerun closed before the click counted,
    is opened again."""
    if isinstance(box, str):
        box = page.locator("[data-testid='stSelectbox']").filter(has_text=box).first
    choice = page.get_by_role("option", name=option, exact=exact).first
    target = _locator(page, expect)
    for _ in range(tries):
        wait_idle(page, timeout)
        _center(box)
        box.click(timeout=timeout)
        page.keyboard.type(option.split(" · ")[-1])
        if not _wait_visible(choice, LOST_CLICK_MS):
            page.keyboard.press("Escape")
            continue
        if click_option(page, choice, target, timeout):
            return
    raise AssertionError(f"choosing {option!r} in {box}: no effect after {tries} tries")


def _center(box) -> None:
    """Scroll ``box`` to the middle of the viewport, so that the list it opens has room
    below or above it (a list opened at the viewport's edge can be placed out of view)."""
    box.evaluate("e => e.scrollIntoView({block: 'center', inline: 'nearest'})")


def click_option(page, choice, target, timeout: float) -> bool:
    """Click an option of an open list; True once the app reran and ``target`` showed,
    else close the list (Escape) and return False (a rerun swallowed the click)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    before = _runs(page)
    try:
        choice.click(timeout=min(timeout, LOST_CLICK_MS))
    except PlaywrightTimeout:
        # The list was placed for a layout that has moved since it opened (a rerun
        # grew the page above it): its options sit outside the viewport for good, and
        # scrolling the page cannot reach them. Close it; the caller opens it again.
        page.keyboard.press("Escape")
        return False
    if _reacted(page, before, target, LOST_CLICK_MS):
        settle(page, target, timeout)
        return True
    page.keyboard.press("Escape")
    return False


def select_tab(page, name: str, scope=None, expect: Expect = None, tries: int = 3,
               timeout: float = TIMEOUT_MS):
    """Select the tab called ``name`` (under ``scope`` when given) and return its panel.

    Tabs switch in the browser without a rerun, and a rerun that redraws them can undo a
    click: click, wait for ``aria-selected``, wait for the app to be idle, check the tab
    is still selected (else click again), then wait for its panel and ``expect`` in it.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    tab = (scope or page).get_by_role("tab", name=name, exact=True).first
    for attempt in range(1, tries + 1):
        wait_idle(page, timeout)
        tab.click(timeout=timeout)
        try:
            page.wait_for_function(
                "el => el.getAttribute('aria-selected') === 'true'",
                arg=tab.element_handle(timeout=timeout), timeout=LOST_CLICK_MS)
        except PlaywrightTimeout:
            continue
        wait_idle(page, timeout)
        if tab.get_attribute("aria-selected") == "true":
            break
    else:
        raise AssertionError(f"tab {name!r} did not stay selected after {tries} clicks")
    panel = page.locator(f"[role='tabpanel'][aria-labelledby='{tab.get_attribute('id')}']")
    panel.wait_for(state="visible", timeout=timeout)
    if expect is not None:
        target = panel.get_by_text(expect).first if isinstance(expect, str) else expect
        target.wait_for(state="visible", timeout=timeout)
    assert tab.get_attribute("aria-selected") == "true", \
        f"tab {name!r} lost its selection while its content loaded"
    return panel


# --- charts -----------------------------------------------------------------------------

# The picture of a drawn vega chart: its canvas as a data URL once it is no longer blank,
# or its SVG markup once it has marks; null while it has not drawn.
PICTURE_JS = """el => {
  const canvas = el.querySelector('canvas');
  if (canvas && canvas.width > 0 && canvas.height > 0) {
    const blank = document.createElement('canvas');
    blank.width = canvas.width; blank.height = canvas.height;
    const url = canvas.toDataURL();
    return url === blank.toDataURL() ? null : url;
  }
  const svg = el.querySelector('svg.marks');
  return svg && svg.querySelector('path, rect, line, circle, text') ? svg.outerHTML : null;
}"""

# Encoding a canvas is not free: look at the charts a few times a second, not every frame.
PICTURE_POLL_MS = 250

_FIND_CHARTS_JS = """([selector, root]) => [...(root || document).querySelectorAll(selector)]
  .filter(el => el.getClientRects().length > 0)"""


def chart_picture(page, selector: str = CHART, unlike: Optional[str] = None,
                  timeout: float = TIMEOUT_MS) -> str:
    """Wait until the first visible chart matching ``selector`` has drawn (and, with
    ``unlike``, until its picture differs from that one); return its picture."""
    handle = page.wait_for_function(
        f"""([selector, unlike]) => {{
          const charts = ({_FIND_CHARTS_JS})([selector, null]);
          if (!charts.length) return null;
          const picture = ({PICTURE_JS})(charts[0]);
          return picture && picture !== unlike ? picture : null;
        }}""", arg=[selector, unlike], timeout=timeout, polling=PICTURE_POLL_MS)
    return handle.json_value()


def wait_charts_drawn(page, scope=None, at_least: int = 1,
                      timeout: float = TIMEOUT_MS) -> int:
    """Wait until at least ``at_least`` visible vega charts under ``scope`` (a locator;
    the page when None) have drawn; return how many have."""
    root = scope.element_handle(timeout=timeout) if scope is not None else None
    handle = page.wait_for_function(
        f"""([selector, root, atLeast]) => {{
          const drawn = ({_FIND_CHARTS_JS})([selector, root])
            .filter(el => ({PICTURE_JS})(el) !== null).length;
          return drawn >= atLeast ? drawn : null;
        }}""", arg=[CHART, root, at_least], timeout=timeout, polling=PICTURE_POLL_MS)
    return int(handle.json_value())
