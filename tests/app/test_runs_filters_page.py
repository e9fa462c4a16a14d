"""The Runs page's Filters tab: a CNN run's conv filters and feature maps at a checkpoint
chosen with a slider (the charts hold the checkpoint's own values); a run without a conv
layer says why in one line; both languages."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from tests.app.apptest_helpers import assert_clean, open_page
from tests.unit.fixtures_runs import make_run, tiny_cnn_spec
from tfcore.messages import SEPARATORS
from tfcore.runs import conv_view
from tfcore.runs.ckpt_variables import list_variables, read_tensor
from tfcore.workspace import default_workspace
from ui.common.i18n import catalog

PAGE = "app_pages/runs.py"
pytestmark = pytest.mark.shared_workspace      # the module's runs are trained once


@pytest.fixture(scope="module")
def runs() -> dict[str, str]:
    """A tiny CNN run (checkpoints 4 and 8), one with checkpoint 4 only, and a run without
    a conv layer."""
    root = default_workspace().ensure().runs
    return {"cnn": make_run(root, name="filters_cnn", steps=8, ckpt_every=4,
                            spec=tiny_cnn_spec()),
            "cnn_4": make_run(root, name="filters_cnn_4", steps=4, ckpt_every=4,
                              spec=tiny_cnn_spec()),
            "mlp": make_run(root, name="filters_mlp", steps=4, ckpt_every=4)}


def _frames(at, column: str) -> list[pd.DataFrame]:
    found = []
    for chart in list(at.get("vega_lite_chart")) + list(at.get("arrow_vega_lite_chart")):
        for data in chart.proto.datasets:
            frame = pa.ipc.open_stream(data.data.data).read_all().to_pandas()
            if column in frame.columns:
                found.append(frame)
    return found


def _kernel_from(frame: pd.DataFrame) -> np.ndarray:
    """(kh, kw, filters) back from the long-form chart data."""
    side = frame[["row", "col"]].max().to_numpy() + 1
    out = np.zeros((side[0], side[1], frame["filter"].nunique()), dtype=np.float32)
    out[frame["row"], frame["col"], frame["filter"]] = frame["value"]
    return out


def _kernel_key(run_dir, number: int) -> str:
    listing = list_variables(run_dir, number)
    return next(v.key for v in listing.variables
                if v.label.startswith("model/") and len(v.shape) == 4)


def _open_run(lang: str, run_id: str):
    """The Runs page showing ``run_id``, chosen before the page first draws: with the
    comparison left empty (AppTest cannot reread the Chinese labels of its x-axis radio)."""
    at = open_page("app_pages/home.py", lang)
    at.session_state["runs.compare"] = []
    at.session_state["runs.detail.run"] = run_id
    at.switch_page(PAGE).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_filters_follow_the_checkpoint_slider(runs: dict, lang: str) -> None:
    text = catalog(lang)
    run_dir = default_workspace().runs / runs["cnn"]
    at = _open_run(lang, runs["cnn"])
    assert_clean(at, lang)
    assert text["runs.tab.filters"] in [tab.label for tab in at.tabs]
    slider = at.select_slider(key="runs.conv.ckpt")
    assert slider.options == [text["runs.ckpt.option"].format(name="ckpt-4", number=4),
                              text["runs.ckpt.option_latest"].format(name="ckpt-8", number=8)]
    assert slider.value == 8
    key = _kernel_key(run_dir, 8)
    for number in (8, 4):
        if number != slider.value:
            at.select_slider(key="runs.conv.ckpt").set_value(number).run()
            assert not at.exception, [e.value for e in at.exception]
        shown = _kernel_from(_frames(at, "filter")[0])
        saved = read_tensor(run_dir / "ckpt" / f"ckpt-{number}", key)[:, :, 0, :]
        assert np.abs(shown - saved).max() == 0
        maps = _frames(at, "map")[0]
        view = conv_view(run_dir, number, 0)
        np.testing.assert_allclose(maps["value"], np.moveaxis(view.maps, -1, 0).reshape(-1),
                                   atol=1e-6)
    scale = max(float(np.abs(read_tensor(run_dir / "ckpt" / f"ckpt-{n}", key)).max())
                for n in (4, 8))
    note = text["runs.conv.filters_note"].format(shown=4, total=4, h=3, w=3,
                                                 scale=f"{scale:.3g}", count=2)
    assert note in [c.value for c in at.caption]
    assert_clean(at, lang)


def test_another_run_opens_at_its_own_latest_checkpoint(runs: dict) -> None:
    """ckpt-4, the latest of the run shown first, exists in the next run too: the next run
    still opens at its own latest (ckpt-8), its filters with it."""
    at = _open_run("en", runs["cnn_4"])
    assert at.select_slider(key="runs.conv.ckpt").value == 4
    at.selectbox(key="runs.detail.run").set_value(runs["cnn"]).run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.select_slider(key="runs.conv.ckpt").value == 8
    run_dir = default_workspace().runs / runs["cnn"]
    saved = read_tensor(run_dir / "ckpt" / "ckpt-8", _kernel_key(run_dir, 8))[:, :, 0, :]
    assert np.abs(_kernel_from(_frames(at, "filter")[0]) - saved).max() == 0


@pytest.mark.parametrize("key", ["runs.restore.ckpt", "runs.vars.ckpt"])
def test_every_checkpoint_picker_opens_another_run_at_its_latest(runs: dict, key: str) -> None:
    """The Restore and Variables pickers, like the filters' slider: ckpt-4 (the latest of
    the run shown first) exists in the next run too, and was kept there, labelled
    "latest" in the browser; the next run opens at its own latest, ckpt-8."""
    text = catalog("en")
    at = _open_run("en", runs["cnn_4"])
    assert at.selectbox(key=key).value == 4
    at.selectbox(key="runs.detail.run").set_value(runs["cnn"]).run()
    assert not at.exception, [e.value for e in at.exception]
    box = at.selectbox(key=key)
    assert box.value == 8
    assert box.proto.raw_value == text["runs.ckpt.option_latest"].format(name="ckpt-8",
                                                                        number=8)
    box.set_value(4).run()                     # a choice on the same run is kept
    assert at.selectbox(key=key).value == 4
    at.selectbox(key="runs.detail.run").set_value(runs["cnn_4"]).run()
    box = at.selectbox(key=key)
    assert box.value == 4 and box.proto.raw_value == \
        text["runs.ckpt.option_latest"].format(name="ckpt-4", number=4)


def test_another_test_image_changes_the_maps_not_the_filters(runs: dict) -> None:
    at = _open_run("en", runs["cnn"])
    filters = _frames(at, "filter")[0]
    maps = _frames(at, "map")[0]
    at.number_input(key="runs.conv.image").set_value(5).run()
    assert not at.exception
    assert _frames(at, "filter")[0].equals(filters)
    assert not np.allclose(_frames(at, "map")[0]["value"], maps["value"])
    at.number_input(key="runs.conv.image").set_value(10_000).run()
    errors = [e.value for e in at.error]
    assert any("There is no test image 10000" in e and "0 to 358" in e for e in errors), errors


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_run_without_a_conv_layer_says_why(runs: dict, lang: str) -> None:
    text = catalog(lang)
    at = _open_run(lang, runs["mlp"])
    assert_clean(at, lang)
    line = text["runs.conv.none"].format(layers=SEPARATORS[lang].join(
        ["flatten (Flatten)", "dense (Dense)", "logits (Dense)", "softmax (Softmax)"]))
    assert line in [i.value for i in at.info]
    assert not at.error
    assert not [s for s in at.select_slider if s.key == "runs.conv.ckpt"]


@pytest.mark.parametrize("key", ["runs.restore.ckpt", "runs.vars.ckpt", "runs.conv.ckpt"])
def test_a_run_whose_state_file_names_an_older_checkpoint_opens_at_that_one(
        runs: dict, key: str) -> None:
    """A folder whose ``checkpoint`` file names ckpt-4 as the latest (rolled back by hand)
    although ckpt-8 is there: every picker opens at ckpt-4, the one labelled "latest",
    not at the highest number."""
    import shutil

    root = default_workspace().runs
    back = f"{runs['cnn']}-rolled-back"
    shutil.copytree(root / runs["cnn"], root / back, dirs_exist_ok=True)
    state = root / back / "ckpt" / "checkpoint"
    state.write_text(state.read_text().replace('model_checkpoint_path: "ckpt-8"',
                                               'model_checkpoint_path: "ckpt-4"'))
    try:
        at = _open_run("en", back)
        widget = at.select_slider(key=key) if key == "runs.conv.ckpt" else at.selectbox(key=key)
        assert widget.value == 4
    finally:
        shutil.rmtree(root / back, ignore_errors=True)
