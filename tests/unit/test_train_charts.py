"""Live-panel data shaping: incremental buffer, min/max downsampling of
100,000 steps, y domains and the chart spec."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tfcore.rundir import read_metrics
from ui.training.charts import (
    MAX_POINTS,
    PRESENTER,
    RAW_COLOR,
    SeriesBuffer,
    downsample,
    epoch_frame,
    line_chart,
    series_colors,
    step_frame,
    y_domain,
)

LABELS = {"train": "train", "smoothed": "smoothed", "val": "val"}


def test_buffer_reads_incrementally_and_downsamples_100k_steps(tmp_path) -> None:
    path = tmp_path / "metrics.jsonl"
    buffer = SeriesBuffer("run")

    def lines(first: int, last: int) -> str:
        out = []
        for step in range(first, last + 1):
            out.append(json.dumps({"step": step, "epoch": 1 + (step - 1) // 1000,
                                   "split": "train", "loss": 1.0 / step,
                                   "acc": min(1.0, step / 50_000)}))
            if step % 1000 == 0:
                out.append(json.dumps({"step": step, "epoch": step // 1000, "split": "val",
                                       "loss": 2.0 / step, "acc": 0.5}))
        return "\n".join(out) + "\n"

    path.write_text(lines(1, 50_000))
    chunk = read_metrics(path, buffer.offset)         # the panel reads while the run writes
    buffer.add(chunk.records)
    buffer.offset = chunk.offset
    with open(path, "a") as handle:
        handle.write(lines(50_001, 100_000))
    chunk = read_metrics(path, buffer.offset)
    assert buffer.add(chunk.records) == 50_000 + 50       # only what is new
    assert buffer.size("train") == 100_000 and buffer.size("val") == 100
    assert buffer.names() == ["loss", "acc"]
    frame = step_frame(buffer, "loss", 0.9, LABELS)
    counts = frame.groupby("series").size().to_dict()
    assert counts["train"] <= MAX_POINTS + 1 and counts["smoothed"] <= MAX_POINTS + 1
    assert counts["val"] == 100
    assert frame["step"].max() == 100_000                  # the last point is kept
    epochs = epoch_frame(buffer, "acc", LABELS)
    assert len(epochs[epochs.series == "train"]) == 100


def test_downsample_keeps_the_min_and_max_of_every_bucket() -> None:
    rng = np.random.default_rng(0)
    n, limit = 10_007, 100
    x = np.arange(n, dtype=float)
    y = rng.normal(size=n)
    y[5_000] = 50.0                                         # one spike
    y[7_777] = -40.0
    xs, ys = downsample(x, y, max_points=limit)
    assert len(xs) <= limit
    assert list(xs) == sorted(xs) and xs[0] == 0 and xs[-1] == n - 1   # in order, ends kept
    assert ys.max() == 50.0 and ys.min() == -40.0                      # spikes survive
    assert set(ys) <= set(y)                                           # values never averaged
    size = int(np.ceil(n / ((limit - 2) // 2)))
    for start in range(0, n, size):                         # every bucket: its min and max
        bucket = y[start:start + size]
        kept = ys[(xs >= start) & (xs < start + size)]
        assert bucket.min() in kept and bucket.max() in kept
    short_x, short_y = downsample(x[:50], y[:50], max_points=100)
    assert short_x is x[:50] or np.array_equal(short_x, x[:50])        # small series untouched
    assert np.array_equal(short_y, y[:50])


def test_y_domain_fits_the_data_and_fractions_fill_zero_to_one() -> None:
    assert y_domain("sparse_categorical_accuracy", np.array([0.42, 0.97])) == [0.0, 1.0]
    assert y_domain("accuracy", np.array([0.2, 1.0 + 2e-16])) == [0.0, 1.0]     # rounding
    assert y_domain("accuracy", np.array([0.2, 1.000003])) == [0.0, 1.0]     # an old run
    assert y_domain("accuracy", np.array([0.2, 1.5])) != [0.0, 1.0]     # not a rate after all
    assert y_domain("loss", np.array([0.2, 2.2])) == pytest.approx([0.1, 2.3])
    assert y_domain("loss", np.array([0.01, 2.01])) == pytest.approx([0.0, 2.11])  # not < 0
    assert y_domain("mse", np.array([-1.0, 1.0])) == pytest.approx([-1.1, 1.1])
    assert y_domain("loss", np.array([3.0, 3.0])) == pytest.approx([2.85, 3.15])  # flat line
    assert y_domain("loss", np.array([0.0, 1e-3, 10.0]), log_scale=True) == [1e-3, 10.0]
    assert y_domain("loss", np.array([np.nan])) is None


def test_live_chart_spec_has_the_domain_ticks_titles_and_faint_raw_series() -> None:
    buffer = SeriesBuffer("run")
    buffer.add({"step": s, "epoch": 1, "split": "train", "loss": 2.0 / s,
                "sparse_categorical_accuracy": 0.5 + 0.4 * s / 5000} for s in range(1, 5001))
    colors = series_colors(LABELS, 0.6)
    for name, domain in (("sparse_categorical_accuracy", [0.0, 1.0]), ("loss", None)):
        frame = step_frame(buffer, name, 0.6, LABELS)
        assert frame.groupby("series").size().max() <= MAX_POINTS
        spec = line_chart(frame, "step", name, False, "Step", PRESENTER, colors,
                          behind="train")
        raw, main = spec["layer"]
        y = main["encoding"]["y"]
        assert y["title"] == {"sparse_categorical_accuracy": "Accuracy", "loss": "Loss"}[name]
        assert spec["title"]["text"] == y["title"] and main["encoding"]["x"]["title"] == "Step"
        assert y["axis"]["tickCount"] == 6 and y["axis"]["labelFontSize"] == PRESENTER.font
        assert spec["height"] == PRESENTER.height
        assert raw["mark"]["strokeWidth"] < main["mark"]["strokeWidth"]
        scale = main["encoding"]["color"]["scale"]
        assert scale["range"][scale["domain"].index("train")] == RAW_COLOR
        low, high = y["scale"]["domain"]
        if domain:
            assert [low, high] == domain
        else:
            values = frame["value"]
            assert low <= values.min() and high >= values.max()
            assert high - low < 1.2 * (values.max() - values.min())     # fits, not squashed


def test_chinese_charts_name_the_metrics_in_chinese(monkeypatch) -> None:
    """Titles, axes and tooltips read 损失/准确率, never the Keras identifier (issue 23)."""
    from ui.common import metric_label

    monkeypatch.setattr("ui.common.i18n.current_lang", lambda: "zh")
    buffer = SeriesBuffer("run")
    buffer.add({"step": s, "epoch": 1, "split": "train", "loss": 1.0 / s,
                "sparse_categorical_accuracy": 0.5} for s in range(1, 50))
    for name, label in (("loss", "损失"), ("sparse_categorical_accuracy", "准确率")):
        spec = line_chart(step_frame(buffer, name, 0.0, LABELS), "step", name, False, "步")
        text = json.dumps({k: v for k, v in spec.items() if k != "datasets"},
                          ensure_ascii=False)
        assert spec["title"]["text"] == label == spec["layer"][0]["encoding"]["y"]["title"]
        assert name not in text
    assert metric_label("val_loss") == "验证损失"
    assert metric_label("my_custom_metric") == "my_custom_metric"   # user-written: as written
