"""The timing engine: every field, positive times, first call apart, identical starts."""

from __future__ import annotations

import numpy as np
import pytest

from tfcore.errors import TimingError
from tfcore.model.presets import get_preset
from tfcore.model.spec import InputSpec, LayerSpec, ModelSpec
from tfcore.timing.measure import TimingRequest, run_timing
from tfcore.timing.result import ModeResult, TimingResult, speedups, summary_fields
from tfcore.timing.sweep import SweepRequest, run_sweep, with_hidden_width

MLP_FORWARD_FLOPS_PER_EXAMPLE = 2 * 784 * 100 + 2 * 100 * 10  # two matmuls of scenario M3


@pytest.fixture(scope="module")
def mlp_result() -> TimingResult:
    request = TimingRequest(get_preset("mlp"), batch_size=8, steps=6,
                            modes=("eager", "graph", "xla", "fit"), warmup=1, rounds=3)
    return run_timing(request)


def test_result_has_every_field_and_positive_times(mlp_result: TimingResult) -> None:
    doc = mlp_result.to_dict()
    assert set(summary_fields()) <= set(doc)
    assert [m.mode for m in mlp_result.modes] == ["eager", "graph", "xla", "fit"]
    assert mlp_result.clock == "wall"
    for mode in mlp_result.modes:
        assert mode.ok, mode.error
        assert mode.median_s == mode.wall_median_s and mode.cpu_median_s > 0
        assert mode.first_call_s > 0 and mode.median_s > 0 and mode.mean_s > 0
        assert 0 < mode.p10_s <= mode.median_s <= mode.p90_s
        assert len(mode.times_s) == mode.steps == 6
        # both clocks keep every repeat; the spread is the repeats' own min and max
        assert mode.wall_times_s == mode.times_s and len(mode.cpu_times_s) == 6
        assert mode.cpu_median_s == pytest.approx(float(np.median(mode.cpu_times_s)))
        assert mode.min_s == min(mode.times_s) <= mode.median_s <= max(mode.times_s) == mode.max_s
        assert mode.first_call_cpu_s > 0
        assert mode.batches == 1 + 1 + 6  # first call + warm-up + timed steps
        # the first call is reported apart: it is not one of the timed steps
        assert mode.total_s > mode.first_call_s + sum(mode.times_s) - 1e-9
    assert mlp_result.batch_size == 8 and mlp_result.params == 79_510
    assert mlp_result.device["type"] in ("CPU", "GPU")
    assert mlp_result.versions["tensorflow"].startswith("2.")
    assert "intra_op" in mlp_result.threads and mlp_result.threads["usable_cpus"] >= 1
    assert mlp_result.peak_flops and mlp_result.peak_flops > 1e8
    busy = mlp_result.busy
    assert busy.cpus >= 1 and busy.wall_cpu_mode in {m.mode for m in mlp_result.modes}
    assert busy.busy == bool(busy.reasons) and set(busy.reasons) <= {"load", "wall_cpu"}
    assert all(s.statistic == "median" for s in mlp_result.speedups)


def test_first_call_pays_for_tracing(mlp_result: TimingResult) -> None:
    graph, xla = mlp_result.mode("graph"), mlp_result.mode("xla")
    assert graph.first_call_s > graph.median_s  # tracing is done once, on the first call
    assert xla.first_call_s > xla.median_s  # so is XLA compilation


def test_modes_start_from_identical_weights(mlp_result: TimingResult) -> None:
    losses = [m.first_loss for m in mlp_result.modes]
    assert all(loss is not None and np.isfinite(loss) for loss in losses)
    assert max(losses) - min(losses) < 1e-4 * max(1.0, abs(losses[0]))
    # a 10-class softmax on random inputs starts near ln(10)
    assert 1.5 < losses[0] < 3.5


def test_flops_and_speedups(mlp_result: TimingResult) -> None:
    forward = MLP_FORWARD_FLOPS_PER_EXAMPLE * mlp_result.batch_size
    assert mlp_result.flops_method == "graph_cost"
    # a training step is about three forward passes (forward, two backward matmuls)
    assert 2.0 * forward < mlp_result.flops_per_step < 4.0 * forward
    for mode in mlp_result.modes:
        assert mode.achieved_flops == pytest.approx(mlp_result.flops_per_step / mode.median_s)
        assert 0 < mode.utilization < 1.5
    speed = mlp_result.speedup("graph")
    assert speed is not None and speed.baseline == "eager"
    assert speed.low <= speed.ratio <= speed.high
    eager, graph = mlp_result.mode("eager"), mlp_result.mode("graph")
    assert speed.ratio == pytest.approx(eager.median_s / graph.median_s)


def test_result_round_trips_through_json(mlp_result: TimingResult) -> None:
    again = TimingResult.from_dict(mlp_result.to_dict())
    assert again == mlp_result


