"""The runs table fits 1280 px (issue 23 item 10): a few columns shown in fixed widths, long
names shortened to their column's line, everything else hidden but in the frame."""

from __future__ import annotations

import pytest

from tfcore.runs import RunSummary
from ui.common.i18n import catalog
from ui.runs import charts
from ui.common.columns import cells, fits, shorten
from ui.common.recent_runs import RECENT, recent_rows, when
from ui.runs.table import HIDDEN, SHOWN, _column_config, table_rows

EN = catalog("en")
LONG = "cats and dogs CNN with augmentation, learning rate 0.003, batch 64, seed 3 (2)"
LONG_ZH = "猫狗卷积网络 数据增强 学习率 0.003 批量 64 随机种子 3 第二次尝试"


def _summary(name: str, final: dict) -> RunSummary:
    return RunSummary(run_id=f"{name[:8]}-20260101-000000-abcd", name=name, tags=("a",),
                      model="mlp_functional", dataset="house_prices", device="cpu",
                      state="finished", created=None, started=1.7e9, duration=3.0, steps=40,
                      total_steps=40, seed=0, group="g", final=final)


@pytest.mark.parametrize("text", [LONG, LONG_ZH, "x" * 200, "猫" * 100])
@pytest.mark.parametrize("width", [12, 30])
def test_shorten_fits_its_cells_and_keeps_both_ends(text: str, width: int) -> None:
    short = shorten(text, width)
    assert cells(short) <= width
    assert "…" in short
    assert text.startswith(short.split("…")[0]) and text.endswith(short.split("…")[1])


def test_short_texts_are_left_whole() -> None:
    assert shorten("lesson_net 2", 30) == "lesson_net 2"
    assert shorten("猫狗网络", 8) == "猫狗网络"          # 4 CJK characters = 8 cells
    assert shorten("猫狗网络", 7) != "猫狗网络"


def test_shown_widths_fit_1280() -> None:
    # 820 px of table at 1280x800 with the sidebar open, 33 px for the row checkboxes and a
    # scrollbar's width spare (the browser test measures the real page)
    assert sum(SHOWN.values()) <= 820 - 33 - 17


def test_the_home_pages_recent_runs_fit_1280_with_long_names_and_problems() -> None:
    """The home page's table of recent runs follows the runs table's rule (it sized its
    columns to their longest text: a suite's long names hid 51 to 69 px of its columns at
    1280x800): fixed widths within the 820 px a table has there, less a scrollbar's, and
    long names and problems shortened to their line, in both languages."""
    assert sum(RECENT.values()) <= 820 - 17
    problem = "metrics.jsonl line 3: not JSON (Expecting value: line 1 column 1) " * 3
    for lang, name in (("en", LONG), ("zh", LONG_ZH)):
        frame, config = recent_rows([(name, "interrupted", 1234,
                                      when("2026-12-04T22:12:12+00:00"), problem)], lang)
        labels = {k: catalog(lang)[f"home.recent.{k}"] for k in RECENT}
        assert list(frame.columns) == list(labels.values())
        assert config == {labels[k]: {"width": px} for k, px in RECENT.items()}
        row = frame.iloc[0]
        for key in ("run", "problems"):
            assert "…" in row[labels[key]] and cells(row[labels[key]]) <= fits(RECENT[key])
        assert row[labels["created"]] == when("2026-12-04T22:12:12+00:00")
        assert cells(row[labels["created"]]) == 16 <= fits(RECENT["created"])   # whole
        assert row[labels["step"]] == 1234


def test_a_creation_time_is_shown_to_the_minute_in_local_time(monkeypatch) -> None:
    import time

    monkeypatch.setenv("TZ", "Asia/Shanghai")
    time.tzset()
    try:
        assert when("2026-12-04T22:12:12+00:00") == "2026-12-05 06:12"
        assert when("not a time") == "not a time" and when("") == ""
    finally:
        monkeypatch.undo()
        time.tzset()


