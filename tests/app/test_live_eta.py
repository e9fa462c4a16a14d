"""The live panel shows no ETA (a dash, its help from the catalog) until the worker has a
steady speed to estimate from, then the estimate (issue 23, item 8)."""

from __future__ import annotations

import os
import shutil

import pytest

from tests.app.apptest_helpers import assert_clean, open_page
from tfcore.rundir import RunWriter
from tfcore.workspace import default_workspace
from ui.common.i18n import catalog

RUN_ID = "eta-live-run"


@pytest.mark.parametrize("lang, step, eta, shown", [
    ("en", 1, None, "-"), ("zh", 1, None, "-"), ("en", 101, 75.4, "0:01:15")])
def test_the_eta_tile_is_a_dash_until_the_worker_estimates(lang: str, step: int,
                                                           eta: float | None,
                                                           shown: str) -> None:
    root = default_workspace().ensure().runs
    writer = RunWriter.create(root, {"name": "eta_live", "spec": {}, "training": {}}, RUN_ID)
    writer.set_status(state="running", pid=os.getpid(), step=step, epoch=1, total_steps=500,
                      epochs=1, samples_per_sec=6.4, eta_seconds=eta, phase="training")
    text = catalog(lang)
    try:
        at = open_page("app_pages/train.py", lang,           # the panel watches our run
                       state={"train.run_id": RUN_ID})
        assert_clean(at, lang)
        tile = next(m for m in at.metric if m.label == text["train.eta"])
        assert tile.value == shown
        assert tile.help == text["train.eta_help"]
    finally:
        shutil.rmtree(root / RUN_ID, ignore_errors=True)