def test_forward_workload_counts_one_pass() -> None:
    request = TimingRequest(get_preset("mlp"), batch_size=4, steps=2, modes=("eager", "graph"),
                            workload="forward", warmup=0, rounds=1)
    result = run_timing(request, measure_peak_flops=False)
    forward = MLP_FORWARD_FLOPS_PER_EXAMPLE * 4
    assert forward <= result.flops_per_step < 1.5 * forward
    assert result.peak_flops is None and result.mode("graph").utilization is None
    assert result.mode("eager").first_loss == pytest.approx(result.mode("graph").first_loss)


def test_cpu_clock_drives_the_statistics_and_both_clocks_are_kept() -> None:
    request = TimingRequest(get_preset("mlp"), batch_size=4, steps=3, modes=("eager", "graph"),
                            warmup=0, rounds=3, clock="cpu")
    result = run_timing(request, measure_peak_flops=False)
    assert result.clock == "cpu"
    for mode in result.modes:
        assert mode.median_s == mode.cpu_median_s > 0
        assert mode.wall_median_s > 0
    assert result.speedup("graph").ratio == pytest.approx(
        result.mode("eager").cpu_median_s / result.mode("graph").cpu_median_s)


def test_progress_is_reported_up_to_done() -> None:
    seen: list[float] = []
    request = TimingRequest(get_preset("mlp"), batch_size=2, steps=2, modes=("graph",),
                            warmup=0, rounds=2)
    run_timing(request, lambda fraction, message: seen.append(fraction),
               measure_peak_flops=False)
    assert seen[0] == 0.0 and seen[-1] == 1.0 and seen == sorted(seen)


@pytest.mark.parametrize("change, needle", [
    ({"batch_size": 0}, "Received: batch_size=0"),
    ({"steps": -1}, "Received: steps=-1"),
    ({"modes": ()}, "Received: modes=[]"),
    ({"modes": ("eager", "turbo")}, "'turbo'"),
    ({"modes": ("fit",), "workload": "forward"}, "Received: workload='forward'"),
    ({"workload": "backward"}, "Received: workload='backward'"),
    ({"clock": "sundial"}, "Received: clock='sundial'"),
])
def test_bad_requests_are_refused_with_the_value(change: dict, needle: str) -> None:
    request = TimingRequest(get_preset("mlp"), **change)
    with pytest.raises(TimingError) as info:
        run_timing(request)
    assert needle in info.value.message


def test_model_without_input_shape_is_refused() -> None:
    spec = ModelSpec("deferred", "sequential", (), get_preset("mlp").layers)
    with pytest.raises(TimingError) as info:
        TimingRequest(spec).check()
    assert info.value.key == "timing.error.no_input"


def test_speedup_is_ratio_of_medians_with_spread() -> None:
    rng = np.random.default_rng(1)
    slow = ModeResult("eager", times_s=tuple(0.02 + 0.001 * rng.random(50)))
    fast = ModeResult("graph", times_s=tuple(0.01 + 0.0005 * rng.random(50)))
    (item,) = speedups([slow, fast])
    assert item.ratio == pytest.approx(np.median(slow.times_s) / np.median(fast.times_s))
    assert 1.8 < item.low <= item.ratio <= item.high < 2.2


def test_hidden_width_changes_only_hidden_dense_layers() -> None:
    spec = with_hidden_width(get_preset("mlp"), 7)
    assert spec.layer("dense").config["units"] == 7
    assert spec.layer("logits").config["units"] == 10
    one_dense = get_preset("mlp").with_layers(get_preset("mlp").layers[2:])
    with pytest.raises(TimingError):
        with_hidden_width(one_dense, 7)


def test_sweep_over_width_times_each_point() -> None:
    base = TimingRequest(get_preset("mlp"), batch_size=4, steps=2, modes=("eager", "graph"),
                         warmup=0, rounds=1)
    result = run_sweep(SweepRequest(base, "width", (8, 64)))
    assert [p.params for p in result.points] == [784 * 8 + 8 + 8 * 10 + 10,
                                                 784 * 64 + 64 + 64 * 10 + 10]
    rows = result.rows()
    assert {(r["value"], r["mode"]) for r in rows} == {(8, "eager"), (8, "graph"),
                                                       (64, "eager"), (64, "graph")}
    assert result.points[1].flops_per_step > result.points[0].flops_per_step
    with pytest.raises(TimingError):
        run_sweep(SweepRequest(base, "depth", (1,)))


