"""Training runs end to end on real temp run directories, through real worker processes.

The runs that only need to finish are started together (one runs root each, so each
has its own worker slot) and checked one by one; stop/resume/SIGKILL share one run.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.unit.fixtures_train import WAIT, m1_request, mlp_request, train_records, wait_until
from tfcore.rundir.store import RunStore
from tfcore.training import jobs

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def started(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Start the M3 CLI run, M1, the NaN run and the mirrored run at once."""
    out: dict = {}
    cli_root = tmp_path_factory.mktemp("cli_runs")
    out["cli"] = (cli_root, subprocess.Popen(
        [sys.executable, "-m", "tfcore", "train", "--preset", "mlp", "--dataset", "digits28",
         "--epochs", "3", "--batch-size", "50", "--optimizer", "adam", "--lr", "0.001",
         "--runs-dir", str(cli_root), "--ckpt-every", "20", "--keep", "2"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    for name, request in (
        ("m1", m1_request()),
        ("nan", m1_request(steps=300, learning_rate=1e6, validate_every=1)),
        ("mirrored", mlp_request(epochs=1, loop="custom")
         | {"device": {"kind": "mirrored", "logical_devices": 2}}),
    ):
        root = tmp_path_factory.mktemp(f"{name}_runs")
        out[name] = (root, jobs.start_run(root, request))
    yield out
    proc = out["cli"][1]
    if proc.poll() is None:
        proc.kill()


def _finished(root: Path, run_id: str):
    assert jobs.wait_for(root, run_id, timeout=WAIT) in ("finished", "failed", "stopped")
    return RunStore(root).get(run_id)


def test_m3_mlp_on_digits_learns_via_cli(started: dict) -> None:
    root, proc = started["cli"]
    stdout, stderr = proc.communicate(timeout=WAIT)
    assert proc.returncode == 0, stderr[-3000:]
    summary = json.loads(stdout.strip().splitlines()[-1])
    assert summary["state"] == "finished"
    assert summary["steps"] == 3 * 26 and summary["epochs"] == 3   # 1257 train / 50
    assert summary["test"]["sparse_categorical_accuracy"] > 0.8     # chance is 0.1
    assert summary["val"]["sparse_categorical_accuracy"] > 0.8
    assert summary["samples_per_sec"] > 0 and summary["wall_seconds"] > 0
    run_dir = Path(summary["run_dir"])
    assert (run_dir / "model.keras").is_file()
    assert sorted(p.name for p in (run_dir / "ckpt").glob("*.index")) == [
        "ckpt-60.index", "ckpt-78.index"]                              # every 20, keep 2
    assert list((run_dir / "tb").rglob("events.out.tfevents.*"))  # tb/train/, ...
    splits = [r["split"] for r in RunStore(root).metrics(summary["run_id"]).records]
    assert splits.count("val") == 3 and splits.count("test") == 1
    assert "[train] epoch 1 step 1" in stderr


def test_m1_linear_regression_matches_the_tutorial(started: dict) -> None:
    root, run_id = started["m1"]
    record = _finished(root, run_id)
    assert record.status.state == "finished", record.status.message
    assert record.status.step == 10_000
    params = record.status.extra["parameters"]          # keyed by variable path
    kernel = next(v for k, v in params.items() if k.endswith("linear/kernel"))
    bias = next(v for k, v in params.items() if k.endswith("linear/bias"))
    assert kernel[0] == pytest.approx(0.9764, abs=1e-3)   # a
    assert bias[0] == pytest.approx(0.0576, abs=1e-3)     # b


def test_nan_loss_fails_cleanly(started: dict) -> None:
    root, run_id = started["nan"]
    record = _finished(root, run_id)
    assert record.status.state == "failed"
    assert record.status.extra["error_key"] == "train.err.nan"
    assert "learning rate" in record.status.message
    assert record.status.step < 300                        # stopped early, not at the end
    assert not list(record.paths.ckpt_dir.glob(f"ckpt-{record.status.step}.index"))
    assert not record.paths.model.exists()


def test_mirrored_strategy_over_two_logical_cpus(started: dict) -> None:
    root, run_id = started["mirrored"]
    record = _finished(root, run_id)
    assert record.status.state == "finished", record.status.message
    assert record.status.extra["replicas"] == 2
    assert record.status.extra["per_replica_batch"] == 25
    assert record.status.extra["test_metrics"]["sparse_categorical_accuracy"] > 0.5


def _restore(run_dir: Path, request: dict) -> tuple[int, int]:
    """Restore the latest checkpoint into a fresh model + optimizer: (step, iterations)."""
    import tensorflow as tf

    from tfcore.model.build import build_model
    from tfcore.model.spec import from_dict
    from tfcore.training.config import TrainConfig, make_optimizer

    model = build_model(from_dict(request["spec"]))
    optimizer = make_optimizer(TrainConfig.from_dict(request["training"]), 100, 10)
    optimizer.build(model.trainable_variables)
    ckpt = tf.train.Checkpoint(step=tf.Variable(0, dtype=tf.int64), model=model,
                               optimizer=optimizer)
    ckpt.restore(tf.train.latest_checkpoint(str(run_dir / "ckpt"))).assert_consumed()
    return int(ckpt.step.numpy()), int(optimizer.iterations.numpy())


def test_stop_resume_and_sigkill(tmp_path: Path) -> None:
    request = mlp_request(epochs=40, batch_size=8, ckpt_every=1000)      # Adam, lr 1e-3
    run_id = jobs.start_run(tmp_path, request)
    store = RunStore(tmp_path)
    wait_until(lambda: len(train_records(tmp_path, run_id)) >= 3
               and train_records(tmp_path, run_id)[-1]["step"] >= 80)
    assert jobs.stop_run(tmp_path, run_id) == "stopping"
    assert jobs.wait_for(tmp_path, run_id, timeout=WAIT) == "stopped"
    stopped = store.get(run_id).status
    spe = stopped.extra["steps_per_epoch"]
    assert spe == 158 and 80 <= stopped.step < 40 * spe
    assert jobs.checkpoint_steps(store.paths(run_id))[-1] == stopped.step
    assert _restore(store.paths(run_id).root, request) == (stopped.step, stopped.step)
    before = train_records(tmp_path, run_id)

    assert jobs.resume_run(tmp_path, run_id) == run_id
    wait_until(lambda: len(train_records(tmp_path, run_id)) >= len(before) + 10)
    after = train_records(tmp_path, run_id)[len(before):]
    assert after[0]["step"] == stopped.step + 1          # the step count continues
    assert store.get(run_id).status.extra["resumed_from"] == stopped.step
    def mean(records: list[dict]) -> float:
        return sum(r["loss"] for r in records) / len(records)

    # the loss goes on from where it stopped, far below where the run began
    assert mean(after[:10]) < 3 * mean(before[-10:])
    assert before[0]["step"] == 1 and mean(after[:10]) < 0.5 * before[0]["loss"]

    pid = store.get(run_id).status.pid
    os.kill(pid, signal.SIGKILL)
    wait_until(lambda: not jobs.pid_alive(pid), timeout=30)
    report = jobs.reconcile(tmp_path)
    assert run_id in report.interrupted
    assert store.get(run_id).status.state == "interrupted"
    assert jobs.reconcile(tmp_path).interrupted == ()     # reported once


def test_model_and_dataset_that_cannot_fit_are_refused_before_training() -> None:
    from tfcore.data.loader import DatasetRequest, load_dataset
    from tfcore.errors import RunError
    from tfcore.model.build import build_model
    from tfcore.model.presets import get_preset
    from tfcore.training.fits import check_model_fits

    mlp = build_model(get_preset("mlp"))
    circles = load_dataset(DatasetRequest(name="circles")).info
    with pytest.raises(RunError) as info:
        check_model_fits(mlp, circles, "sparse_categorical_crossentropy")
    assert info.value.key == "train.err.input_shape" and "(2,)" in info.value.message
    check_model_fits(mlp, load_dataset(DatasetRequest(name="digits28")).info,
                     "sparse_categorical_crossentropy")     # the default pair fits
