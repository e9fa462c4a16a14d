"""Versioned contracts: ``run.json`` and the model spec record their format. A run folder
written before formats were recorded (today's writer, ``format`` stripped) still opens in
the store and in ``runs list/show``; a newer format is a located problem that marks that run
damaged and nothing else; a spec of a newer format is refused with a located SpecError."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.unit.fixtures_runs import make_run
from tfcore.cli import main
from tfcore.errors import SpecError
from tfcore.model import from_dict, get_preset
from tfcore.rundir import RUN_FORMAT, RunStore, RunWriter
from ui.common.i18n import catalog

NEWER = RUN_FORMAT + 2


def _rewrite(run_json: Path, **changes) -> None:
    """Rewrite ``run.json`` with ``changes`` (a value of None removes that field)."""
    body = json.loads(run_json.read_text())
    for key, value in changes.items():
        body.pop(key, None) if value is None else body.__setitem__(key, value)
    run_json.write_text(json.dumps(body))


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A trained run as today's code writes it, a copy without ``format`` (an old run) and
    a copy of a newer format."""
    root = tmp_path_factory.mktemp("formats") / "runs"
    root.mkdir()
    current = make_run(root, name="current", steps=4, ckpt_every=4)
    for run_id, fmt in (("old", None), ("newer", NEWER)):
        shutil.copytree(root / current, root / run_id)
        _rewrite(root / run_id / "run.json", format=fmt, name=run_id)
    (root / current).rename(root / "current")
    return root


def test_the_writer_records_its_format_first_whatever_was_asked(tmp_path: Path) -> None:
    writer = RunWriter.create(tmp_path, {"name": "a", "format": 99}, run_id="a")
    body = json.loads(writer.paths.run_json.read_text())
    assert list(body)[0] == "format" and body["format"] == RUN_FORMAT == 1
    assert RunStore(tmp_path).get("a").problems == ()


def test_an_old_run_without_a_format_opens_like_a_current_one(runs: Path) -> None:
    store = RunStore(runs)
    assert "format" not in json.loads((runs / "old" / "run.json").read_text())
    for run_id in ("old", "current"):
        record = store.get(run_id)
        assert record.problems == () and not record.damaged
        assert record.status.state == "finished" and record.name == run_id
        assert record.request["dataset"]["name"] == "digits8"


def test_a_newer_format_is_located_and_damages_only_its_run(runs: Path) -> None:
    records = {r.run_id: r for r in RunStore(runs).list()}
    assert set(records) == {"old", "current", "newer"}
    newer = records["newer"]
    assert [str(p) for p in newer.problems] == [
        f"run.json: format: {NEWER} is newer than this TF Lab understands (1)"]
    assert newer.problems[0].key == "runs.problem.newer"
    zh = catalog("zh")[newer.problems[0].key].format(**newer.problems[0].params)
    assert zh.startswith("run.json: format：3 ") and "（1）" in zh
    assert newer.damaged and newer.status.state == "finished" and newer.name == "newer"
    assert records["old"].problems == () and records["current"].problems == ()


@pytest.mark.parametrize("bad", ["1", 0, True, 1.0])
def test_a_format_that_is_no_known_integer_is_a_located_problem(tmp_path: Path,
                                                                 bad) -> None:
    RunWriter.create(tmp_path, {"name": "a"}, run_id="a")
    _rewrite(tmp_path / "a" / "run.json", format=bad)
    problems = [str(p) for p in RunStore(tmp_path).get("a").problems]
    assert len(problems) == 1 and problems[0].startswith("run.json: format: ")


def test_runs_list_and_show_open_old_current_and_newer_runs(runs: Path, capsys) -> None:
    assert main(["runs", "list", "--runs-root", str(runs)]) == 0
    listed = {r["run"]: r for r in json.loads(capsys.readouterr().out)}
    assert set(listed) == {"old", "current", "newer"}
    assert listed["old"]["problems"] == [] and listed["current"]["problems"] == []
    assert listed["newer"]["problems"] == [
        f"run.json: format: {NEWER} is newer than this TF Lab understands (1)"]
    for run_id in ("old", "newer"):
        assert main(["runs", "show", run_id, "--runs-root", str(runs)]) == 0
        shown = json.loads(capsys.readouterr().out)
        assert shown["request"]["name"] == run_id
        assert [e["number"] for e in shown["checkpoints"]["entries"]] == [4]


def test_a_spec_without_a_format_reads_as_format_1() -> None:
    data = get_preset("mlp").to_dict()
    assert data["format"] == 1
    del data["format"]
    assert from_dict(data) == get_preset("mlp")


@pytest.mark.parametrize("fmt, key", [(2, "spec.problem.format_newer"),
                                      (0, "spec.problem.format"),
                                      ("1", "spec.problem.format"),
                                      (True, "spec.problem.format")])
def test_a_spec_of_another_format_is_refused_located(fmt, key: str) -> None:
    data = {**get_preset("mlp").to_dict(), "format": fmt}
    with pytest.raises(SpecError) as caught:
        from_dict(data)
    (problem,) = caught.value.details
    assert (problem.where, problem.value, problem.key) == ("spec.format", fmt, key)
    if fmt == 2:
        assert str(problem) == ("spec.format: Format 2 is newer than this TF Lab "
                                "understands (1). Received: 2")
    for lang in ("en", "zh"):
        text = catalog(lang)[key].format(where=problem.where, value=repr(fmt),
                                         **problem.params)
        assert text.startswith("spec.format") and repr(fmt) in text and "1" in text
