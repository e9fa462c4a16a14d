"""Checkpoint listing, variables, statistics, diff, tutorial checkpoints and damage."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from tests.unit.fixtures_runs import make_run, make_tutorial_checkpoint, tiny_spec
from tfcore.errors import CheckpointError, RunError
from tfcore.model.spec import from_dict
from tfcore.runs.admin import list_runs
from tfcore.runs.checkpoints import list_checkpoints
from tfcore.runs.ckpt_variables import list_variables, read_tensor
from tfcore.runs.compare import diff_checkpoints, variable_stats
from tfcore.runs.restore import evaluate_run, restore_run, restore_spec

KERNEL = "optimizer/_trainable_variables/0/.ATTRIBUTES/VARIABLE_VALUE"


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("ckpt_runs")
    return root / make_run(root, steps=12, ckpt_every=4)


@pytest.fixture(scope="module")
def tutorial(tmp_path_factory) -> Path:
    return make_tutorial_checkpoint(tmp_path_factory.mktemp("tutorial"))


def _copy(run: Path, tmp_path: Path) -> Path:
    target = tmp_path / "runs" / run.name
    shutil.copytree(run, target)
    return target


def test_list_checkpoints_of_a_run(run: Path) -> None:
    listing = list_checkpoints(run)
    assert [e.number for e in listing.entries] == [4, 8, 12]
    assert listing.latest.number == 12 and listing.latest.latest
    assert listing.has_state_file and not listing.problems
    for entry in listing.entries:
        assert entry.ok
        assert set(entry.files) == {f"ckpt-{entry.number}.index",
                                    f"ckpt-{entry.number}.data-00000-of-00001"}
        assert entry.size == sum((run / "ckpt" / f).stat().st_size for f in entry.files)
    times = [e.time for e in listing.entries]
    assert times == sorted(times)
    with pytest.raises(CheckpointError):
        listing.get(5)


def test_variables_of_a_run_checkpoint(run: Path) -> None:
    variables = list_variables(run, 8)
    assert variables.prefix.name == "ckpt-8"
    by_key = {v.key: v for v in variables.variables}
    assert by_key[KERNEL].shape == (64, 16) and by_key[KERNEL].dtype == "float32"
    assert by_key[KERNEL].label.endswith("kernel")
    assert by_key["step/.ATTRIBUTES/VARIABLE_VALUE"].dtype == "int64"
    assert int(read_tensor(variables.prefix, "step/.ATTRIBUTES/VARIABLE_VALUE")) == 8
    shapes = sorted(v.shape for v in variables.variables if v.label.startswith("model/"))
    assert shapes == sorted([(64, 16), (16,), (16, 10), (10,)])


def test_labels_name_the_models_variables(run: Path) -> None:
    from tfcore.runs.restore import variable_labels

    labels = variable_labels(run)
    assert labels[KERNEL] == "dense/kernel"
    assert labels["optimizer/_trainable_variables/3/.ATTRIBUTES/VARIABLE_VALUE"] == "logits/bias"
    assert any("dense_kernel_momentum" in v for v in labels.values())
    named = list_variables(run, labels=labels)
    assert named.get(KERNEL).label == "dense/kernel"
    assert variable_labels(run.parent / "no-such-run") == {}


def test_variable_stats_match_numpy(run: Path) -> None:
    prefix = list_checkpoints(run).latest.prefix
    stats = variable_stats(prefix, KERNEL, bins=10)
    value = read_tensor(prefix, KERNEL).astype(np.float64)
    assert stats.count == 64 * 16 and sum(stats.hist_counts) == 64 * 16
    assert stats.mean == pytest.approx(value.mean())
    assert stats.std == pytest.approx(value.std())
    assert stats.min == pytest.approx(value.min()) and stats.max == pytest.approx(value.max())
    assert stats.norm == pytest.approx(np.linalg.norm(value))
    assert len(stats.hist_edges) == 11


def test_diff_with_itself_is_zero_and_training_changes_weights(run: Path) -> None:
    listing = list_checkpoints(run)
    same = diff_checkpoints(listing.entries[0].prefix, listing.entries[0].prefix)
    assert same.rows and all(r.status == "same" for r in same.rows)
    assert all(r.norm_change == 0 and r.max_abs_change == 0 and r.relative_change == 0
               for r in same.rows)
    moved = {r.key: r for r in diff_checkpoints(listing.entries[0].prefix,
                                                listing.entries[-1].prefix).rows}
    kernel = moved[KERNEL]
    a = read_tensor(listing.entries[0].prefix, KERNEL)
    b = read_tensor(listing.entries[-1].prefix, KERNEL)
    assert kernel.status == "changed"
    assert kernel.norm_change == pytest.approx(np.linalg.norm(b - a), rel=1e-5)
    assert kernel.max_abs_change == pytest.approx(np.abs(b - a).max(), rel=1e-5)
    assert kernel.relative_change == pytest.approx(np.linalg.norm(b - a) / np.linalg.norm(a),
                                                   rel=1e-5)
    assert moved["step/.ATTRIBUTES/VARIABLE_VALUE"].norm_change == 8


def test_tutorial_checkpoint_is_read_and_restored_by_order(tutorial: Path) -> None:
    assert sorted(p.name for p in tutorial.iterdir()) == [
        "checkpoint", "model.ckpt-1.data-00000-of-00001", "model.ckpt-1.index"]
    listing = list_checkpoints(tutorial)
    assert [e.number for e in listing.entries] == [1] and listing.latest.ok
    variables = {v.key: v for v in list_variables(tutorial).variables}
    assert variables["myModel/dense1/_kernel/.ATTRIBUTES/VARIABLE_VALUE"].shape == (784, 100)
    assert variables["myModel/dense2/bias/.ATTRIBUTES/VARIABLE_VALUE"].shape == (10,)
    from tfcore.model.presets import get_preset

    restored = restore_spec(tutorial, get_preset("mlp"))
    report = restored.report
    assert report.complete and not report.matched and len(report.by_order) == 4
    kernel = read_tensor(listing.latest.prefix,
                         "myModel/dense1/_kernel/.ATTRIBUTES/VARIABLE_VALUE")
    dense = restored.model.get_layer("dense")
    np.testing.assert_array_equal(dense.kernel.numpy(), kernel)
    strict = restore_spec(tutorial, get_preset("mlp"), by_order=False).report
    assert not strict.complete and len(strict.missing) == 4 and len(strict.unused) == 4


def test_missing_state_file_rebuilds_list(run: Path, tmp_path: Path) -> None:
    copy = _copy(run, tmp_path)
    (copy / "ckpt" / "checkpoint").unlink()
    listing = list_checkpoints(copy)
    assert not listing.has_state_file
    assert any("'checkpoint' state file is missing" in str(p) for p in listing.problems)
    assert [e.number for e in listing.entries] == [4, 8, 12] and listing.latest.number == 12
    assert evaluate_run(copy).report.complete


def test_missing_index_is_reported(run: Path, tmp_path: Path) -> None:
    copy = _copy(run, tmp_path)
    (copy / "ckpt" / "ckpt-8.index").unlink()
    listing = list_checkpoints(copy)
    assert [e.number for e in listing.entries] == [4, 12]
    assert any("ckpt-8" in str(p) and ".index" in str(p) for p in listing.problems)


def test_truncated_data_file_is_reported_not_raised(run: Path, tmp_path: Path) -> None:
    copy = _copy(run, tmp_path)
    data = copy / "ckpt" / "ckpt-12.data-00000-of-00001"
    data.write_bytes(data.read_bytes()[:100])
    listing = list_checkpoints(copy)
    entry = listing.get(12)
    assert not entry.ok and any("cannot be read" in str(p) for p in entry.problems)
    assert listing.get(8).ok
    result = evaluate_run(copy, 12)
    assert not result.report.complete and result.metrics == {}
    assert result.report.problems
    (copy / "ckpt" / "ckpt-4.data-00000-of-00001").unlink()
    assert any("missing" in str(p) for p in list_checkpoints(copy).get(4).problems)
    assert (copy / "ckpt" / "ckpt-12.index").exists()  # nothing deleted


def test_run_without_run_json_is_listed_with_its_problem(run: Path, tmp_path: Path) -> None:
    copy = _copy(run, tmp_path)
    (copy / "run.json").unlink()
    summaries = list_runs(copy.parent)
    assert [s.run_id for s in summaries] == [copy.name]
    assert any("run.json" in str(p) for p in summaries[0].problems)
    assert [e.number for e in list_checkpoints(copy).entries] == [4, 8, 12]
    with pytest.raises(RunError):
        restore_run(copy)


def test_variables_that_do_not_fit_the_spec(run: Path, tmp_path: Path) -> None:
    copy = _copy(run, tmp_path)
    request = json.loads((copy / "run.json").read_text())
    request["spec"] = tiny_spec("tiny", units=32)
    (copy / "run.json").write_text(json.dumps(request))
    result = evaluate_run(copy)
    assert not result.report.complete and result.metrics == {}
    mismatched = {var: (a, b) for _, var, a, b in result.report.shape_mismatch}
    assert mismatched["dense/kernel"] == ((64, 16), (64, 32))
    assert any("shape mismatch" in line for line in result.problem_lines())
    report = restore_spec(list_checkpoints(run).latest.prefix,
                          from_dict(tiny_spec("tiny", units=32)), root="model").report
    assert report.shape_mismatch and not report.complete
