"""The busy rule of the timing engine, on injected numbers, and its place in the document."""

from __future__ import annotations

import json

import pytest

from tfcore.timing.busy import LOAD_PER_CORE_LIMIT, WALL_CPU_LIMIT, Busy, busy_rule
from tests.app.timing_fixtures import fake_result
from tfcore.timing.result import ModeResult, TimingResult

QUIET = [("eager", 0.010, 0.012), ("graph", 0.002, 0.004)]  # CPU >= wall: threads computing


def test_an_idle_machine_is_not_busy() -> None:
    busy = busy_rule(QUIET, load_before=1.05, load_after=1.2, cpus=4)
    assert not busy.busy and busy.reasons == ()
    assert busy.load_per_core == pytest.approx(0.2 / 4)  # the worker's own 1 is not counted
    assert busy.wall_cpu_ratio == pytest.approx(10 / 12) and busy.wall_cpu_mode == "eager"


def test_the_issue_case_wall_far_above_cpu_is_busy() -> None:
    # issue 23: eager took 148 ms of wall time but 42 ms of CPU
    busy = busy_rule([("eager", 0.148, 0.042), ("graph", 0.0027, 0.0026)], 1.0, 1.0, cpus=2)
    assert busy.busy and busy.reasons == ("wall_cpu",)
    assert busy.wall_cpu_mode == "eager" and busy.wall_cpu_ratio == pytest.approx(148 / 42)


def test_wall_over_cpu_just_under_the_limit_or_on_a_gpu_is_not_busy() -> None:
    near = [("eager", 0.0100, 0.0100 / (WALL_CPU_LIMIT * 0.99))]
    assert not busy_rule(near, None, None, cpus=2).busy
    far = [("eager", 0.100, 0.010)]
    assert not busy_rule(far, None, None, cpus=2, on_cpu=False).busy  # waits for the GPU
    # steps under a millisecond are timer noise, not evidence
    assert not busy_rule([("graph", 0.0005, 0.0001)], None, None, cpus=2).busy


def test_load_from_other_processes_per_core_is_busy() -> None:
    cpus = 2
    limit_load = 1 + LOAD_PER_CORE_LIMIT * cpus
    assert not busy_rule(QUIET, limit_load - 0.01, None, cpus).busy
    busy = busy_rule(QUIET, 1.0, 7.0, cpus)     # load 6-11 on 2 cores: the issue's machine
    assert busy.busy and busy.reasons == ("load",)
    assert busy.load_per_core == pytest.approx(3.0)
    both = busy_rule([("eager", 0.148, 0.042)], 9.0, 1.0, cpus)
    assert both.reasons == ("load", "wall_cpu")


def test_unknown_load_is_not_evidence() -> None:
    busy = busy_rule(QUIET, None, None, cpus=8)
    assert not busy.busy and busy.load_per_core is None


def test_cpu_times_and_busy_survive_the_json_document() -> None:
    busy = busy_rule([("eager", 0.150, 0.042)], 1.0, 3.0, cpus=2)
    result = fake_result(busy)
    doc = json.loads(json.dumps(result.to_dict()))
    assert doc["busy"]["busy"] is True and doc["busy"]["reasons"] == ["load", "wall_cpu"]
    assert doc["modes"][0]["cpu_times_s"] == [0.042, 0.041, 0.043]
    assert doc["modes"][0]["first_call_cpu_s"] == 0.4
    back = TimingResult.from_dict(doc)
    assert back == result and back.busy.reasons == ("load", "wall_cpu")
    eager = back.mode("eager")
    assert (eager.min_s, eager.median_s, eager.max_s) == (0.148, 0.150, 0.300)
    assert eager.cpu_median_s == 0.042
    # the headline is the ratio of medians: the slow 300 ms repeat does not move it
    assert back.speedup("graph").ratio == pytest.approx(0.150 / 0.0027)
    assert back.speedup("graph").statistic == "median"


def test_an_old_document_without_busy_reads_as_not_busy() -> None:
    doc = fake_result(Busy()).to_dict()
    del doc["busy"]
    for mode in doc["modes"]:
        for key in ("cpu_times_s", "wall_times_s", "min_s", "max_s", "first_call_cpu_s"):
            del mode[key]
    back = TimingResult.from_dict(doc)
    assert back.busy == Busy() and back.mode("eager").cpu_times_s == ()
    assert isinstance(back.modes[0], ModeResult)
