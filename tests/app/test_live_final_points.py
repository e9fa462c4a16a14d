"""A run that ends shows every step it logged: the live panel stops polling once the run
has ended, so the chart it draws then must read the file to its end. The server shares
one snapshot of a run's series between sessions and reused it for half a second; a run
that stopped within that time of the last look kept a chart short of its last steps for
good (bench_live --browser: the state tile said step 60, the caption 26 logged steps)."""

from __future__ import annotations

import os
import shutil

import pytest

from streamlit.testing.v1 import AppTest

from tests.app.apptest_helpers import assert_clean, open_page
from tfcore.rundir import RunWriter
from tfcore.workspace import default_workspace
from ui.common.i18n import catalog
from ui.training import live_data



def _log(writer: RunWriter, first: int, last: int) -> None:
    metrics = writer.metrics_writer()
    metrics.append_many([{"step": step, "epoch": 1 + step // 26, "split": "train",
                          "loss": 2.0 / step, "sparse_categorical_accuracy": 0.5}
                         for step in range(first, last + 1)])
    metrics.close()


def _points(at: AppTest, lang: str) -> str:
    """The number in the panel's "N logged training steps" caption."""
    before, after = catalog(lang)["train.points"].split("{n}")
    caption = next(c.value for c in at.caption
                   if c.value.startswith(before) and c.value.endswith(after))
    return caption[len(before):len(caption) - len(after)].replace(",", "")


@pytest.mark.parametrize("state", ["stopped", "finished"])
def test_a_run_that_ends_right_after_a_look_shows_its_last_steps(
        state: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # A snapshot reused for an hour: while the run is active the panel shows what the
    # first look read; once it has ended, the file's end whatever the snapshot's age.
    monkeypatch.setattr(live_data, "REFRESH_S", 3600.0)
    lang = "en"
    run_id = f"final-points-{state}"         # the server's snapshots outlive a test
    root = default_workspace().ensure().runs
    writer = RunWriter.create(root, {"name": "final_points", "spec": {}, "training": {}},
                              run_id)
    writer.set_status(state="running", pid=os.getpid(), step=26, epoch=1, total_steps=1300,
                      epochs=50, phase="training")
    _log(writer, 1, 26)
    try:
        at = open_page("app_pages/train.py", lang, state={"train.run_id": run_id})
        assert_clean(at, lang)
        assert _points(at, lang) == "26"
        _log(writer, 27, 40)
        at.run()
        assert _points(at, lang) == "26"          # active: the shared snapshot, reused
        _log(writer, 41, 60)
        writer.set_status(state=state, step=60, epoch=3)
        at.run()
        assert_clean(at, lang)
        assert _points(at, lang) == "60"
    finally:
        shutil.rmtree(root / run_id, ignore_errors=True)
