"""What a class reads after a timing or a run, at 1280 px and in both languages (issue 23
items 10 and 12): the timing result's table has one column per mode and fits the page (its
fourteen measures as columns hid 810 px of them in Chinese); the end-of-run confusion matrix
and decision boundary name their legends in the page's language (they read "count" and
"class" in Chinese), write the counts large enough for a room, and colour the classes as
the live boundary does (both classes were light blue)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from tfcore.timing import mode_names, mode_title
from tfcore.timing.result import ModeResult
from ui.common import CLASS_COLORS, pick
from ui.common.columns import cells, fits
from ui.common.i18n import catalog
from ui.timing.panels import MEASURE_PX, MEASURES, MODE_PX, mode_table
from ui.training.charts import NORMAL, PRESENTER, boundary_chart, confusion_chart

EN = catalog("en")
PAGE_PX = 820             # the main column of a 1280 px page with the sidebar open


def _mode(name: str, error: str | None = None) -> ModeResult:
    if error:
        return ModeResult(mode=name, error=error)
    return ModeResult(mode=name, first_call_s=0.25701, median_s=0.06941, p10_s=0.06476,
                      p90_s=0.07699, min_s=0.06314, max_s=0.09402, wall_median_s=0.06941,
                      cpu_median_s=0.08812, first_call_cpu_s=0.3, first_loss=2.30258,
                      times_s=(0.06941,))


def test_the_mode_table_has_a_column_per_mode_and_fits_a_1280_page() -> None:
    modes = mode_names()
    table, columns = mode_table(SimpleNamespace(modes=tuple(_mode(m) for m in modes)))
    titles = [pick(mode_title(m)) for m in modes]
    assert list(table.columns) == [EN["timing.col.measure"], *titles]
    assert sum(c["width"] for c in columns.values()) <= PAGE_PX
    shown = [m for m in MEASURES if m not in ("gflops", "util", "error")]   # none measured
    assert table[EN["timing.col.measure"]].tolist() == [EN[f"timing.col.{m}"] for m in shown]
    median = table.set_index(EN["timing.col.measure"]).loc[EN["timing.col.median"]]
    assert median.tolist() == ["69.410"] * len(modes)


def test_a_failed_modes_error_is_a_row_shortened_to_its_column() -> None:
    error = "XLA could not compile the model: " + "an unsupported operation " * 8
    table, _ = mode_table(SimpleNamespace(modes=(_mode("eager"), _mode("xla", error))))
    rows = table.set_index(EN["timing.col.measure"])
    shown = rows.loc[EN["timing.col.error"], pick(mode_title("xla"))]
    assert shown.startswith("XLA could") and "…" in shown and cells(shown) <= fits(MODE_PX)
    assert rows.loc[EN["timing.col.median"], pick(mode_title("xla"))] == ""


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_measures_name_fits_its_column(lang: str) -> None:
    words = catalog(lang)
    for measure in ("measure", *MEASURES):
        assert cells(words[f"timing.col.{measure}"]) <= fits(MEASURE_PX), measure


def _layers(spec: dict) -> list[dict]:
    return spec.get("layer", [spec])


@pytest.mark.parametrize("style", [NORMAL, PRESENTER])
def test_the_confusion_matrix_names_its_legend_and_writes_counts_a_room_reads(style) -> None:
    words = catalog("zh")
    titles = {"true": words["train.true"], "pred": words["train.pred"],
              "count": words["train.count"]}
    spec = confusion_chart(np.array([[38, 2], [0, 40]]), ["inside", "outside"], titles,
                           style).to_dict()
    cells_layer, text_layer = _layers(spec)
    assert cells_layer["encoding"]["color"]["title"] == "数量"
    assert cells_layer["encoding"]["x"]["title"] == "预测"
    assert text_layer["mark"]["fontSize"] >= 16
    assert text_layer["encoding"]["color"]["value"] == "#262730"        # dark on light cells
    assert text_layer["encoding"]["color"]["condition"]["value"] == "white"


def test_the_end_of_run_boundary_colours_and_names_its_classes_as_the_live_one() -> None:
    grid = np.array([[0, 0, 1], [0, 1, 1], [1, 1, 1]])
    axis = np.linspace(-1.0, 1.0, 3)
    points, labels = np.array([[0.0, 0.0], [0.9, 0.9]]), np.array([0, 1])
    spec = boundary_chart(axis, axis, grid, points, labels, ["inside", "outside"],
                          catalog("zh")["train.class"]).to_dict()
    for layer in _layers(spec):
        color = layer["encoding"]["color"]
        assert color["scale"] == {"domain": ["inside", "outside"],
                                  "range": list(CLASS_COLORS[:2])}
        assert color["title"] == "类别"
    data = [d for d in spec["datasets"].values()]
    assert {row["class"] for d in data for row in d} == {"inside", "outside"}
