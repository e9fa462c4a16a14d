"""``python -m tfcore timing`` and the worker runner the page uses."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import ROOT
from tfcore.cli.cmd_timing import parse_device
from tfcore.errors import TimingError
from tfcore.model.presets import get_preset
from tfcore.timing.result import TimingResult, summary_fields
from tfcore.timing.runner import run_in_worker


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tfcore", "timing", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


def test_cli_prints_one_json_document_with_every_field() -> None:
    proc = _cli("--preset", "mlp", "--batch-size", "4", "--steps", "3", "--warmup", "1",
                "--modes", "eager,graph", "--device", "cpu")
    assert proc.returncode == 0, proc.stderr[-2000:]
    doc = json.loads(proc.stdout)
    assert set(summary_fields()) <= set(doc)
    result = TimingResult.from_dict(doc)
    assert [m.mode for m in result.modes] == ["eager", "graph"]
    assert all(m.first_call_s > 0 and m.median_s > 0 and len(m.times_s) == 3
               for m in result.modes)
    assert doc["preset"] == "mlp" and doc["device"]["type"] == "CPU"
    assert result.speedup("graph").ratio > 0
    # CPU time beside wall time for every repeat, and the engine's busy verdict
    assert all(len(m["cpu_times_s"]) == len(m["wall_times_s"]) == 3 for m in doc["modes"])
    assert set(doc["busy"]) >= {"busy", "reasons", "load_before", "load_after", "cpus"}
    assert doc["busy"]["busy"] == bool(doc["busy"]["reasons"])


def test_cli_refuses_bad_values_with_exit_2() -> None:
    proc = _cli("--preset", "mlp", "--steps", "0", "--no-peak")
    assert proc.returncode == 2
    assert "Received: steps=0" in proc.stderr


def test_parse_device() -> None:
    assert parse_device("cpu").kind == "cpu"
    assert parse_device("gpu:1").gpus == (1,)
    with pytest.raises(TimingError, match="Received: 'tpu'"):
        parse_device("tpu")


def test_worker_reports_progress_and_returns_the_result() -> None:
    seen: list[float] = []
    doc = run_in_worker(get_preset("mlp"), lambda f, m: seen.append(f), batch_size=2,
                        steps=2, modes=("graph",), warmup=0, rounds=1, clock="cpu", threads=1)
    assert seen and seen[-1] == 1.0
    assert doc["modes"][0]["mode"] == "graph" and doc["batch_size"] == 2
    assert doc["clock"] == "cpu" and doc["threads"]["intra_op"] == 1


def test_worker_failure_becomes_a_timing_error() -> None:
    with pytest.raises(TimingError) as info:
        run_in_worker(get_preset("mlp"), batch_size=2, steps=2, modes=("fit",),
                      workload="forward")
    assert "only times the training step" in info.value.message


def test_worker_is_killed_when_the_caller_stops(monkeypatch: pytest.MonkeyPatch) -> None:
    import tfcore.timing.runner as runner

    started: list[subprocess.Popen] = []

    class Recording(subprocess.Popen):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            started.append(self)

    def stop(fraction: float, message: str) -> None:
        raise KeyboardInterrupt("page left")  # what a Streamlit rerun does to the script

    monkeypatch.setattr(runner.subprocess, "Popen", Recording)
    with pytest.raises(KeyboardInterrupt):
        run_in_worker(get_preset("mlp"), stop, batch_size=2, steps=500, modes=("eager",))
    assert len(started) == 1 and started[0].poll() is not None


def test_tracing_and_autograph_commands_print_json(capsys: pytest.CaptureFixture) -> None:
    from tfcore.cli import main

    assert main(["tracing"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["trace_count"] == 6 and len(doc["calls"]) == 11
    assert main(["autograph", "--x", "-2"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert "ag__.if_stmt" in doc["converted"] and doc["graph_result"] == "0"
    assert main(["tracing", "--args", "xx:1"]) == 2
    assert "Received: 'xx:1'" in capsys.readouterr().err
