"""Nothing cut off at 1280x800 (issue 23 item 10): every page in both languages, the builder
with a few presets and the weights lab after an initialization (presenter mode too) neither
scrolls sideways, nor cuts a button's label or an ellipsized text, nor hides table columns.
The runs page holds a suite's worth of runs: long names in both languages, many metrics."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Callable, Iterator

import pytest

from tests.browser.conftest import TIMEOUT_MS, choose_option, click_and_wait, wait_idle
from tests.unit.fixtures_runs import MANY_METRICS, write_listed_run
from tfcore.model.presets import preset_title
from tfcore.workspace import default_workspace
from ui.common import available_pages
from ui.common.i18n import catalog

PAGES = ("home", "lessons", "tensors", "pipeline", "placement", "builder", "weights", "custom_code",
         "train", "runs", "timing")
WIDTH, HEIGHT = 1280, 800
LONG_NAMES = ("cats and dogs CNN with augmentation, learning rate 0.003, batch 64, seed 3",
              "猫狗卷积网络 数据增强 学习率 0.003 批量 64 随机种子 3 第二次尝试",
              "mlp_functional_on_house_prices_with_a_very_long_name_and_no_spaces_at_all")

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
  for (const el of document.querySelectorAll("[data-testid='stMain'] *")) {
    if (el.closest("button") || !seen(el) || el.children.length) continue;
    if (el.matches("input[type='file']")) continue;    // an uploader's hidden input: no text
    if (getComputedStyle(el).textOverflow === "ellipsis" && el.scrollWidth > el.clientWidth + 1)
      cut.push(`text "${(el.innerText || "").trim()}" cut: ${el.scrollWidth} > ${el.clientWidth}`);
  }
  return cut;
}"""


def _literal(template: str) -> str:
    """The longest fixed piece of a catalog template (the text around its fields)."""
    return max(re.split(r"\{[^}]*\}", template), key=len).strip()


def _initialize(page, lang: str) -> None:
    """Weights lab: press Initialize and wait for the before/after histograms."""
    words = catalog(lang)
    click_and_wait(page, page.get_by_role("button", name=words["weights.init.apply"],
                                          exact=True).first,
                   page.get_by_text(_literal(words["weights.init.compare"])).first)


def _load_preset(name: str) -> Callable:
    """Builder: start from the preset ``name`` (Load), e.g. one with shared weights."""
    def load(page, lang: str) -> None:
        words = catalog(lang)
        choose_option(page, words["builder.start"], preset_title(name)[lang])
        click_and_wait(page, page.get_by_role("button", name=words["builder.load"]).first)
    return load


@pytest.fixture(scope="module")
def suite_runs(session_workspace: Path) -> Iterator[list[str]]:
    """Nine finished runs with long names and every metric of MANY_METRICS on three splits
    (removed afterwards: other tests' run pickers do not see them)."""
    root = default_workspace().ensure().runs
    ids = [write_listed_run(root, f"{LONG_NAMES[i % 3]} ({i})", model="mlp_functional",
                            metrics=MANY_METRICS, tags=("baseline", "lesson 3"))
           for i in range(9)]
    yield ids
    for run_id in ids:
        shutil.rmtree(root / run_id, ignore_errors=True)


def _runs_listed(page, lang: str) -> None:
    """Runs page: wait until the runs table's grid is drawn."""
    page.locator("[data-testid='stMain'] [data-testid='stDataFrame'] .dvn-scroller"
                 ).first.wait_for()


def _cuts(page, url: str, lang: str, prepare: Callable | None = None) -> list[str]:
    """What is cut on ``url`` (after ``prepare(page, lang)``, if given)."""
    page.goto(url)
    wait_idle(page)
    if prepare is not None:
        prepare(page, lang)
    return page.evaluate(CUT_JS)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_page_is_cut_at_1280(server: str, page, lang: str, suite_runs: list[str]) -> None:
    # every page of the menu, in both languages: the page fixture also fails a request
    # for anything but this machine, so this is the offline check of every page too
    assert set(PAGES) == {Path(entry.path).stem for entry in available_pages()}
    page.set_viewport_size({"width": WIDTH, "height": HEIGHT})
    states = {stem: (f"{stem}?lang={lang}", None) for stem in PAGES}
    states.update({
        "runs": (f"runs?lang={lang}", _runs_listed),
        "builder (presenter)": (f"builder?lang={lang}&present=1", None),
        "builder, tied preset (presenter)": (f"builder?lang={lang}&present=1",
                                             _load_preset("tied")),
        "builder, cats/dogs CNN": (f"builder?lang={lang}", _load_preset("cats_dogs_cnn")),
        "weights after Initialize": (f"weights?lang={lang}", _initialize),
        "weights after Initialize (presenter)": (f"weights?lang={lang}&present=1", _initialize),
    })
    found = {}
    for name, (path, prepare) in states.items():
        cuts = _cuts(page, f"{server}/{path}", lang, prepare)
        if cuts:
            found[name] = cuts
    assert not found, "\n".join(f"{name}: {line}" for name, lines in found.items()
                                for line in lines)


CHIPS_CUT_JS = """(label) => {
  const box = [...document.querySelectorAll("[data-testid='stMultiSelect']")]
    .find(el => (el.innerText || "").includes(label));
  if (!box) return null;
  const chips = [...box.querySelectorAll("span")].filter(
    el => !el.children.length && (el.innerText || "").trim());
  if (!chips.length) return null;
  return chips.filter(el => el.scrollWidth > el.clientWidth + 1).map(
    el => `${el.innerText.trim()}: ${el.scrollWidth} > ${el.clientWidth}`);
}"""


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_train_pages_metric_chips_are_whole_at_1280(server: str, page, lang: str) -> None:
    """The default metric (sparse_categorical_accuracy) reads whole in its chip."""
    text = catalog(lang)
    page.set_viewport_size({"width": WIDTH, "height": HEIGHT})
    page.goto(f"{server}/train?lang={lang}")
    wait_idle(page)
    handle = page.wait_for_function(CHIPS_CUT_JS, arg=text["train.metrics"], timeout=TIMEOUT_MS)
    assert handle.json_value() == []
