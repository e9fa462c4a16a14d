"""Issue 25: a run's insides on the Train page's live view and the Runs page's replay, from
fabricated ``insight/`` folders (the worker's own InsightWriter): the decision boundary on
its grid, one picture per unit with the kernel's links, the weight distributions, the
histogram at the chosen step, the gradient norms and dead-ReLU shares; the step slider
replays and, while the run is live, follows the newest step until moved; located problems
are warnings and the rest still draws; the Train form's recording choices reach the run."""

from __future__ import annotations

import json
import os

import pandas as pd
import pyarrow as pa
import pytest
from streamlit.testing.v1 import AppTest

from tests.app.apptest_helpers import APP, assert_clean
from tests.app.insight_fixtures import (LAYERS, SIZE, SMALL, TOO_MANY, add_snapshot,
                                        boundary, make_insight_run)
from tfcore.rundir import RunPaths, RunWriter
from tfcore.rundir.insight_format import grid_name, insight_dir
from tfcore.workspace import default_workspace
from ui.common.i18n import catalog

RUN = "insight-run"
UNITS = 2 + sum(units for _, units, _, _ in LAYERS)        # the input x1, x2 and each unit
LINKS = sum(inputs * units for _, units, _, inputs in LAYERS)


def _root():
    return default_workspace().ensure().runs


def _open(page: str, lang: str = "en", run_id: str = RUN) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["lang"] = lang
    at.session_state["train.run_id"] = run_id                 # the Train page watches it
    at.run()
    at.switch_page(page)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    return at


def _charts(at: AppTest) -> list[dict[str, pd.DataFrame]]:
    """Every drawn chart's named datasets."""
    found = []
    for chart in list(at.get("vega_lite_chart")) + list(at.get("arrow_vega_lite_chart")):
        found.append({d.name: pa.ipc.open_stream(d.data.data).read_all().to_pandas()
                      for d in chart.proto.datasets})
    return found


def _data(at: AppTest, name: str) -> list[pd.DataFrame]:
    return [chart[name] for chart in _charts(at) if name in chart]


def _slider(at: AppTest, where: str = "insight.train"):
    """The step slider (while it follows a live run, its key names the newest step)."""
    found = [s for s in at.select_slider if s.key.startswith(f"{where}.step")]
    assert len(found) == 1, [s.key for s in at.select_slider]
    return found[0]


def _one(at: AppTest, name: str) -> pd.DataFrame:
    frames = _data(at, name)
    assert len(frames) == 1, f"{len(frames)} charts with a {name!r} dataset"
    return frames[0]


def _inner_cells(step: int) -> int:
    """How many grid cells the fixture's boundary gives class 1 ("inner") at ``step``."""
    return int(boundary(step)[1].sum())


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_train_live_view_draws_the_boundary_neurons_and_statistics(lang: str) -> None:
    make_insight_run(_root(), RUN)
    at = _open("app_pages/train.py", lang)
    assert_clean(at, lang)
    text = catalog(lang)
    assert text["insight.title"] in [h.value for h in at.subheader]
    regions, points = _one(at, "regions"), _one(at, "points")
    assert len(regions) == SIZE * SIZE and set(regions["ix"]) == set(range(SIZE))
    assert (regions["class"] == "inner").sum() == _inner_cells(40)
    assert len(points) == 60 and set(points["label"]) == {"outer", "inner"}
    pixels = _one(at, "pixels")
    per_unit = pixels.groupby(["layer", "unit"]).size()
    assert len(per_unit) == UNITS and set(per_unit) == {SMALL * SMALL}
    extremes = pixels.groupby(["layer", "unit"])["v"].agg(["min", "max"])
    assert (extremes["min"] == -1).all() and (extremes["max"] == 1).all()   # each stretched
    links = _one(at, "links")
    assert len(links) == LINKS and set(links["sign"]) == {"+", "-"}
    assert (links["w"] >= 0).eq(links["sign"] == "+").all()
    bands = _one(at, "bands")
    assert bands["step"].tolist() == [10, 20, 30, 40]
    assert (bands["p0"] <= bands["p5000"]).all() and (bands["p5000"] <= bands["p10000"]).all()
    bins = _one(at, "bins")
    assert bins["count"].sum() == 2 * 4                      # dense/kernel's size
    grads, dead = _data(at, "layers")
    assert set(grads["layer"]) == {"dense", "dense_1", "dense_2"}
    assert set(dead["layer"]) == {"dense"} and dead["value"].between(0, 1).all()
    assert _slider(at).value == 40
    assert [b for b in at.button if b.key == "insight.train.follow_button"] == []


