"""Runs and timing charts name metrics and axes in the reader's language (issue 23)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from ui.common.i18n import catalog
from ui.runs import charts as runs_charts

RAW = ("sparse_categorical_accuracy", "loss")


def _curves() -> pd.DataFrame:
    rows = [{"run": "r1", "label": "r1", "split": split, "step": s, "time": float(s),
             "value": 0.5, "smoothed": 0.5} for split in ("train", "val") for s in (1, 2, 3)]
    return pd.DataFrame(rows)


def _visible(spec: dict) -> str:
    """The spec's text without its data: titles, axes, legends, tooltips."""
    return json.dumps({k: v for k, v in spec.items() if k not in ("datasets", "data")},
                      ensure_ascii=False)


@pytest.fixture
def zh(monkeypatch) -> None:
    monkeypatch.setattr("ui.common.i18n.current_lang", lambda: "zh")


@pytest.mark.parametrize("name, label", [("sparse_categorical_accuracy", "准确率"),
                                         ("loss", "损失")])
def test_runs_charts_read_chinese_metric_names(zh, name: str, label: str) -> None:
    compare = runs_charts.compare_chart(_curves(), "step", name)
    timeline = runs_charts.run_chart(_curves(), [2], name)
    stats = pd.DataFrame({"group": ["g"], "split": ["train"], "step": [1], "mean": [0.5],
                          "std": [0.1], "min": [0.4], "max": [0.6], "count": [2]})
    groups = runs_charts.group_chart(stats, {"g": "g"}, name).to_dict()
    for spec in (compare, timeline, groups):
        text = _visible(spec)
        assert label in text and name not in text
    assert compare["layer"][1]["encoding"]["y"]["title"] == label
    assert compare["title"] == catalog("zh")["runs.chart.compare"].format(metric=label)


def test_runs_chart_tooltips_are_translated_too(zh) -> None:
    tips = runs_charts.run_chart(_curves(), [2], "loss")["layer"][0]["encoding"]["tooltip"]
    assert [tip["title"] for tip in tips] == [catalog("zh")["runs.x.step"], "损失"]


def test_timing_charts_read_chinese_with_a_scale(zh) -> None:
    from tests.app.timing_fixtures import fake_result
    from tfcore.timing.busy import Busy
    from ui.timing import charts as timing_charts

    result = fake_result(Busy())
    texts = catalog("zh")
    for chart, title in ((timing_charts.step_time_chart, "timing.chart.title"),
                         (timing_charts.first_call_chart, "timing.chart.first_title")):
        spec = chart(result).to_dict()
        assert spec["title"]["text"] == texts[title] and spec["height"] >= 240
        layers = spec.get("layer", [spec])
        y = next(layer["encoding"]["y"] for layer in layers if "y" in layer["encoding"])
        assert "毫秒" in y["title"]
        assert y["axis"].get("tickCount", 0) >= 4 or len(y["axis"]["values"]) >= 2
        visible = _visible(spec)
        assert "Step time" not in visible and "Milliseconds" not in visible
        kinds = {row.get("kind") or row.get("clock") for rows in spec["datasets"].values()
                 for row in rows}
        assert kinds & {texts["timing.chart.first_call"], texts["timing.chart.wall"]}
