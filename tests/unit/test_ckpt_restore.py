"""Restore, evaluate, predict and export run checkpoints; the real worker end to end."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from tests.unit.fixtures_runs import (
    ROOT,
    cli_train_available,
    make_cli_run,
    make_run,
    make_worker_run,
    worker_available,
)
from tfcore.jsonio import read_json
from tfcore.runs.checkpoints import list_checkpoints
from tfcore.runs.ckpt_variables import list_variables, read_tensor
from tfcore.runs.export import export_checkpoint, export_run_zip
from tfcore.runs.restore import evaluate_run, predict_run, reported_test_metrics, restore_run


@pytest.fixture(scope="module")
def runs_root(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("restore_ws") / "runs"


@pytest.fixture(scope="module")
def run(runs_root: Path) -> Path:
    runs_root.mkdir(parents=True, exist_ok=True)
    return runs_root / make_run(runs_root, steps=12, ckpt_every=4)


@pytest.fixture(scope="module")
def worker_run(runs_root: Path) -> Path:
    """A run trained by the real worker: through ``python -m tfcore train`` when that
    command exists, else through ``tfcore.training.jobs.start_run``."""
    assert worker_available(), "tfcore/training/worker.py and tfcore/training/jobs.py are part of the project"
    runs_root.mkdir(parents=True, exist_ok=True)
    if cli_train_available():
        return runs_root / make_cli_run(runs_root)
    return runs_root / make_worker_run(runs_root)


def test_restore_then_evaluate_gives_the_reported_test_metrics(run: Path) -> None:
    result = evaluate_run(run)
    reported = read_json(run / "status.json")["test_metrics"]
    assert result.checkpoint == "ckpt-12" and result.step == 12 and result.examples == 359
    assert result.report.complete
    assert set(result.metrics) == set(reported) == {"loss", "sparse_categorical_accuracy"}
    for name, value in reported.items():
        assert result.metrics[name] == pytest.approx(value, abs=1e-6)
    assert result.reported == pytest.approx(reported_test_metrics(run, 12))


def test_earlier_checkpoint_evaluates_differently(run: Path) -> None:
    early, late = evaluate_run(run, 4), evaluate_run(run, 12)
    assert early.step == 4 and early.reported is None
    assert early.metrics["loss"] != pytest.approx(late.metrics["loss"], abs=1e-6)


def test_restore_with_optimizer_brings_back_its_state(run: Path) -> None:
    restored = restore_run(run, 8, with_optimizer=True)
    assert restored.report.complete and restored.step == 8
    assert int(restored.optimizer.iterations.numpy()) == 8
    kernel = read_tensor(restored.prefix, "optimizer/_trainable_variables/0/.ATTRIBUTES/"
                         "VARIABLE_VALUE")
    np.testing.assert_array_equal(restored.model.get_layer("dense").kernel.numpy(), kernel)
    names = {var for _, var in restored.report.matched}
    assert any("momentum" in n for n in names) and any("velocity" in n for n in names)


def test_predict_a_few_examples(run: Path) -> None:
    out = predict_run(run, count=5)
    assert out.x.shape == (5, 8, 8, 1) and out.y_pred.shape == (5,)
    assert ((out.confidence > 0) & (out.confidence <= 1)).all()
    assert out.class_names[:3] == ("0", "1", "2")


def test_exports_load_back_with_the_same_outputs(run: Path, tmp_path: Path) -> None:
    import keras

    restored = restore_run(run, 8)
    x = np.random.default_rng(0).random((4, 8, 8, 1), dtype=np.float32)
    expected = restored.model.predict(x, verbose=0)
    keras_file = export_checkpoint(run, tmp_path, "keras", 8)
    assert keras_file.path.name.endswith("ckpt-8.keras")
    loaded = keras.saving.load_model(keras_file.path, safe_mode=True)
    np.testing.assert_allclose(loaded.predict(x, verbose=0), expected, atol=1e-6)
    weights = export_checkpoint(run, tmp_path, "weights_h5", 8)
    fresh = restore_run(run, 4).model
    fresh.load_weights(weights.path)
    np.testing.assert_allclose(fresh.predict(x, verbose=0), expected, atol=1e-6)
    saved = export_checkpoint(run, tmp_path, "savedmodel", 8)
    with zipfile.ZipFile(saved.path) as archive:
        assert any(n.endswith("saved_model.pb") for n in archive.namelist())
    whole = export_run_zip(run, tmp_path)
    with zipfile.ZipFile(whole.path) as archive:
        names = archive.namelist()
    assert f"{run.name}/run.json" in names and f"{run.name}/ckpt/ckpt-12.index" in names


def test_real_worker_run_lists_and_evaluates_to_its_reported_metrics(worker_run: Path) -> None:
    listing = list_checkpoints(worker_run)
    assert listing.entries and listing.latest.ok
    status = read_json(worker_run / "status.json")
    assert listing.latest.number == status["step"]
    shapes = sorted(v.shape for v in list_variables(worker_run).variables
                    if v.label.startswith("model/"))
    assert shapes == sorted([(64, 16), (16,), (16, 10), (10,)])
    result = evaluate_run(worker_run)
    assert result.report.complete
    for name, value in status["test_metrics"].items():
        assert result.metrics[name] == pytest.approx(value, abs=1e-5)


def _cli(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    return subprocess.run([sys.executable, "-m", "tfcore", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


def test_cli_ckpt_eval_prints_the_worker_metrics(worker_run: Path) -> None:
    proc = _cli("ckpt", "eval", worker_run.name, "--runs-root", str(worker_run.parent))
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout)
    reported = read_json(worker_run / "status.json")["test_metrics"]
    assert out["complete"] and out["step"] == read_json(worker_run / "status.json")["step"]
    for name, value in reported.items():
        assert out["metrics"][name] == pytest.approx(value, abs=1e-5)
    missing = _cli("ckpt", "eval", "no-such-run", "--runs-root", str(worker_run.parent))
    assert missing.returncode == 2 and "does not exist" in missing.stderr


def test_continue_training_starts_a_new_run_from_the_checkpoint(run: Path) -> None:
    from tfcore.runs.export import continue_training
    from tfcore.training import jobs

    workspace_root = run.parent.parent
    env_before = os.environ.get("TFLAB_WORKSPACE")
    os.environ["TFLAB_WORKSPACE"] = str(workspace_root)   # the worker confines the weights
    try:
        new_id = continue_training(run.parent, run.name, workspace_root, 8)
        state = jobs.wait_for(run.parent, new_id, timeout=400)
    finally:
        if env_before is None:
            os.environ.pop("TFLAB_WORKSPACE", None)
        else:
            os.environ["TFLAB_WORKSPACE"] = env_before
    request = read_json(run.parent / new_id / "run.json")
    assert request["resume_of"]["run"] == run.name
    assert request["initial_weights"] == f"exports/{run.name}/{run.name}-ckpt-8.weights.h5"
    assert request["spec"] == read_json(run / "run.json")["spec"]
    assert state == "finished", (run.parent / new_id / "log.txt").read_text()[-2000:]
    first = [r for r in map(json.loads, (run.parent / new_id / "metrics.jsonl")
                            .read_text().splitlines()) if r["split"] == "train"][0]
    original = [r for r in map(json.loads, (run / "metrics.jsonl").read_text().splitlines())
                if r["split"] == "train"]
    # starting from step 8's weights: the first loss is far below the untrained loss
    assert first["loss"] < original[0]["loss"] - 0.1
