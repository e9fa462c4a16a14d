"""Labels that show a run's state follow its status file (issue 23, item 4): the Train
page's run picker and the sidebar's active-run count, after the run finished or stopped."""

from __future__ import annotations

import os
import shutil

from streamlit.testing.v1 import AppTest

from tests.app.apptest_helpers import APP
from tfcore.rundir import RunWriter
from tfcore.workspace import default_workspace
from ui.common.i18n import catalog
from ui.training.run_picker import PICKER_KEY, changed_states

EN = catalog("en")


def _run(run_id: str, created: str, state: str) -> RunWriter:
    writer = RunWriter.create(default_workspace().runs,
                              {"name": run_id.split("-")[0], "created": created,
                               "spec": {}, "training": {}}, run_id)
    writer.set_status(state=state, pid=os.getpid() if state == "running" else None)
    return writer


def _train_page() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["lang"] = "en"
    at.run()
    at.switch_page("app_pages/train.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _picker(at: AppTest):
    return next(s for s in at.selectbox if s.label == EN["train.watch"])


def _active_count(at: AppTest) -> str:
    prefix = EN["app.sidebar.jobs"].split("{")[0]
    return next(c.value for c in at.sidebar.caption if c.value.startswith(prefix))


def _label(at: AppTest, name: str) -> str:
    return next(o for o in _picker(at).options if o.startswith(f"{name} · "))


def test_a_finished_run_says_finished_in_the_picker_and_leaves_the_count() -> None:
    writer = _run("lesson-a1", "2026-01-02T10:00:00+00:00", "running")
    at = _train_page()
    before = _picker(at)
    assert f" · {EN['state.running']} · " in _label(at, "lesson")
    assert _active_count(at) == EN["app.sidebar.jobs"].format(active=1)

    writer.set_status(state="finished", pid=None)
    at.run()                       # what the page's state watch does once it sees the change
    assert not at.exception, [e.value for e in at.exception]
    assert f" · {EN['state.finished']} · " in _label(at, "lesson")
    assert _active_count(at) == EN["app.sidebar.jobs"].format(active=0)
    # a new label is a new widget: the browser drops the text of the old choice
    after = _picker(at)
    assert before.key.startswith(PICKER_KEY) and after.key != before.key
    assert after.value == "lesson-a1"


def test_the_choice_stays_when_another_listed_run_stops() -> None:
    _run("old-b1", "2026-01-01T10:00:00+00:00", "finished")
    writer = _run("new-b2", "2026-01-02T10:00:00+00:00", "running")
    at = _train_page()
    assert _picker(at).value == "new-b2"          # a new session watches the active run
    _picker(at).set_value("old-b1").run()
    assert _picker(at).value == "old-b1"

    writer.set_status(state="stopped", pid=None)
    at.run()
    assert _picker(at).value == "old-b1"
    assert f" · {EN['state.stopped']} · " in _label(at, "new")
    assert _active_count(at) == EN["app.sidebar.jobs"].format(active=0)


def test_the_watch_names_runs_whose_state_changed_or_that_are_gone() -> None:
    running = _run("run-c1", "2026-01-01T10:00:00+00:00", "running")
    _run("queued-c2", "2026-01-01T11:00:00+00:00", "queued")
    shown = {"run-c1": "running", "queued-c2": "queued"}
    assert changed_states(shown) == []
    running.set_status(state="stopping", pid=os.getpid())
    assert changed_states(shown) == ["run-c1"]
    shutil.rmtree(default_workspace().runs / "queued-c2")
    assert changed_states(shown) == ["run-c1", "queued-c2"]



def test_the_watch_sees_a_run_added_or_deleted_by_another_browser() -> None:
    """A run deleted or started elsewhere (another browser, perhaps served by another server
    process of the class setup) makes the page stale at the watch's next look, even when
    no listed run changed its state."""
    from tfcore.runs import delete_run
    from ui.common import run_store
    from ui.training.run_picker import stale

    root = default_workspace().ensure().runs
    _run("done-d1", "2026-01-02T10:00:00+00:00", "finished")
    _run("live-d2", "2026-01-02T11:00:00+00:00", "running")
    listed, active = run_store().folder_ids(), {"live-d2": "running"}
    assert listed == ["done-d1", "live-d2"]
    assert not stale(active, listed)
    delete_run(root, "done-d1")
    assert stale(active, listed)
    listed = run_store().folder_ids()
    assert not stale(active, listed)
    _run("new-d3", "2026-01-02T12:00:00+00:00", "queued")
    assert stale(active, listed)
