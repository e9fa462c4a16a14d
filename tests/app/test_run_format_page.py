"""The Runs page with a run folder written before ``run.json`` recorded its format (today's
writer, ``format`` stripped) and one of a newer format: the old run opens in detail without
a problem; the newer one is listed with its located problem, in both languages."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import streamlit as st

from tests.app.apptest_helpers import assert_clean, open_page
from tests.unit.fixtures_runs import make_run
from tfcore.workspace import Workspace
from ui.common.i18n import catalog


pytestmark = pytest.mark.shared_workspace      # the module's runs, trained once


@pytest.fixture(scope="module")
def runs_root(module_workspace: Path):
    workspace = Workspace(module_workspace).ensure()
    trained = make_run(workspace.runs, name="trained", steps=4, ckpt_every=4)
    for run_id, fmt in (("old", None), ("newer", 3)):
        shutil.copytree(workspace.runs / trained, workspace.runs / run_id)
        path = workspace.runs / run_id / "run.json"
        body = {k: v for k, v in json.loads(path.read_text()).items() if k != "format"}
        path.write_text(json.dumps({**body, "name": run_id,
                                    **({"format": fmt} if fmt else {})}))
    shutil.rmtree(workspace.runs / trained)
    st.cache_data.clear()
    yield workspace.runs
    st.cache_data.clear()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_old_run_opens_and_newer_format_is_named(runs_root: Path, lang: str) -> None:
    tr = catalog(lang)
    at = open_page("app_pages/runs.py", lang)
    assert_clean(at, lang)
    table = next(d.value for d in at.dataframe if tr["runs.col.problems"] in d.value.columns)
    problems = dict(zip(table[tr["runs.col.run"]], table[tr["runs.col.problems"]]))
    assert set(problems) == {"old", "newer"}
    assert problems["old"] == ""
    newer = tr["runs.problem.newer"].format(where="run.json: format", value="3", limit="1")
    assert newer in problems["newer"]


def test_the_old_run_opens_in_detail_and_the_newer_names_its_problem(runs_root: Path) -> None:
    tr = catalog("en")
    at = open_page("app_pages/runs.py", "en")
    at.selectbox(key="runs.detail.run").set_value("old").run()
    assert_clean(at, "en")
    frame = tr["runs.detail.problem"].split("{")[0]
    assert not [w.value for w in at.warning if w.value.startswith(frame)]
    at.selectbox(key="runs.detail.run").set_value("newer").run()
    assert_clean(at, "en")
    newer = tr["runs.problem.newer"].format(where="run.json: format", value="3", limit="1")
    assert [w.value for w in at.warning if w.value.startswith(frame)] == [
        tr["runs.detail.problem"].format(problem=newer)]
