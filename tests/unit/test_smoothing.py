"""TensorBoard's scalar smoothing, written once (``tfcore.runs.smooth``): hand-computed values
with NaN and infinity in the middle and at the start, constant series, and the two page
paths (the live chart's frame, the Runs page's curves) drawing with that one function."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import tfcore.runs.curves
import ui.training.charts
from tfcore.runs import run_curves, smooth
from tfcore.runs.smoothing import smooth as smooth_itself
from ui.training.charts import SeriesBuffer, step_frame

NAN, INF = math.nan, math.inf


def tensorboard_loop(values, weight: float) -> list[float]:
    """TensorBoard's scalar dashboard smoothing, point by point, as its frontend does it."""
    if all(v == values[0] for v in values):
        return list(values)
    last, count, out = 0.0, 0, []
    for value in values:
        if not math.isfinite(value):
            out.append(value)
            continue
        last = last * weight + (1 - weight) * value
        count += 1
        out.append(last / (1 - weight ** count))
    return out


def same(a, b) -> bool:
    """Equal within float rounding, NaN where NaN, the same infinities."""
    return np.allclose(np.asarray(a, float), np.asarray(b, float), rtol=1e-12, atol=0,
                       equal_nan=True)


def test_debiased_average_by_hand() -> None:
    # w = 0.5: last 0.5, 1.75, 3.375 over 1 - 0.5 ** n = 0.5, 0.75, 0.875
    assert same(smooth([1.0, 3.0, 5.0], 0.5), [1.0, 1.75 / 0.75, 3.375 / 0.875])
    assert smooth([1.0, 3.0, 5.0], 0.5)[0] == 1.0          # debiased: starts at the value


def test_nan_and_inf_in_the_middle_stay_and_do_not_poison_later_points() -> None:
    out = smooth([1.0, NAN, 3.0, INF, 5.0, -INF], 0.5)
    assert math.isnan(out[1]) and out[3] == INF and out[5] == -INF
    assert same(out[[0, 2, 4]], [1.0, 7 / 3, 27 / 7])      # as if the gaps were not there


def test_nan_and_inf_at_the_start() -> None:
    out = smooth([NAN, INF, 2.0, 4.0], 0.5)
    assert math.isnan(out[0]) and out[1] == INF
    assert out[2] == 2.0 and same(out[3], (0.5 + 2.0) / 0.75)
    assert np.isnan(smooth([NAN, NAN], 0.9)).all()


def test_constant_series_stay_exactly_constant() -> None:
    assert (smooth(np.full(500, 0.1), 0.99) == 0.1).all()    # no rounding drift either
    gappy = smooth([0.1, 0.1, NAN, 0.1], 0.99)
    assert math.isnan(gappy[2]) and same(gappy[[0, 1, 3]], [0.1] * 3)


def test_matches_tensorboards_loop_on_long_noisy_series() -> None:
    rng = np.random.default_rng(3)
    values = rng.normal(1.0, 0.5, size=3000)
    values[rng.choice(3000, 40, replace=False)] = NAN
    values[rng.choice(3000, 10, replace=False)] = INF
    for weight in (0.3, 0.6, 0.9, 0.99):
        assert same(smooth(values, weight), tensorboard_loop(list(values), weight))


def test_weight_zero_is_the_raw_series_and_the_input_is_not_changed() -> None:
    values = np.array([3.0, NAN, 1.0, INF])
    kept = values.copy()
    assert same(smooth(values, 0.0), kept)
    smooth(values, 0.7)
    assert same(values, kept)
    assert len(smooth([], 0.6)) == 0


@pytest.mark.parametrize("weight", [-0.1, 1.0, 1.5])
def test_weights_outside_0_1_are_refused(weight: float) -> None:
    with pytest.raises(ValueError, match="smoothing"):
        smooth([1.0, 2.0], weight)


def test_live_chart_frame_smooths_with_the_one_function() -> None:
    assert ui.training.charts.smooth is smooth_itself
    buffer = SeriesBuffer("run")
    buffer.add([{"step": s, "split": "train", "loss": v}
                for s, v in zip((1, 2, 3, 4), (1.0, NAN, 3.0, 5.0))])
    labels = {"train": "raw", "smoothed": "smooth", "val": "val"}
    frame = step_frame(buffer, "loss", 0.5, labels)
    smoothed = frame[frame.series == "smooth"]
    assert list(smoothed.step) == [1, 3, 4]                  # the NaN point is not drawn
    assert same(smoothed.value, [1.0, 7 / 3, 27 / 7])        # and did not poison 3 and 4
    assert list(frame[frame.series == "raw"].step) == [1, 3, 4]


def test_runs_page_curves_smooth_with_the_one_function(tmp_path) -> None:
    assert tfcore.runs.curves.smooth is smooth_itself
    run = tmp_path / "runs" / "r1"
    run.mkdir(parents=True)
    lines = [{"step": s, "epoch": 1, "split": "train", "loss": v}
             for s, v in zip((1, 2, 3, 4), (1.0, NAN, 3.0, 5.0))]
    (run / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    curves = run_curves(tmp_path / "runs", ["r1"], "loss", splits=("train",), smoothing=0.5)
    assert list(curves.step) == [1, 2, 3, 4]
    assert same(curves.smoothed, [1.0, NAN, 7 / 3, 27 / 7])
