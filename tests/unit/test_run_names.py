"""Runs are named after their model or the name typed before Start, unique in the runs
folder (``lesson_net``, ``lesson_net 2``), not all "my_model" (issue 23, item 6)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.unit.fixtures_runs import tiny_spec
from tests.unit.fixtures_runs import training as tiny_training
from tfcore.data import DatasetRequest
from tfcore.rundir import RunStore, run_name_base, unique_run_name
from tfcore.runs import list_runs, rename_run
from tfcore.training import DeviceConfig


def _request(**extra) -> dict:
    return {"spec": {**tiny_spec(), "name": "lesson_net"},
            "dataset": DatasetRequest(name="digits8").to_dict(),
            "training": tiny_training(steps=2, ckpt_every=10, seed=3),
            "device": DeviceConfig().to_dict(), **extra}


def test_a_taken_name_gets_the_first_free_number():
    assert unique_run_name("lesson_net", []) == "lesson_net"
    assert unique_run_name("lesson_net", ["lesson_net"]) == "lesson_net 2"
    assert unique_run_name("lesson_net", ["lesson_net", "lesson_net 2"]) == "lesson_net 3"
    assert unique_run_name("lesson_net", ["lesson_net", "lesson_net 3"]) == "lesson_net 2"
    assert unique_run_name("  a   b ", []) == "a b" and unique_run_name("", []) == "run"


def test_the_name_asked_for_comes_before_the_model_name():
    assert run_name_base(_request()) == "lesson_net"
    assert run_name_base(_request(name="wider")) == "wider"
    assert run_name_base({"spec": {}}) == "run"


def test_two_runs_of_the_same_model_are_x_and_x_2(tmp_path: Path, monkeypatch) -> None:
    from tfcore.training import jobs

    monkeypatch.setattr(jobs, "reconcile", lambda root, exclude_pid=None: None)  # no worker
    first = jobs.start_run(tmp_path, _request())
    second = jobs.start_run(tmp_path, _request())
    typed = jobs.start_run(tmp_path, _request(name="wider"))
    store = RunStore(tmp_path)
    assert [store.get(r).name for r in (first, second, typed)] == \
        ["lesson_net", "lesson_net 2", "wider"]
    assert json.loads((tmp_path / second / "run.json").read_text())["name"] == "lesson_net 2"
    assert second.startswith("lesson_net-2-")      # TensorBoard's run folder reads the same
    rename_run(tmp_path, first, "kept")             # a person's name counts as taken, too
    third = jobs.start_run(tmp_path, _request(name="kept"))
    assert store.get(third).name == "kept 2"
    assert {s.name for s in list_runs(tmp_path)} == {"kept", "lesson_net 2", "wider", "kept 2"}


def test_a_saved_model_is_called_by_its_saved_name(tmp_path: Path) -> None:
    from tfcore.model import from_dict
    from tfcore.model import store as models_store
    from tfcore.workspace import Workspace

    ws = Workspace(tmp_path).ensure()
    models_store.save_spec(ws, "lesson_net", from_dict({**tiny_spec(), "name": "my_model"}))
    loaded = models_store.load_spec(ws, "lesson_net")
    assert loaded.name == "lesson_net"
    assert run_name_base({"spec": loaded.to_dict()}) == "lesson_net"
