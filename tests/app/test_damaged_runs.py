"""Damaged runs in the workspace: Home, Train and Runs open without an exception, list
every run and name each damaged run's problem; a truncated checkpoint shows its problem
instead of "t() got multiple values for argument 'key'"."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tests.app.apptest_helpers import assert_clean, open_page
from tests.unit.fixtures_damaged import damaged_root, mutations
from tests.unit.fixtures_runs import make_run
from tfcore.runs import list_runs
from tfcore.workspace import Workspace
from ui.common.i18n import catalog

EN = catalog("en")
pytestmark = pytest.mark.shared_workspace


@pytest.fixture(scope="module")
def runs_root(module_workspace: Path, tmp_path_factory: pytest.TempPathFactory):
    """The module's workspace: one run per mutation (``v000`` ...), a healthy run and a
    real run whose checkpoint data file is cut in half."""
    workspace = Workspace(module_workspace).ensure()
    scratch = tmp_path_factory.mktemp("scratch")
    for index, mutation in enumerate(mutations()):
        shutil.move(damaged_root(scratch / "runs", mutation) / "victim",
                    workspace.runs / f"v{index:03d}")
    shutil.move(scratch / "runs" / "healthy", workspace.runs / "healthy")
    cut = make_run(workspace.runs, name="cut", steps=4, ckpt_every=4)
    data = next((workspace.runs / cut / "ckpt").glob("ckpt-4.data-*"))
    data.write_bytes(data.read_bytes()[: data.stat().st_size // 2])
    return workspace.runs


def _frame_with(at, column: str):
    return next(d.value for d in at.dataframe if column in d.value.columns)


def _no_collision(at) -> None:
    texts = [e.value for kind in ("error", "warning", "exception") for e in at.get(kind)]
    assert not [t for t in texts if "multiple values" in str(t)]


def test_home_lists_recent_runs_with_their_problems(runs_root: Path) -> None:
    at = open_page("app_pages/home.py", "en")
    assert_clean(at, "en")
    table = _frame_with(at, EN["home.recent.problems"])
    assert len(table) == 10
    expected = {s.name: s for s in list_runs(runs_root)[:10]}
    shown = dict(zip(table[EN["home.recent.run"]], table[EN["home.recent.problems"]]))
    assert set(shown) <= set(expected) | {"renamed victim"}


def test_runs_page_names_every_damaged_run(runs_root: Path) -> None:
    at = open_page("app_pages/runs.py", "en")
    assert_clean(at, "en")
    summaries = list_runs(runs_root)
    damaged = [s for s in summaries if s.problems]
    assert len(damaged) >= 250
    table = _frame_with(at, EN["runs.col.problems"])
    assert len(table) == len(summaries)
    problems = dict(zip(table[EN["runs.col.run"]], table[EN["runs.col.problems"]]))
    for summary in summaries:
        assert problems[summary.run_id] == "; ".join(str(p) for p in summary.problems)
    assert problems["healthy"] == ""
    assert any(str(len(damaged)) in w.value for w in at.warning)
    _no_collision(at)


def test_a_damaged_run_opens_in_detail(runs_root: Path) -> None:
    at = open_page("app_pages/runs.py", "en")
    victim = next(s for s in list_runs(runs_root) if s.problems and s.state == "damaged")
    at.selectbox(key="runs.detail.run").set_value(victim.run_id).run()
    assert_clean(at, "en")
    frame = EN["runs.detail.problem"].split("{")[0]
    details = [w.value for w in at.warning if w.value.startswith(frame)]
    assert len(details) == len(victim.problems)
    shown = re.sub(r"\\(.)", r"\1", details[0])      # markdown escapes: the file's text, literally
    assert shown.endswith(str(victim.problems[0]).split(": ")[-1])


def test_chinese_page_translates_the_problems(runs_root: Path) -> None:
    at = open_page("app_pages/runs.py", "zh")
    assert_clean(at, "zh")
    zh = catalog("zh")
    damaged = [s for s in list_runs(runs_root) if s.problems]
    heading = zh["runs.damaged"].format(count=len(damaged))
    warning = next(w.value for w in at.warning if w.value.startswith(heading))
    assert zh["runs.damaged.more"].format(count=len(damaged) - 20) in warning
    assert warning.count("\n- ") == 21                 # 20 runs named, then "and N more"
    assert "不是" in warning or "缺失" in warning or "无法读取" in warning


def test_truncated_checkpoint_shows_its_problem_not_a_collision(runs_root: Path) -> None:
    at = open_page("app_pages/runs.py", "en")
    cut = next(s for s in list_runs(runs_root) if s.name == "cut")
    at.selectbox(key="runs.detail.run").set_value(cut.run_id).run()
    assert not at.exception, [e.value for e in at.exception]
    _no_collision(at)
    prefix = EN["runs.err.read_var"].split("{")[0]
    assert any(e.value.startswith(prefix) and "ckpt-4" in e.value.replace("\\", "") for e in at.error)


def test_train_page_lists_every_run(runs_root: Path) -> None:
    at = open_page("app_pages/train.py", "en")
    assert not at.exception, [e.value for e in at.exception]
    watch = next(s for s in at.selectbox if s.label == EN["train.watch"])
    assert len(watch.options) == len(list_runs(runs_root))
