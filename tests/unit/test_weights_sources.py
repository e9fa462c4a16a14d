"""Weights from a training run: latest checkpoint, else model.keras, else the spec alone."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.unit.fixtures_weights import make_run
from tfcore.errors import WeightsError
from tfcore.weights.sources import CHECKPOINT, FINAL_MODEL, FRESH, has_weights, model_from_run


def test_latest_checkpoint_is_restored(tmp_path: Path) -> None:
    run = make_run(tmp_path / "run-a", steps=(100, 200), final=True)
    assert has_weights(run)
    found = model_from_run(run)
    assert (found.source, found.checkpoint, found.step) == (CHECKPOINT, "ckpt-200", 200)
    assert np.all(found.model.get_layer("dense").kernel.numpy() == 200)
    assert found.spec.name == "mlp"


def test_final_model_when_no_checkpoint(tmp_path: Path) -> None:
    found = model_from_run(make_run(tmp_path / "run-b", final=True))
    assert found.source == FINAL_MODEL and found.step is None
    assert np.all(found.model.get_layer("dense").kernel.numpy() == -1)


def test_spec_only_and_missing_run_json(tmp_path: Path) -> None:
    run = make_run(tmp_path / "run-c")
    assert not has_weights(run)
    assert model_from_run(run).source == FRESH
    (tmp_path / "empty").mkdir()
    with pytest.raises(WeightsError, match="no readable run.json"):
        model_from_run(tmp_path / "empty")


def test_cli_reads_a_run_directory(tmp_path: Path, capsys) -> None:
    import json

    from tfcore.cli import main

    run = make_run(tmp_path / "run-d", steps=(3,))
    assert main(["weights", str(run)]) == 0
    doc = json.loads(capsys.readouterr().out)
    kernel = next(v for v in doc["variables"] if v["path"] == "dense/kernel")
    assert kernel["stats"]["mean"] == 3.0 and doc["total_params"] == 79_510
