"""The Eager vs graph page: opens clean in both languages, runs a tiny timing, tracing lab."""

from __future__ import annotations

import json

import pyarrow as pa
import pytest

from tests.app.apptest_helpers import assert_clean, open_page
from tests.app.timing_fixtures import fake_result
from tfcore.timing import busy_rule
from ui.common.i18n import catalog

PAGE = "app_pages/timing.py"


def _charts(at) -> list:
    return list(at.get("arrow_vega_lite_chart")) + list(at.get("vega_lite_chart"))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_page_opens_clean(lang: str) -> None:
    at = open_page(PAGE, lang)
    assert_clean(at, lang)
    assert at.title[0].value == catalog(lang)["timing.title"]
    assert [tab.label for tab in at.tabs][:5] == [catalog(lang)[f"timing.tab.{k}"] for k in
                                                  ("compare", "g1", "sweep", "tracing",
                                                   "autograph")]
    # the AutoGraph tab shows the converted if/else of G4 right away
    assert any("ag__.if_stmt" in code.value for code in at.code)


def test_tiny_timing_runs_from_the_page() -> None:
    at = open_page(PAGE, "en", timeout=240)
    at.number_input(key="timing.batch").set_value(4)
    at.number_input(key="timing.steps").set_value(2)
    at.number_input(key="timing.warmup").set_value(0)
    at.multiselect(key="timing.modes").set_value(["eager", "graph"])
    at.button(key="timing.run").click().run(timeout=240)
    assert_clean(at, "en")
    doc = at.session_state["timing.result"]
    assert [m["mode"] for m in doc["modes"]] == ["eager", "graph"]
    assert all(m["median_s"] > 0 and m["first_call_s"] > 0 for m in doc["modes"])
    assert doc["batch_size"] == 4 and doc["steps"] == 2
    assert len(_charts(at)) >= 2
    table = at.dataframe[0].value                       # a column per mode, a row per measure
    assert list(table.columns) == [catalog("en")["timing.col.measure"], "Eager", "tf.function"]
    assert catalog("en")["timing.col.median"] in table[catalog("en")["timing.col.measure"]].tolist()
    explanation = " ".join(md.value for md in at.markdown)
    assert "tf.function" in explanation and "ms" in explanation


def test_tracing_lab_reproduces_g2_from_the_page() -> None:
    # English: AppTest re-formats radio options outside the script run (default language)
    at = open_page(PAGE, "en")
    at.button(key="timing.trace.run").click().run()
    assert_clean(at, "en")
    result = at.session_state["timing.trace_result"]
    assert result.trace_count == 6
    assert any(m.value == "6" for m in at.metric)


def test_bad_sweep_values_show_a_translated_error() -> None:
    at = open_page(PAGE, "en")
    at.text_input(key="timing.sweep.values.batch").set_value("8,abc")
    at.button(key="timing.sweep.run").click().run()
    assert not at.exception
    assert any("Received: 8,abc" in err.value for err in at.error)
    assert "timing.sweep_result" not in at.session_state


def test_tiny_batch_sweep_draws_its_charts() -> None:
    at = open_page(PAGE, "en", timeout=240)
    at.text_input(key="timing.sweep.values.batch").set_value("2,8")
    at.number_input(key="timing.sweep.steps").set_value(1)
    at.button(key="timing.sweep.run").click().run(timeout=240)
    assert_clean(at, "en")
    doc = at.session_state["timing.sweep_result"]
    assert doc["sweep"] == "batch" and doc["values"] == [2, 8]
    assert [p["batch_size"] for p in doc["points"]] == [2, 8]
    assert {(r["value"], r["mode"]) for r in doc["rows"]} == {
        (2, "eager"), (2, "graph"), (8, "eager"), (8, "graph")}
    assert len(_charts(at)) >= 3  # time, speedup and share of peak


@pytest.mark.slow
def test_g1_reproduction_sets_the_result_beside_the_tutorial() -> None:
    at = open_page(PAGE, "en", timeout=300)
    at.selectbox(key="timing.g1.batches").set_value(20)
    at.button(key="timing.g1.run").click().run(timeout=300)
    assert_clean(at, "en")
    doc = at.session_state["timing.g1_result"]
    assert doc["model"] == "cnn" and doc["batch_size"] == 50 and doc["params"] == 3_274_634
    assert [m["batches"] for m in doc["modes"]] == [20, 20]  # first call + warm-up + timed
    text = " ".join(md.value for md in at.markdown)
    assert "On this machine 20 batches took" in text and "the tutorial: 1.23×" in text
    assert len(_charts(at)) >= 3


