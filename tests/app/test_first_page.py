"""The first page after a server start draws without TensorFlow (issue 23, item 14): app.py
and the home and Train pages import no TensorFlow while they run; TensorFlow loads in a
background thread started after the page, and the page is redrawn with versions and
devices once it has loaded. Starting a run and the software versions need no TensorFlow in
the server; an import of TensorFlow in another thread while the background one runs waits
for it (two at once deadlock). Each page runs in a fresh interpreter (this one has
TensorFlow imported already), in both languages while the import is held back."""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT
from ui.common.i18n import catalog

# Runs the app in AppTest with the background import held back until asked for: what the
# page shows while TensorFlow loads, whether the page imported it, then the page once the
# import is done.
SCRIPT = r"""
import json, sys, threading
from streamlit.testing.v1 import AppTest
import ui.common.resources as resources

real, started, release = getattr(resources, "_preload", None), threading.Event(), \
    threading.Event()
if real is not None:
    resources._preload = lambda: (started.set(), release.wait(), real())
def open_page(lang):
    at = AppTest.from_file(sys.argv[1], default_timeout=300)
    at.query_params["lang"] = lang
    at.run()
    if sys.argv[2] != "app_pages/home.py":
        at.switch_page(sys.argv[2]).run()
    return at
def shown(at):
    return {"titles": [t.value for t in at.title],
            "captions": [c.value for c in at.caption] + [c.value for c in at.sidebar.caption],
            "frames": len(at.dataframe), "radios": [list(r.options) for r in at.radio],
            "errors": [e.value for e in at.exception]}
langs = sys.argv[3].split(",")
before = {lang: shown(open_page(lang)) for lang in langs}
result = {lang: {"before": before[lang], "preload_started": started.wait(60),
                 "tensorflow_imported": "tensorflow" in sys.modules} for lang in langs}
release.set()
for thread in getattr(resources, "_PRELOADER", []):
    thread.join(600)
for lang in langs:
    result[lang]["after"] = shown(open_page(lang))
print("RESULT " + json.dumps(result))
"""


LANGS = ("en", "zh")


@functools.cache
def _first_visits(page: str) -> dict:
    """``page`` opened in each language by one fresh interpreter, while TensorFlow's
    import is held back and once it is done: {lang: what each showed}."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), TFLAB_WARM_WORKER="0")
    out = subprocess.run([sys.executable, "-c", SCRIPT, str(ROOT / "app.py"), page,
                          ",".join(LANGS)],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    lines = [line for line in out.stdout.splitlines() if line.startswith("RESULT ")]
    assert lines, out.stdout[-3000:] + out.stderr[-3000:]
    return json.loads(lines[-1][len("RESULT "):])


def _first_page(page: str, lang: str) -> dict:
    return _first_visits(page)[lang]


@pytest.mark.parametrize("lang", LANGS)
def test_home_draws_before_tensorflow_loads_then_shows_devices(lang: str) -> None:
    text = catalog(lang)
    result = _first_page("app_pages/home.py", lang)
    before, after = result["before"], result["after"]
    assert not before["errors"] and not after["errors"]
    assert result["preload_started"]                 # started once the page was drawn
    assert not result["tensorflow_imported"]         # the page did not import it
    assert before["titles"] == [text["home.title"]]
    assert before["captions"].count(text["home.tf_loading"]) == 1    # devices
    assert text["app.sidebar.devices_loading"] in before["captions"]
    assert before["frames"] == 1                     # versions: read without TensorFlow
    assert text["home.tf_loading"] not in after["captions"]
    assert text["app.sidebar.devices_loading"] not in after["captions"]
    assert after["frames"] == 2                      # versions and devices tables


@pytest.mark.parametrize("lang", LANGS)
def test_train_page_draws_its_form_before_tensorflow_loads(lang: str) -> None:
    text = catalog(lang)
    result = _first_page("app_pages/train.py", lang)
    before, after = result["before"], result["after"]
    assert not before["errors"] and not after["errors"]
    assert not result["tensorflow_imported"]
    assert before["titles"] == [text["train.title"]]
    device = text["train.device.cpu"]
    assert any(device in options for options in before["radios"])     # the device choice
    assert text["app.sidebar.devices_loading"] in before["captions"]
    assert text["app.sidebar.devices_loading"] not in after["captions"]