def test_real_dataset_batches_must_fit_the_model() -> None:
    request = TimingRequest(get_preset("mlp"), batch_size=4, steps=1, modes=("graph",),
                            warmup=0, rounds=1, data="digits28")
    result = run_timing(request, measure_peak_flops=False)
    assert result.data == "digits28" and 0 < result.mode("graph").first_loss < 10
    small = ModelSpec("tiny", "sequential", (InputSpec("x", (8,)),),
                      (LayerSpec("out", "Dense", {"units": 3}),))
    with pytest.raises(TimingError) as info:
        run_timing(TimingRequest(small, batch_size=4, steps=1, modes=("graph",),
                                 data="digits28"), measure_peak_flops=False)
    assert info.value.key == "timing.error.data_shape" and "(8,)" in info.value.message


def _fake_result(eager_ms: float, graph_ms: float, utilization: float) -> TimingResult:
    def mode(name: str, ms: float) -> ModeResult:
        return ModeResult(name, first_call_s=0.3, median_s=ms / 1e3, times_s=(ms / 1e3,) * 3,
                          achieved_flops=1e9 * utilization, utilization=utilization)

    modes = (mode("eager", eager_ms), mode("graph", graph_ms), ModeResult("xla", error="boom"))
    return TimingResult("m", 1, "step", 50, 3, 0, 1, "synthetic", "wall", modes,
                        speedups(modes), 10**6, "graph_cost", 1e9, False, {}, {}, {}, "",
                        1.0, "now")


def test_explanation_reads_the_numbers() -> None:
    from tfcore.timing.explain import explain

    fast = {s.key: s.params for s in explain(_fake_result(10.0, 2.0, 0.02))}
    assert fast["timing.explain.graph_faster"]["ratio"] == pytest.approx(5.0)
    assert fast["timing.explain.payback"]["steps"] == round(0.3 / 0.008)
    assert "timing.explain.overhead_bound" in fast
    assert fast["timing.explain.failed"] == {"mode": "xla", "error": "boom"}
    same = {s.key for s in explain(_fake_result(10.0, 9.8, 0.6))}
    assert "timing.explain.graph_same" in same and "timing.explain.compute_bound" in same


def test_a_failing_mode_is_reported_and_the_others_still_run(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from tfcore.timing.modes import MODES, WORKLOADS, ModeDef

    def broken(bench, workload):
        def step(x, y):
            raise ValueError("this op has no kernel here")
        return step

    monkeypatch.setitem(MODES, "broken", ModeDef("broken", {"en": "b", "zh": "b"},
                                                 WORKLOADS, broken))
    request = TimingRequest(get_preset("mlp"), batch_size=2, steps=2,
                            modes=("graph", "broken"), warmup=0, rounds=1)
    result = run_timing(request, measure_peak_flops=False)
    assert result.mode("graph").ok
    assert result.mode("broken").error == "ValueError: this op has no kernel here"
    assert not result.mode("broken").times_s and result.speedups == ()
    with pytest.raises(TimingError) as info:
        run_timing(TimingRequest(get_preset("mlp"), batch_size=2, steps=2, modes=("broken",)))
    assert info.value.key == "timing.error.all_failed"


def test_no_mode_reads_above_the_peak_a_faster_step_raises_it(monkeypatch) -> None:
    """A peak measured on a busy moment (here: 1 MFLOP/s) is below what the steps reach:
    the fastest mode's rate becomes the peak (100 %), the others are shares of it, the
    result says so, and the cache keeps the raised peak for the next timing."""
    from tfcore.timing import flops

    low = flops.PeakFlops(1e6, "/CPU:0", 1024, True, "CPU|test|key")
    monkeypatch.setattr(flops, "measure_peak", lambda device=None: low)
    request = TimingRequest(get_preset("mlp"), batch_size=4, steps=2, modes=("eager", "graph"),
                            warmup=0, rounds=1)
    result = run_timing(request)
    shares = [m.utilization for m in result.modes]
    assert result.peak_raised and max(shares) == pytest.approx(1.0)
    assert all(0 < s <= 1.0 for s in shares)
    assert result.peak_flops == max(m.achieved_flops for m in result.modes) > 1e6
    import json

    assert json.loads(flops._cache_path().read_text())["CPU|test|key"] == result.peak_flops
    assert TimingResult.from_dict(result.to_dict()).peak_raised


def test_a_peak_not_exceeded_stays_and_a_damaged_cache_is_measured_again(tmp_path) -> None:
    from tfcore.timing import flops

    peak = flops.PeakFlops(1e12, "/CPU:0", 1024, True, "k")
    assert flops.raise_peak(peak, 5e11) is peak
    path = flops._cache_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    for damaged in ("[1, 2]", "{not json"):
        path.write_text(damaged)
        fresh = flops.measure_peak(size=64, repeats=1)
        assert not fresh.cached and fresh.flops_per_s > 0
    import json

    cache = json.loads(path.read_text())             # the measurement was kept ...
    assert flops.measure_peak(size=64, repeats=1).cached
    cache[fresh.key] = "fast"                         # ... a value that is not a number is not
    path.write_text(json.dumps(cache))
    assert not flops.measure_peak(size=64, repeats=1).cached