def test_the_step_slider_replays_a_finished_run() -> None:
    make_insight_run(_root(), RUN)
    at = _open("app_pages/train.py")
    last = _one(at, "regions")
    _slider(at).set_value(10).run()
    assert not at.exception
    first = _one(at, "regions")
    assert (first["class"] == "inner").sum() == _inner_cells(10) != _inner_cells(40)
    assert not first["fill"].equals(last["fill"])
    bold = [m.value for m in at.markdown]
    assert any("step 10 " in m for m in bold), bold
    assert _one(at, "bins")["count"].sum() == 8
    assert _slider(at).value == 10


def test_a_live_run_follows_the_newest_step_until_the_slider_moves() -> None:
    run_dir = make_insight_run(_root(), RUN, state="running")
    at = _open("app_pages/train.py")
    slider = lambda: _slider(at)                              # noqa: E731
    assert slider().value == 40
    add_snapshot(run_dir, 50)
    at.run()
    assert slider().value == 50 and slider().options == ["10", "20", "30", "40", "50"]
    assert (_one(at, "regions")["class"] == "inner").sum() == _inner_cells(50)
    slider().set_value(20).run()
    add_snapshot(run_dir, 60)
    at.run()
    assert slider().value == 20                               # the person's choice stays
    assert (_one(at, "regions")["class"] == "inner").sum() == _inner_cells(20)
    follow = next(b for b in at.button if b.key == "insight.train.follow_button")
    assert follow.label == catalog("en")["insight.follow"]
    follow.click().run()
    assert slider().value == 60
    assert (_one(at, "regions")["class"] == "inner").sum() == _inner_cells(60)
    slider().set_value(30).run()
    add_snapshot(run_dir, 70)            # "Follow live" pressed as the run ends: it rests on
    RunWriter(RunPaths(run_dir)).set_status(state="finished", step=70)   # the newest step,
    next(b for b in at.button if b.key == "insight.train.follow_button").click().run()
    assert slider().value == 70 and not at.exception                     # not the one held
    assert (_one(at, "regions")["class"] == "inner").sum() == _inner_cells(70)


def test_a_report_of_a_step_the_page_drew_lately_is_no_move() -> None:
    """While it follows, the browser may send back the step its slider showed before the
    newest reached it: that is no move (the slider follows on); a step the page did not draw
    lately is the person's."""
    run_dir = make_insight_run(_root(), RUN, state="running")
    at = _open("app_pages/train.py")
    add_snapshot(run_dir, 50)
    at.run()
    assert _slider(at).value == 50
    _slider(at).set_value(40).run()                  # drawn one snapshot ago
    assert _slider(at).value == 50 and _slider(at).key == "insight.train.step.live"
    assert not [b for b in at.button if b.key == "insight.train.follow_button"]
    add_snapshot(run_dir, 60)
    at.run()
    assert _slider(at).value == 60                   # still following
    _slider(at).set_value(10).run()                  # never drawn: the person's move
    assert _slider(at).value == 10 and _slider(at).key == "insight.train.step"
    assert [b for b in at.button if b.key == "insight.train.follow_button"]
    assert not at.exception


