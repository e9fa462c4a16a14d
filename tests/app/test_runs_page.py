"""The runs page: opens clean in both languages; compare two runs; restore and evaluate;
seed groups; rename and delete; a damaged run does not break the page."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest

from tests.app.apptest_helpers import assert_clean, open_page
from tests.unit.fixtures_runs import make_run
from tfcore.jsonio import read_json
from tfcore.workspace import default_workspace
from ui.common.i18n import catalog

PAGE = "app_pages/runs.py"
EN = catalog("en")
pytestmark = pytest.mark.shared_workspace      # module fixtures write runs there


@pytest.fixture(scope="module")
def runs() -> dict[str, str]:
    """Two runs differing only in seed, in the session workspace."""
    root = default_workspace().ensure().runs
    return {"a": make_run(root, name="page_a", seed=0, steps=8, ckpt_every=4),
            "b": make_run(root, name="page_b", seed=1, steps=8, ckpt_every=4)}


def _chart_frames(at) -> list[pd.DataFrame]:
    frames = []
    for chart in list(at.get("vega_lite_chart")) + list(at.get("arrow_vega_lite_chart")):
        for data in chart.proto.datasets:
            frames.append(pa.ipc.open_stream(data.data.data).read_all().to_pandas())
    return frames


def _button(at, key: str):
    return next(b for b in at.button if b.key == key)


def _frame_with(at, column: str) -> pd.DataFrame:
    return next(d.value for d in at.dataframe if column in d.value.columns)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_page_opens_clean_with_runs(runs: dict, lang: str) -> None:
    at = open_page(PAGE, lang)
    assert_clean(at, lang)
    table = _frame_with(at, catalog(lang)["runs.col.run"])
    assert set(runs.values()) <= set(table[catalog(lang)["runs.col.run"]])


def test_select_two_runs_and_see_both_curves(runs: dict) -> None:
    at = open_page(PAGE, "en")
    at.multiselect(key="runs.compare").set_value([runs["a"]]).run()
    curves = next(f for f in _chart_frames(at) if "smoothed" in f.columns)
    assert set(curves["run"]) == {runs["a"]}
    at.multiselect(key="runs.compare").set_value([runs["a"], runs["b"]]).run()
    assert not at.exception
    curves = next(f for f in _chart_frames(at) if "smoothed" in f.columns)
    assert set(curves["run"]) == {runs["a"], runs["b"]}
    for run_id in runs.values():
        train = curves[(curves["run"] == run_id) & (curves["split"] == "train")]
        assert train["step"].tolist() == list(range(1, 9))
        logged = [r["loss"] for r in map(json.loads, (default_workspace().runs / run_id /
                  "metrics.jsonl").read_text().splitlines()) if r["split"] == "train"]
        assert train["value"].tolist() == pytest.approx(logged)
    at.slider(key="runs.compare.smoothing").set_value(0.9).run()
    smoothed = next(f for f in _chart_frames(at) if "smoothed" in f.columns)
    assert not (smoothed["smoothed"] == smoothed["value"]).all()


def test_seed_group_shows_mean_of_the_two_runs(runs: dict) -> None:
    at = open_page(PAGE, "en")
    at.multiselect(key="runs.compare").set_value([runs["a"], runs["b"]]).run()
    at.toggle(key="runs.groups.show").set_value(True).run()
    stats = next(f for f in _chart_frames(at) if "mean" in f.columns)
    assert set(stats["count"]) == {2}
    curves = next(f for f in _chart_frames(at) if "smoothed" in f.columns)
    train = curves[curves["split"] == "train"].pivot(index="step", columns="run",
                                                     values="smoothed")
    first = stats[stats["split"] == "train"].set_index("step")["mean"]
    assert first.tolist() == pytest.approx(train.mean(axis=1).tolist())


def test_restore_and_evaluate_a_checkpoint(runs: dict) -> None:
    at = open_page(PAGE, "en")
    at.selectbox(key="runs.detail.run").set_value(runs["a"]).run()
    checkpoints = _frame_with(at, EN["runs.ckpt.col.files"])
    assert checkpoints[EN["runs.ckpt.col.number"]].tolist() == [4, 8]
    assert at.selectbox(key="runs.restore.ckpt").value == 8
    _button(at, "runs.restore.btn").click().run()
    assert not at.exception
    result = _frame_with(at, EN["runs.eval.col.restored"]).set_index(EN["runs.eval.col.metric"])
    reported = read_json(default_workspace().runs / runs["a"] / "status.json")["test_metrics"]
    for name, value in reported.items():
        assert result.loc[name, EN["runs.eval.col.restored"]] == pytest.approx(value, abs=1e-6)
        assert result.loc[name, EN["runs.eval.col.reported"]] == pytest.approx(value)
    at.toggle(key="runs.predict.show").set_value(True).run()
    assert not at.exception
    predicted = _frame_with(at, EN["runs.predict.col.pred"])
    assert len(predicted) == 8 and set(predicted[EN["runs.predict.col.pred"]]) <= set("0123456789")
    at.selectbox(key="runs.restore.ckpt").set_value(4).run()
    at.checkbox(key="runs.restore.optimizer").check().run()
    _button(at, "runs.restore.btn").click().run()
    assert any(EN["runs.restore.optimizer_done"].format(count=10, iterations=4) == c.value
               for c in at.caption)
    early = _frame_with(at, EN["runs.eval.col.restored"]).set_index(EN["runs.eval.col.metric"])
    assert early.loc["loss", EN["runs.eval.col.restored"]] != pytest.approx(
        reported["loss"], abs=1e-6)
    assert any(EN["runs.eval.no_reported"] == c.value for c in at.caption)


def test_open_checkpoint_weights_in_the_weights_lab(runs: dict) -> None:
    import numpy as np

    from tfcore.runs.ckpt_variables import read_tensor

    at = open_page(PAGE, "en")
    at.selectbox(key="runs.detail.run").set_value(runs["b"]).run()
    at.selectbox(key="runs.restore.ckpt").set_value(4).run()
    _button(at, "runs.restore.btn").click().run()
    _button(at, "runs.next.weights").click().run()
    assert not at.exception
    relative = at.session_state["train.initial_weights"]
    assert relative == f"exports/{runs['b']}-ckpt-4.weights.h5"
    assert (default_workspace().root / relative).is_file()
    assert at.session_state["builder.spec"].name == "tiny"
    at.switch_page("app_pages/weights.py").run()
    _button(at, "weights.file.load").click().run()
    assert not at.exception
    model = at.session_state["weights.models"][at.session_state["weights.current"]]
    kernel = read_tensor(default_workspace().runs / runs["b"] / "ckpt" / "ckpt-4",
                         "optimizer/_trainable_variables/0/.ATTRIBUTES/VARIABLE_VALUE")
    np.testing.assert_array_equal(model.get_layer("dense").kernel.numpy(), kernel)


def test_rename_then_delete_exactly_one_run(tmp_path: Path) -> None:
    root = default_workspace().runs
    victim = make_run(root, name="page_victim", seed=3, steps=4, ckpt_every=2)
    before = {p.name for p in root.iterdir()}
    at = open_page(PAGE, "en")
    at.selectbox(key="runs.detail.run").set_value(victim).run()
    at.text_input(key=f"runs.manage.name.{victim}").set_value("renamed run").run()
    _button(at, "runs.manage.save").click().run()
    assert read_json(root / victim / "meta.json")["name"] == "renamed run"
    assert read_json(root / victim / "run.json")["name"] == "page_victim"
    at.selectbox(key="runs.detail.run").set_value(victim).run()
    assert _button(at, "runs.manage.delete").disabled
    at.checkbox(key=f"runs.manage.confirm.{victim}").check().run()
    _button(at, "runs.manage.delete").click().run()
    assert not at.exception
    assert before - {p.name for p in root.iterdir()} == {victim}
    # said above the list (the run's Manage tab went with it), once
    assert [s.value for s in at.success] == [EN["runs.manage.deleted"].format(name="renamed run")]
    at.run()
    assert not at.success


def test_damaged_run_is_listed_and_page_still_works(runs: dict) -> None:
    root = default_workspace().runs
    broken = root / "zz-broken-run"
    shutil.copytree(root / runs["a"], broken)
    try:
        (broken / "run.json").unlink()
        (broken / "ckpt" / "checkpoint").unlink()
        at = open_page(PAGE, "en")
        at.selectbox(key="runs.detail.run").set_value(broken.name).run()
        assert not at.exception
        warnings = " ".join(w.value for w in at.warning)
        assert "run.json: is missing" in warnings   # plain(): nothing here needs escaping
        assert "'checkpoint' state file is missing" in warnings
        _button(at, "runs.restore.btn").click().run()
        assert not at.exception
        assert any("run.json" in e.value for e in at.error)
        assert (broken / "ckpt" / "ckpt-8.index").exists()
    finally:
        shutil.rmtree(broken, ignore_errors=True)


def test_foreign_tutorial_checkpoint_is_read_and_restored(runs: dict) -> None:
    from tests.unit.fixtures_runs import make_tutorial_checkpoint

    folder = make_tutorial_checkpoint(default_workspace().uploads / "tutorial_ckpt")
    relative = str(folder.relative_to(default_workspace().root))
    at = open_page(PAGE, "en")
    at.text_input(key="runs.foreign.path").set_value(relative).run()
    assert not at.exception
    column = EN["runs.vars.col.key"]
    keys = [d.value for d in at.dataframe if column in d.value.columns][-1][column].tolist()
    assert "myModel/dense1/_kernel/.ATTRIBUTES/VARIABLE_VALUE" in keys
    _button(at, "runs.foreign.restore").click().run()
    assert not at.exception
    assert any(EN["runs.match.complete"].format(count=4) == s.value for s in at.success)
    at.checkbox(key="runs.foreign.by_order").uncheck().run()
    _button(at, "runs.foreign.restore").click().run()
    assert any(EN["runs.match.partial"].format(missing=4, mismatch=0) == w.value
               for w in at.warning)
    at.text_input(key="runs.foreign.path").set_value("../outside").run()
    assert not at.exception and at.error
