"""Helpers for AppTest: open a page in a language; check every visible string is translated."""

from __future__ import annotations

import re
from functools import lru_cache

import pandas as pd
from streamlit.testing.v1 import AppTest

from tests.conftest import ROOT
from ui.common.i18n import catalog

APP = str(ROOT / "app.py")


def open_page(page: str, lang: str = "en", timeout: float = 120,
              state: dict | None = None) -> AppTest:
    """Run app.py, switch to ``page`` (e.g. ``app_pages/home.py``) in ``lang``, with the
    session ``state`` given set before the first run (a run to watch, a builder spec)."""
    at = AppTest.from_file(APP, default_timeout=timeout)
    at.query_params["lang"] = lang
    for key, value in (state or {}).items():
        at.session_state[key] = value
    at.run()
    if page != "app_pages/home.py":
        at.switch_page(page)
        at.run()
    return at


@lru_cache(maxsize=None)
def _templates(lang: str) -> tuple[re.Pattern, ...]:
    patterns = []
    for text in catalog(lang).values():
        parts = re.split(r"\{[^{}]*\}", text)
        patterns.append(re.compile("^" + "(.+?)".join(map(re.escape, parts)) + "$", re.S))
    return tuple(patterns)


def visible_labels(at: AppTest) -> list[str]:
    """Titles, headers, captions, widget labels, tabs and expanders on the page."""
    texts: list[str] = []
    for kind in ("title", "header", "subheader", "caption"):
        texts.extend(el.value for el in at.get(kind))
    for kind in ("button", "checkbox", "toggle", "selectbox", "multiselect", "radio",
                 "slider", "select_slider", "number_input", "text_input", "text_area",
                 "date_input", "time_input", "color_picker"):
        texts.extend(el.label for el in at.get(kind))
    texts.extend(tab.label for tab in at.tabs)
    texts.extend(exp.label for exp in at.expander)
    return [text for text in texts if text]


def untranslated(at: AppTest, lang: str) -> list[str]:
    """Visible labels that match no template of the ``lang`` catalog."""
    templates = _templates(lang)
    return [text for text in visible_labels(at)
            if not any(p.match(text) for p in templates)]


def assert_clean(at: AppTest, lang: str) -> None:
    """No exception on the page, and every label comes from the catalog."""
    assert not at.exception, [e.value for e in at.exception]
    missing = untranslated(at, lang)
    assert not missing, f"strings not in the {lang} catalog: {missing}"


def weights_table(at: AppTest) -> pd.DataFrame:
    """The variable table joined with its statistics (the dataframes with a Path column and
    a Used-by or a Mean column), indexed by path."""
    words = catalog("en")
    path, parts = words["weights.col.path"], []
    for frame in at.dataframe:
        value = frame.value
        if path in value.columns and ({words["weights.col.layers"], words["weights.col.mean"]}
                                      & set(value.columns)):
            parts.append(value.set_index(path))
    if len(parts) != 2:
        raise AssertionError("no variable table and statistics on the page")
    return parts[0].join(parts[1])


def decode_bars(at: AppTest) -> list:
    """The progress bars of uploads being read in a child process (not the sidebar's)."""
    heads = tuple(catalog(lang)[key].split("{name}")[0] for lang in ("en", "zh")
                  for key in ("data.decode.running", "data.decode.progress"))
    return [bar for bar in at.get("progress") if bar.proto.text.startswith(heads)]


def run_until_decoded(at: AppTest, deadline_s: float = 300.0) -> AppTest:
    """Run the page again until no upload is being read in its child process (its progress
    bar is gone): AppTest cannot fire the progress panel's ``run_every``. Waits for that
    state, bounded by ``deadline_s``."""
    import time

    began = time.monotonic()
    while decode_bars(at):
        if time.monotonic() - began > deadline_s:
            raise AssertionError(f"an upload was still being read after {deadline_s} s")
        time.sleep(0.1)
        at.run()
    return at
