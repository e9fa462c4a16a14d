"""Live-panel data shaping: incremental buffer, smoothing, downsampling of 100,000 steps."""

from __future__ import annotations

import json

import numpy as np

from tfcore.rundir.store import read_metrics
from ui.training.charts import MAX_POINTS, SeriesBuffer, downsample, ema, epoch_frame, step_frame

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


def test_ema_matches_tensorboard_debiasing_and_downsample_means() -> None:
    values = np.array([1.0, 2.0, 3.0])
    smoothed = ema(values, 0.5)
    assert smoothed[0] == 1.0                              # debiased: starts at the value
    assert np.isclose(smoothed[1], (0.25 * 1 + 0.5 * 2) / 0.75)
    x = np.arange(10, dtype=float)
    xs, ys = downsample(x, x * 2, max_points=5)
    assert list(xs) == [0.5, 2.5, 4.5, 6.5, 8.5, 9.0]
    assert list(ys) == [1.0, 5.0, 9.0, 13.0, 17.0, 18.0]
