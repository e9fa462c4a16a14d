"""Nothing cut off at 1280x800 (issue 23 item 10): every page, both languages and the
builder in presenter mode, neither scrolls sideways nor cuts a button's label."""

from __future__ import annotations

import pytest

from tests.browser.conftest import wait_idle

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


def _cuts(page, url: str) -> list[str]:
    page.goto(url)
    wait_idle(page)
    return page.evaluate(CUT_JS)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_page_is_cut_at_1280(server: str, page, lang: str) -> None:
    page.set_viewport_size({"width": WIDTH, "height": HEIGHT})
    found = {}
    for stem in PAGES:
        cuts = _cuts(page, f"{server}/{stem}?lang={lang}")
        if cuts:
            found[stem] = cuts
    cuts = _cuts(page, f"{server}/builder?lang={lang}&present=1")
    if cuts:
        found["builder (presenter)"] = cuts
    assert not found, "\n".join(f"{name}: {line}" for name, lines in found.items()
                                for line in lines)
