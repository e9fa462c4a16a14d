"""Run summaries, rename/tag in meta.json, delete, old-checkpoint cleanup, curves."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from tests.unit.fixtures_runs import make_run
from tfcore.errors import RunError
from tfcore.jsonio import read_json
from tfcore.rundir.store import RunPaths, RunWriter
from tfcore.runs.admin import delete_old_checkpoints, delete_run, list_runs, rename_run, set_tags
from tfcore.runs.checkpoints import list_checkpoints
from tfcore.runs.curves import group_curves, metric_names, run_curves


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Path:
    """Two runs differing only in seed, and one with another model size."""
    root = tmp_path_factory.mktemp("admin") / "runs"
    root.mkdir()
    make_run(root, name="seed0", seed=0, steps=8, ckpt_every=2)
    make_run(root, name="seed1", seed=1, steps=8, ckpt_every=2)
    make_run(root, name="wide", seed=0, steps=8, ckpt_every=4, units=24)
    return root


@pytest.fixture()
def root(pristine: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "runs"
    shutil.copytree(pristine, copy)
    return copy


def _by_name(root: Path) -> dict:
    return {s.name: s for s in list_runs(root)}


def test_list_runs_summarizes_each_run(pristine: Path) -> None:
    runs = _by_name(pristine)
    assert set(runs) == {"seed0", "seed1", "wide"}
    run = runs["seed0"]
    assert (run.model, run.dataset, run.device, run.state) == ("tiny", "digits8", "cpu",
                                                               "finished")
    assert run.steps == 8 and run.total_steps == 8 and run.seed == 0
    assert run.duration and run.duration > 0 and run.started
    status = read_json(pristine / run.run_id / "status.json")
    assert run.final["test/loss"] == pytest.approx(status["test_metrics"]["loss"])
    assert {"train/loss", "val/loss", "test/sparse_categorical_accuracy"} <= set(run.final)
    assert runs["seed0"].group != runs["wide"].group


def test_rename_and_tag_write_only_meta_json(root: Path) -> None:
    run = _by_name(root)["seed0"]
    before = (root / run.run_id / "run.json").read_bytes()
    rename_run(root, run.run_id, "baseline")
    set_tags(root, run.run_id, ["lr0.01", " keep ", "lr0.01"])
    after = _by_name(root)["baseline"]
    assert after.run_id == run.run_id and after.tags == ("lr0.01", "keep")
    meta = json.loads((root / run.run_id / "meta.json").read_text())
    assert meta["name"] == "baseline" and meta["tags"] == ["lr0.01", "keep"]
    assert (root / run.run_id / "run.json").read_bytes() == before
    with pytest.raises(RunError):
        rename_run(root, run.run_id, "   ")


def test_delete_removes_exactly_one_run(root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("keep me")
    before = {p.name for p in root.iterdir()}
    victim = _by_name(root)["seed1"].run_id
    result = delete_run(root, victim)
    after = {p.name for p in root.iterdir()}
    assert before - after == {victim} and after < before
    assert result.freed_bytes > 0 and outside.read_text() == "keep me"
    assert set(_by_name(root)) == {"seed0", "wide"}
    with pytest.raises(RunError):
        delete_run(root, victim)
    with pytest.raises(RunError):
        delete_run(root, "../outside.txt")


def test_active_run_is_not_deleted(root: Path) -> None:
    run_id = _by_name(root)["wide"].run_id
    RunWriter(RunPaths(root / run_id)).set_status(state="queued")
    with pytest.raises(RunError):
        delete_run(root, run_id)
    with pytest.raises(RunError):
        delete_old_checkpoints(root, run_id)
    assert (root / run_id).is_dir()


def test_delete_old_checkpoints_keeps_the_newest(root: Path) -> None:
    import tensorflow as tf

    run_id = _by_name(root)["seed0"].run_id
    assert [e.number for e in list_checkpoints(root / run_id).entries] == [4, 6, 8]
    result = delete_old_checkpoints(root, run_id, keep=1)
    assert sorted(result.removed) == sorted(["ckpt-4.index", "ckpt-4.data-00000-of-00001",
                                             "ckpt-6.index", "ckpt-6.data-00000-of-00001"])
    listing = list_checkpoints(root / run_id)
    assert [e.number for e in listing.entries] == [8] and not listing.problems
    assert tf.train.latest_checkpoint(str(root / run_id / "ckpt")).endswith("ckpt-8")
    assert (root / run_id / "model.keras").exists()


def test_curves_smoothing_and_seed_groups(pristine: Path) -> None:
    runs = _by_name(pristine)
    ids = [runs["seed0"].run_id, runs["seed1"].run_id, runs["wide"].run_id]
    names = metric_names(pristine, ids)
    assert names[0] == "loss" and "sparse_categorical_accuracy" in names
    curves = run_curves(pristine, ids, "loss", splits=("train",), smoothing=0.0)
    assert sorted(curves["run"].unique()) == sorted(ids)
    assert (curves.groupby("run")["step"].apply(list) == [list(range(1, 9))] * 3).all()
    assert np.allclose(curves["value"], curves["smoothed"])
    groups = {s.run_id: s.group for s in runs.values()}
    stats = group_curves(curves, groups)
    pair = stats[stats["group"] == runs["seed0"].group]
    assert list(pair["count"].unique()) == [2] and len(pair) == 8
    a = curves[curves["run"] == ids[0]]["value"].to_numpy()
    b = curves[curves["run"] == ids[1]]["value"].to_numpy()
    assert np.allclose(pair["mean"].to_numpy(), (a + b) / 2)
    assert np.allclose(pair["std"].to_numpy(), np.std(np.stack([a, b]), axis=0, ddof=1))