def _specs(at) -> list[dict]:
    """Each chart's Vega-Lite spec, its named datasets put back as lists of rows."""
    specs = []
    for chart in _charts(at):
        spec = json.loads(chart.proto.spec)
        spec["datasets"] = {d.name: pa.ipc.open_stream(d.data.data).read_all().to_pylist()
                            for d in chart.proto.datasets}
        specs.append(spec)
    return specs


def _encodings(spec: dict) -> list[dict]:
    layers = spec.get("layer", [spec])
    return [layer.get("encoding", {}) for layer in layers]


@pytest.mark.parametrize("lang", ["en"])  # zh: AppTest re-formats the radios in English
def test_result_charts_have_scales_height_spread_and_a_busy_warning(lang: str) -> None:
    busy = busy_rule([("eager", 0.150, 0.042), ("graph", 0.0027, 0.0026)], 1.0, 1.0, cpus=2)
    at = open_page(PAGE, lang)
    at.session_state["timing.result"] = fake_result(busy).to_dict()
    at.run()
    assert_clean(at, lang)
    texts = catalog(lang)
    specs = {spec["title"]["text"]: spec for spec in _specs(at)}
    steps, first = specs[texts["timing.chart.title"]], specs[texts["timing.chart.first_title"]]
    for spec in (steps, first):
        assert spec["height"] >= 240
        y = next(e["y"] for e in _encodings(spec) if "y" in e)
        assert y["title"] and y["axis"]["grid"]
    assert steps["layer"][0]["encoding"]["y"]["axis"]["tickCount"] >= 4
    y = first["encoding"]["y"]
    assert y["title"] == texts["timing.chart.ms_log"] and y["scale"]["type"] == "log"
    # labelled decades from the fastest step (2.7 ms) to the slowest first call (2 s)
    assert y["axis"]["values"] == [1, 10, 100, 1000, 10000] == y["scale"]["domain"][:1] + [
        10, 100, 1000] + y["scale"]["domain"][1:]
    # every repeat is a point, on both clocks (3 repeats x 2 modes x wall and CPU)
    points = next(d for d in steps["datasets"].values() if d and "repeat" in d[0])
    assert len(points) == 12
    assert {row["clock"] for row in points} == {texts["timing.chart.wall"],
                                                texts["timing.chart.cpu"]}
    warning = " ".join(w.value for w in at.warning)
    assert texts["timing.busy.warning"] in warning
    assert "3.6" in warning                      # 150 ms wall / 42 ms CPU
    metric = at.metric[0]
    assert metric.value == "55.56×"              # 150 / 2.7: the ratio of medians
    assert metric.proto.delta.startswith("p10–p90")         # short: nothing cut in a column
    statistic = texts["timing.metric.statistic"].split("{clock}")[0]
    assert any(statistic in c.value for c in at.caption)    # what the ratio is, in full


def test_a_quiet_result_shows_no_busy_warning() -> None:
    at = open_page(PAGE, "en")
    at.session_state["timing.result"] = fake_result(busy_rule([], 1.0, 1.0, cpus=2)).to_dict()
    at.run()
    assert_clean(at, "en")
    assert not [w for w in at.warning if catalog("en")["timing.busy.warning"] in w.value]
    assert len(_specs(at)) == 2


def test_a_raised_peak_is_said_and_no_share_reads_above_100_percent() -> None:
    """The fake result's modes at 0.5 and 1.0 of a peak that a mode reached (issue: a G1
    result read 101.1 % of the peak): the table shows 100.0 % at most and the page says
    why the peak moved."""
    from dataclasses import replace

    result = fake_result(busy_rule([], 1.0, 1.0, cpus=2))
    modes = (replace(result.modes[0], achieved_flops=5e8, utilization=0.5),
             replace(result.modes[1], achieved_flops=1e9, utilization=1.0))
    result = replace(result, modes=modes, flops_per_step=1_000_000, flops_method="graph",
                     peak_flops=1e9, peak_raised=True)
    at = open_page(PAGE, "en")
    at.session_state["timing.result"] = result.to_dict()
    at.run()
    assert_clean(at, "en")
    assert any(catalog("en")["timing.result.peak_raised"] == c.value for c in at.caption)
    shown = " ".join(str(v) for frame in at.dataframe for v in frame.value.to_numpy().ravel())
    assert "100.0%" in shown and "50.0%" in shown
