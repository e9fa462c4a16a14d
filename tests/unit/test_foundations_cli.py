"""CLI of the foundations labs: JSON out, engine errors exit 2 with the message."""

from __future__ import annotations

import json

import pytest

from tfcore.cli import main


def test_grad_t2_prints_exact_gradients(capsys: pytest.CaptureFixture) -> None:
    assert main(["grad", "t2"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["value"] == 62.5 and out["gradients"] == {"w": [[35.0], [50.0]], "b": 15.0}


def test_grad_with_values(capsys: pytest.CaptureFixture) -> None:
    assert main(["grad", "product", "--set", "x=1", "--set", "y=5", "--set", "z=2"]) == 0
    assert json.loads(capsys.readouterr().out)["gradients"] == {"x": 10.0, "y": 2.0, "z": 5.0}


def test_regress_m2(capsys: pytest.CaptureFixture) -> None:
    assert main(["regress", "m2"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["step"] == 100
    assert out["params"]["kernel"] == pytest.approx([0.408, 1.191, 1.974], abs=1e-3)


def test_tensor_shape_error_exits_2(capsys: pytest.CaptureFixture) -> None:
    assert main(["tensor", "matmul", "1 2 3; 4 5 6", "1 2; 3 4"]) == 2
    err = capsys.readouterr().err
    assert "[2, 3]" in err and "[2, 2]" in err
    assert main(["tensor", "reduce_sum", "1 2; 3 4", "--axis", "1"]) == 0
    assert json.loads(capsys.readouterr().out)["values"] == [3.0, 7.0]


def test_pipeline_and_placement(capsys: pytest.CaptureFixture) -> None:
    assert main(["pipeline", "--buffer", "1", "--batches", "2", "--batch", "8"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["classes_per_batch"] == [1, 1] and out["labels"][0] == [0] * 8
    assert main(["placement"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["try_all_gpus()"] and out["device"]