@pytest.mark.parametrize("lang, known", [("en", True), ("zh", True), ("en", False)])
def test_a_model_whose_neurons_are_not_drawn_says_why_and_summarises_its_layers(
        lang: str, known: bool) -> None:
    """The engine's reason in the reader's language; a reason this page does not know
    (a newer worker's) reads as the page's own line."""
    reason = TOO_MANY if known else {"key": "insight.reason.newer_one", "params": {}}
    make_insight_run(_root(), RUN, neurons=False, reason=reason)
    at = _open("app_pages/train.py", lang)
    assert_clean(at, lang)
    text = catalog(lang)
    shown = text[reason["key"]].format(units=5000, limit=400) if known \
        else text["insight.neurons_none"]
    assert shown in [i.value for i in at.info]
    assert _data(at, "pixels") == []
    table = next(d.value for d in at.dataframe if text["insight.col.layer"] in d.value.columns)
    assert table[text["insight.col.layer"]].tolist() == ["dense", "dense_1", "dense_2"]
    assert table[text["insight.col.params"]].tolist() == [12, 15, 8]
    # the grid shows the counts with separators (3,212,288), as the units column
    grid = next(d for d in at.dataframe if text["insight.col.layer"] in d.value.columns)
    config = json.loads(grid.proto.columns)
    assert config[text["insight.col.params"]]["type_config"]["format"] == "localized"
    assert table[text["insight.col.dead"]].tolist()[0] == "10%"        # 40 of 400
    assert len(_one(at, "regions")) == SIZE * SIZE               # the boundary still draws


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_damaged_stats_line_is_a_located_warning_and_the_rest_draws(lang: str) -> None:
    make_insight_run(_root(), RUN, bad_line=True)
    at = _open("app_pages/train.py", lang)
    assert_clean(at, lang)
    warnings = [w.value for w in at.warning]
    assert any(catalog(lang)["insight.problem"] in w and "insight/stats.jsonl:3" in w
               for w in warnings), warnings
    assert _one(at, "bands")["step"].tolist() == [10, 20, 30, 40]
    assert len(_one(at, "regions")) == SIZE * SIZE and len(_data(at, "layers")) == 2


def test_a_damaged_plane_file_is_a_located_warning_and_the_statistics_draw() -> None:
    run_dir = make_insight_run(_root(), RUN)
    (insight_dir(run_dir) / grid_name(40)).write_bytes(b"not a zip file")
    at = _open("app_pages/train.py")
    warnings = [w.value for w in at.warning]
    assert any(f"insight/{grid_name(40)}" in w for w in warnings), warnings
    assert _data(at, "regions") == [] and len(_one(at, "bands")) == 4
    _slider(at).set_value(30).run()
    assert len(_one(at, "regions")) == SIZE * SIZE


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_an_unreadable_meta_file_is_located_and_nothing_claims_to_draw(lang: str) -> None:
    """Without its meta.json nothing of the insides can be drawn: the warning names the
    file and says so, not that the rest is drawn."""
    run_dir = make_insight_run(_root(), RUN)
    (insight_dir(run_dir) / "meta.json").write_text("{not json", encoding="utf-8")
    at = _open("app_pages/train.py", lang)
    assert_clean(at, lang)
    text = catalog(lang)
    warnings = [w.value for w in at.warning]
    assert any(w.startswith(text["insight.unreadable"]) and "insight/meta.json" in w
               for w in warnings), warnings
    assert not any(text["insight.problem"] in w for w in warnings)
    assert _data(at, "regions") == [] and _data(at, "bands") == []


def test_a_run_without_insight_says_so_in_one_line() -> None:
    writer = RunWriter.create(_root(), {"name": "plain", "spec": {}, "training": {}}, RUN)
    writer.set_status(state="finished", pid=os.getpid(), step=5, epoch=1)
    at = _open("app_pages/train.py")
    assert catalog("en")["insight.none"] in [c.value for c in at.caption]
    assert catalog("en")["insight.title"] not in [h.value for h in at.subheader]
    assert _data(at, "regions") == [] and _data(at, "bands") == []


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_runs_page_replays_a_finished_run(lang: str) -> None:
    make_insight_run(_root(), RUN)
    at = _open("app_pages/runs.py", lang)
    assert_clean(at, lang)
    assert _slider(at, "insight.runs").value == 40
    assert (_one(at, "regions")["class"] == "inner").sum() == _inner_cells(40)
    assert len(_one(at, "pixels").groupby(["layer", "unit"])) == UNITS
    if lang != "en":      # AppTest re-reads the page's translated radios in English on a rerun
        return
    _slider(at, "insight.runs").set_value(20).run()
    assert not at.exception
    assert (_one(at, "regions")["class"] == "inner").sum() == _inner_cells(20)
    assert len(_data(at, "layers")) == 2 and len(_one(at, "bands")) == 4


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_runs_page_shows_the_insides_in_a_tab_of_their_own(lang: str) -> None:
    """The replay is the run detail's "Inside" tab (内部), after Curves: its slider and
    charts are in that tab, not below the tabs; ``?tab=inside`` opens the page at it."""
    from tests.app.lesson_helpers import open_tab
    from tfcore.lessons import PAGES

    make_insight_run(_root(), RUN)
    at = _open("app_pages/runs.py", lang)
    text = catalog(lang)
    labels = [tab.label for tab in at.tabs]
    assert labels[:3] == [text["runs.tab.config"], text["runs.tab.curves"],
                          text["runs.tab.inside"]]
    assert text["runs.tab.inside"] == {"en": "Inside", "zh": "内部"}[lang]
    inside = at.tabs[2]
    assert [s.key for s in inside.select_slider] == ["insight.runs.step"]
    assert inside.subheader[0].value == text["insight.title"]
    assert len(inside.get("vega_lite_chart")) + len(inside.get("arrow_vega_lite_chart")) >= 4
    assert open_tab(at) == 0                                   # the page opens at Config
    assert PAGES["runs"].tabs.index("inside") == 2

    linked = AppTest.from_file(APP, default_timeout=120)
    linked.query_params.update({"lang": lang, "tab": "inside"})
    linked.run()
    linked.switch_page("app_pages/runs.py").run()
    assert not linked.exception and not linked.warning
    assert open_tab(linked) == 2


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_built_in_sets_class_names_show_in_the_readers_language(lang: str) -> None:
    """Circles' classes, recorded as "inside"/"outside" with their texts, read 内圈/外圈 in
    the legend and the regions on a Chinese page (names without texts stay as they are:
    the fixture's "outer"/"inner" in the tests above)."""
    from tfcore.data import class_texts

    names = ["inside", "outside"]
    texts = [{"key": x.key, "params": dict(x.params)} for x in class_texts("circles", names)]
    make_insight_run(_root(), RUN, classes={"class_names": names, "class_texts": texts})
    at = _open("app_pages/runs.py", lang)
    shown = {"en": ["inside", "outside"], "zh": ["内圈", "外圈"]}[lang]
    regions, points = _one(at, "regions"), _one(at, "points")
    assert list(regions["class"].cat.categories) == shown
    assert list(points["label"].cat.categories) == shown
    assert (regions["class"] == shown[1]).sum() == _inner_cells(40)