def test_rows_show_final_train_loss_and_val_accuracy_hide_the_rest() -> None:
    final = {"train/loss": 0.31234, "train/sparse_categorical_accuracy": 0.9,
             "val/loss": 0.4, "val/sparse_categorical_accuracy": 0.876543, "test/auc": 0.7}
    frame = table_rows([_summary(LONG, final), _summary("short", {"train/loss": 1.0})])
    assert list(frame.columns[:len(SHOWN)]) == [EN[f"runs.col.{k}"] for k in SHOWN]
    first, second = frame.iloc[0], frame.iloc[1]
    assert first[EN["runs.col.loss"]] == 0.3123
    assert first[EN["runs.col.accuracy"]] == "0.8765"
    assert second[EN["runs.col.accuracy"]] == "—"      # not the grid's "None", in any language
    assert first[EN["runs.col.name"]] == shorten(LONG, fits(SHOWN["name"]))
    assert first[EN["runs.col.run"]].endswith("abcd")          # hidden, still in the frame
    assert first["test/auc"] == 0.7
    config = _column_config(frame)
    hidden = {c for c, v in config.items() if v is None}
    assert hidden == set(frame.columns) - {EN[f"runs.col.{k}"] for k in SHOWN}
    assert {EN[f"runs.col.{k}"] for k in HIDDEN} <= hidden


def test_compare_legend_shows_whole_run_names() -> None:
    import pandas as pd

    curves = pd.DataFrame([{"run": "r", "label": LONG, "split": "train", "step": 1,
                            "time": 1.0, "value": 0.5, "smoothed": 0.5}])
    spec = charts.compare_chart(curves, "step", "loss")
    legend = spec["layer"][1]["encoding"]["color"]["legend"]
    assert legend["labelLimit"] == 0 and legend["orient"] == "bottom"


def test_accuracy_text_sorts_like_the_numbers() -> None:
    values = [0.5, 1.0, 0.05, 0.98765, 0.0]
    frame = table_rows([_summary(f"r{i}", {"val/accuracy": v}) for i, v in enumerate(values)])
    texts = list(frame[EN["runs.col.accuracy"]])
    assert texts == ["0.5000", "1.0000", "0.0500", "0.9877", "0.0000"]
    assert [float(x) for x in sorted(texts)] == sorted(round(v, 4) for v in values)
    nan = table_rows([_summary("n", {"val/accuracy": float("nan")})])
    assert nan.iloc[0][EN["runs.col.accuracy"]] == "—"
    assert _column_config(frame)[EN["runs.col.accuracy"]]["alignment"] == "right"


def test_step_axes_count_whole_steps() -> None:
    """A 20-step run's chart read "1.0, 2.0, ..." on its step axis: step axes tick at whole
    steps only and print integers (thousands separated); a wall-time axis keeps decimals."""
    import pandas as pd

    from ui.training.charts import line_chart

    curves = pd.DataFrame([{"run": "r", "label": "r", "split": "train", "step": s,
                            "time": s / 10, "value": 1 / s, "smoothed": 1 / s}
                           for s in range(1, 21)])
    by_step = charts.compare_chart(curves, "step", "loss")["layer"][0]["encoding"]["x"]
    assert by_step["axis"] == {"format": ",d", "tickMinStep": 1}
    by_time = charts.compare_chart(curves, "time", "loss")["layer"][0]["encoding"]["x"]
    assert "axis" not in by_time
    timeline = charts.run_chart(curves, [10, 20], "loss")["layer"][0]["encoding"]["x"]
    assert timeline["axis"]["tickMinStep"] == 1
    live = pd.DataFrame({"step": range(1, 6), "value": [1.0] * 5, "series": ["train"] * 5})
    axis = line_chart(live, "step", "loss", False, "step")["layer"][0]["encoding"]["x"]["axis"]
    assert axis["format"] == ",d" and axis["tickMinStep"] == 1
    elapsed = line_chart(live.rename(columns={"step": "time"}), "time", "loss", False, "s")
    assert "tickMinStep" not in elapsed["layer"][0]["encoding"]["x"]["axis"]
