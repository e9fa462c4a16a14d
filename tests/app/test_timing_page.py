"""The Eager vs graph page: opens clean in both languages, runs a tiny timing, tracing lab."""

from __future__ import annotations

import pytest

from tests.app.apptest_helpers import assert_clean, open_page
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
    table = at.dataframe[0].value
    assert table[catalog("en")["timing.col.mode"]].tolist() == ["Eager", "tf.function"]
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