# ------------------------------------------------------------ the Train form's choices
def _train_page(params: dict) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update({"lang": "en", **params})
    at.run()
    at.switch_page("app_pages/train.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_recording_is_on_by_default_with_an_automatic_interval() -> None:
    at = _train_page({})
    assert at.toggle(key="train.insight").value is True
    every = at.number_input(key="train.insight_every")
    assert (every.value, every.min, every.disabled) == (0, 0, False)
    assert every.label == catalog("en")["insight.form.every"]


def test_the_recording_choices_survive_a_reload_and_reach_the_run(monkeypatch) -> None:
    sent = []

    def start_run(root, request):                # what Train would start, kept for the test
        sent.append(request)
        RunWriter.create(root, request, "sent-run")
        return "sent-run"

    monkeypatch.setattr("tfcore.training.start_run", start_run)
    at = _train_page({"insight_every": "25"})
    assert at.number_input(key="train.insight_every").value == 25
    at.toggle(key="train.insight").set_value(False).run()
    assert at.number_input(key="train.insight_every").disabled
    assert (at.query_params["insight"], at.query_params["insight_every"]) == ("false", "25")
    again = _train_page(dict(at.query_params))                           # F5
    assert again.toggle(key="train.insight").value is False
    assert again.number_input(key="train.insight_every").value == 25
    again.button(key="train.start").click().run()
    assert sent and sent[0]["training"]["insight"] is False
    assert sent[0]["training"]["insight_every"] == 25


def test_the_layer_table_shows_a_dash_where_a_layer_has_no_value() -> None:
    """A Flatten has no units, activation, gradient or dead share: the class reads a dash,
    not the "None" the grid draws for a missing value; the dead share reads as a
    percentage, the counts with separators."""
    from types import SimpleNamespace

    from tfcore.rundir.insight_format import LayerInfo
    from ui.insight.panels import layer_summary

    meta = SimpleNamespace(layers=(
        LayerInfo("flatten", "Flatten", None, None, 0, ()),
        LayerInfo("dense", "Dense", 1000, "relu", 785000, ("dense/kernel", "dense/bias"))))
    table = layer_summary(meta, {"grad_norm": {"dense": 0.64263}, "dead": {"dense": 0.28}})
    assert not table.isna().any().any()
    rows = table.to_dict("records")
    assert list(rows[0].values()) == ["flatten", "Flatten", "—", "—", 0, "—", "—"]
    assert list(rows[1].values()) == ["dense", "Dense", "1,000", "relu", 785000, "0.6426",
                                      "28%"]
