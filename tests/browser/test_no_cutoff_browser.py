"""Nothing cut off at 1280x800 (issue 23 item 10): every page, both languages and the
builder in presenter mode, neither scrolls sideways nor cuts a button's label."""

from __future__ import annotations

import re

import pytest

from tests.browser.conftest import click_and_wait, wait_idle
from ui.common.i18n import catalog

PAGES = ("home", "tensors", "pipeline", "placement", "builder", "weights", "custom_code",
         "train", "runs", "timing")
WIDTH, HEIGHT = 1280, 800

# What overflows sideways, as "what: detail" lines; empty when the page fits.
CUT_JS = """() => {
  const cut = [];
  const doc = document.documentElement;
  if (doc.scrollWidth > doc.clientWidth) cut.push(`page scrolls by ${doc.scrollWidth - doc.clientWidth}px`);
  const main = document.querySelector("[data-testid='stMainBlockContainer']");
  if (main && main.scrollWidth > main.clientWidth + 1)
    cut.push(`main block scrolls by ${main.scrollWidth - main.clientWidth}px`);
  for (const grid of document.querySelectorAll("[data-testid='stMain'] [data-testid='stDataFrame'] .dvn-scroller"))
    if (grid.scrollWidth > grid.clientWidth + 1)
      cut.push(`table "${(grid.closest("[data-testid='stDataFrame']").innerText || "").slice(0, 40)}" hides ${grid.scrollWidth - grid.clientWidth}px of columns`);
  const seen = (el) => el.offsetParent !== null && el.getClientRects().length > 0;
  for (const button of document.querySelectorAll("[data-testid='stMain'] button")) {
    if (!seen(button)) continue;
    const text = (button.innerText || "").trim();
    if (!text) continue;
    for (const el of [button, ...button.querySelectorAll("*")]) {
      if (!seen(el) || el.tagName === "svg" || el.closest("svg")) continue;
      if (el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0) {
        cut.push(`button "${text}" cut: ${el.scrollWidth} > ${el.clientWidth}`);
        break;
      }
    }
    if (text.endsWith("…") && !(button.getAttribute("aria-label") || "").endsWith("…"))
      cut.push(`button "${text}" ends in an ellipsis`);
  }
  return cut;
}"""


def _literal(template: str) -> str:
    """The longest fixed piece of a catalog template (the text around its fields)."""
    return max(re.split(r"\{[^}]*\}", template), key=len).strip()


def _cuts(page, url: str, press: tuple[str, str] | None = None) -> list[str]:
    """What is cut on ``url`` (after pressing the button ``press[0]`` and seeing the text
    ``press[1]``, if given)."""
    page.goto(url)
    wait_idle(page)
    if press:
        label, expect = press
        click_and_wait(page, page.get_by_role("button", name=label, exact=True).first,
                       page.get_by_text(expect).first)
    return page.evaluate(CUT_JS)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_page_is_cut_at_1280(server: str, page, lang: str) -> None:
    page.set_viewport_size({"width": WIDTH, "height": HEIGHT})
    found = {}
    for stem in PAGES:
        cuts = _cuts(page, f"{server}/{stem}?lang={lang}")
        if cuts:
            found[stem] = cuts
    words = catalog(lang)
    states = {"builder (presenter)": (f"builder?lang={lang}&present=1", None),
              "weights after Initialize": (
                  f"weights?lang={lang}",
                  (words["weights.init.apply"], _literal(words["weights.init.compare"])))}
    for name, (path, press) in states.items():
        cuts = _cuts(page, f"{server}/{path}", press)
        if cuts:
            found[name] = cuts
    assert not found, "\n".join(f"{name}: {line}" for name, lines in found.items()
                                for line in lines)
