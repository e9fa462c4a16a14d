"""A chart's tooltip names each value in the page's language, as its axes and legends do
(before, hovering a weights histogram, a sweep, a seed group or a pipeline chart showed the
data's column names: ``start``, ``end``, ``count``, ``value``, ``label``)."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from tfcore.weights import Histogram
from ui.common import i18n
from ui.common.i18n import catalog
from ui.foundations.charts import composition_chart, label_order_chart, throughput_chart
from ui.runs.charts import diff_chart, group_chart
from ui.timing.charts import sweep_speedup_chart, sweep_time_chart, sweep_utilization_chart
from ui.weights.charts import (activation_chart, filter_grid_chart, heatmap_chart,
                               histogram_chart)

CJK = re.compile(r"[\u4e00-\u9fff]")


def _charts(lang: str) -> dict[str, object]:
    w = catalog(lang)
    titles = {k: w[f"foundations.chart.{k}"]
              for k in ("position", "label", "batch", "count", "rate", "variant")}
    sweep = [{"value": v, "mode": m, "median_s": 0.01 / v, "speedup": 1.5,
              "utilization": 0.2} for v in (1, 8) for m in ("eager", "graph")]
    stats = pd.DataFrame({"group": ["a", "a"], "step": [1, 2], "split": ["train"] * 2,
                          "mean": [1.0, 0.5], "std": [0.1, 0.1], "min": [0.9, 0.4],
                          "max": [1.1, 0.6], "count": [3, 3]})
    diff = pd.DataFrame({"label": ["dense/kernel"], "relative": [0.1], "norm": [0.2],
                         "max_abs": [0.05]})
    frame = pd.DataFrame({"order": [0], "layer": ["dense"], "label": ["dense"], "dead": [0.25]})
    return {
        "weights histogram": histogram_chart(Histogram((0.0, 0.5, 1.0), (3, 4)),
                                             w["weights.axis.value"], w["weights.axis.count"]),
        "weights heatmap": heatmap_chart(np.eye(3), w["weights.axis.inputs"],
                                         w["weights.axis.units"], w["weights.axis.value"]),
        "conv filters": filter_grid_chart(np.zeros((3, 3, 1, 2)), 0,
                                          w["runs.conv.filter_axis"], w["weights.axis.value"]),
        "dead units": activation_chart(frame, w["weights.act.layer"],
                                         w["weights.axis.value"]),
        "sweep time": sweep_time_chart(sweep, w["timing.chart.mode"]),
        "sweep speedup": sweep_speedup_chart(sweep, w["timing.chart.mode"]),
        "sweep peak": sweep_utilization_chart(sweep, w["timing.chart.mode"]),
        "seed groups": group_chart(stats, {"a": "A"}, "loss"),
        "variable change": diff_chart(diff),
        "label order": label_order_chart([0, 1], [3, 4], [0, 0], titles),
        "batch classes": composition_chart(np.ones((2, 2)), titles),
        "throughput": throughput_chart(["plain"], [100.0], titles),
    }


def _tooltips(spec: object) -> list:
    """Every tooltip entry anywhere in a Vega-Lite spec."""
    found = []
    if isinstance(spec, dict):
        for key, value in spec.items():
            if key == "tooltip":
                found.extend(value if isinstance(value, list) else [value])
            else:
                found.extend(_tooltips(value))
    elif isinstance(spec, list):
        for item in spec:
            found.extend(_tooltips(item))
    return found


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_tooltip_names_its_value_in_the_pages_language(lang, monkeypatch) -> None:
    monkeypatch.setattr(i18n, "current_lang", lambda: lang)
    for name, chart in _charts(lang).items():
        tips = _tooltips(chart.to_dict())
        assert tips, name
        for tip in tips:
            assert isinstance(tip, dict) and tip.get("title"), (name, tip)
            if lang == "zh":
                assert CJK.search(tip["title"]), (name, tip)   # not an English word
