"""Scenarios T1, T3 and T5 of SCENARIOS.md, driven on their pages with the seed's numbers
(T2, T4, T6 are driven in test_foundations_pages.py and test_issue15_panels.py;
docs/scenarios.md lists every scenario with its test).

One run is trained from the Train page by clicks (the GradientTape loop, checkpoints named
``model.ckpt`` as in the tutorial, one every batch, the last 3 kept) and then looked at on
the Train and Runs pages."""

from __future__ import annotations

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from tests.app.apptest_helpers import open_page, run_until_decoded
from tests.app.scenario_helpers import assert_clean, chart_frames, image_folders, train_from_page
from tfcore.workspace import default_workspace
from ui.common.i18n import catalog

EN = catalog("en")
pytestmark = pytest.mark.shared_workspace      # module fixtures write runs there
STEPS = 26                                   # 1,258 training digits / batch 50, one epoch


def _tape_and_tutorial_checkpoints(at: AppTest) -> None:
    at.radio(key="train.loop").set_value("custom").run()
    at.number_input(key="train.ckpt_every").set_value(1)
    at.number_input(key="train.keep").set_value(3)
    at.selectbox(key="train.ckpt_prefix").set_value("model.ckpt").run()


@pytest.fixture(scope="module")
def tape_run() -> tuple[AppTest, str]:
    """Train page: MLP, 1 epoch, "GradientTape loop", Advanced: checkpoint every 1 step,
    keep 3, prefix model.ckpt; Train; wait until it finished."""
    return train_from_page("mlp", 1, before=_tape_and_tutorial_checkpoints)


def _runs_page(run_id: str) -> AppTest:
    at = open_page("app_pages/runs.py", "en")
    at.selectbox(key="runs.detail.run").set_value(run_id).run()
    assert_clean(at, "en")
    return at


def _frame_with(at: AppTest, column: str):
    return next(d.value for d in at.dataframe if column in d.value.columns)


@pytest.mark.slow
def test_T1_training_loop_by_hand(tape_run) -> None:
    """Tensors & gradients -> Gradient descent live, M2: the loop's code (GradientTape,
    tape.gradient over the model's variables, apply_gradients over the pairs) and 100 steps
    move the Dense layer; Train: "GradientTape loop" trains the MLP to a test accuracy."""
    at = open_page("app_pages/tensors.py", "en")
    at.radio(key="foundations.gd.problem").set_value("m2").run()
    code = next(c.value for c in at.code if "apply_gradients" in c.value)
    assert "with tf.GradientTape() as tape:" in code
    assert "grads = tape.gradient(loss, model.trainable_variables)" in code
    assert "optimizer.apply_gradients(zip(grads, model.trainable_variables))" in code
    next(b for b in at.button if b.key == "foundations.gd.run").click().run()
    assert_clean(at, "en")
    table = _frame_with(at, EN["foundations.gd.param"])
    assert table[EN["foundations.gd.value"]].tolist() == pytest.approx(
        [0.408, 1.191, 1.974, 0.783], abs=1e-3)

    page, run_id = tape_run
    from tfcore.rundir import RunStore

    record = RunStore(default_workspace().runs).get(run_id)
    assert record.request["training"]["loop"] == "custom"
    shown = {m.label: m.value for m in page.metric}
    assert shown["Step"] == str(STEPS)
    assert float(shown["Test Accuracy"]) > 0.3
    losses = [f for f in chart_frames(page) if "series" in f.columns]
    train = losses[0][losses[0]["series"] == EN["train.series.train"]]["value"].tolist()
    assert len(train) == STEPS and train[-1] < train[0]          # the loss went down


@pytest.mark.slow
def test_T3_checkpoints_model_ckpt_keep_three(tape_run) -> None:
    """After the run above: the Train page says "Checkpoints: model.ckpt-24, model.ckpt-25,
    model.ckpt-26" (numbered by batch, last 3 kept); Runs page, that run: the Checkpoints
    tab lists model.ckpt-N.index and .data-00000-of-00001, the checkpoint pickers and the
    curve's checkpoint marks say model.ckpt-N; Restore the latest."""
    page, run_id = tape_run
    kept = [STEPS - 2, STEPS - 1, STEPS]
    names = [f"model.ckpt-{n}" for n in kept]
    assert EN["train.checkpoints"].format(steps=", ".join(names)) in [
        c.value for c in page.caption]
    folder = default_workspace().runs / run_id / "ckpt"
    assert (folder / "checkpoint").is_file()
    assert sorted(p.name for p in folder.glob("*.index")) == [f"{n}.index" for n in names]

    at = _runs_page(run_id)
    table = _frame_with(at, EN["runs.ckpt.col.files"])
    assert table[EN["runs.ckpt.col.name"]].tolist() == names
    assert table[EN["runs.ckpt.col.number"]].tolist() == kept
    files = table[EN["runs.ckpt.col.files"]].iloc[-1]
    assert f"{names[-1]}.index" in files and f"{names[-1]}.data-00000-of-00001" in files
    picker = at.selectbox(key="runs.restore.ckpt")
    assert picker.options == [EN["runs.ckpt.option"].format(name=n, number=k)
                              for n, k in zip(names[:-1], kept[:-1])] + [
        EN["runs.ckpt.option_latest"].format(name=names[-1], number=kept[-1])]
    assert picker.options[-1] == "model.ckpt-26 (step 26, latest)"
    marks = [f for f in chart_frames(at) if "name" in f.columns and "step" in f.columns]
    assert marks and marks[0]["name"].tolist() == names
    next(b for b in at.button if b.key == "runs.restore.btn").click().run()
    assert_clean(at, "en")
    assert _frame_with(at, EN["runs.eval.col.restored"]) is not None


@pytest.mark.slow
def test_T5_save_tensors_lists_dicts_and_fresh_model(tape_run) -> None:
    """Tensors & gradients -> Saving tensors: save A as a tensor (.npy), [A, B] as a list
    and {A, B} as a dict (.npz), load each back; Runs page -> Restore & evaluate -> "Load
    into a fresh model and compare outputs": equal outputs side by side."""
    at = open_page("app_pages/tensors.py", "en")
    expected = {"my_tensor.npy": ("ndarray", 1), "my_list.npz": ("list", 2),
                "my_dict.npz": ("dict", 2)}
    for kind in ("tensor", "list", "dict"):
        at.radio(key="foundations.save.kind").set_value(kind).run()
        next(b for b in at.button if b.key == "foundations.save.go").click().run()
        assert_clean(at, "en")
        path = f"exports/arrays/my_{kind}.{'npy' if kind == 'tensor' else 'npz'}"
        assert EN["foundations.save.saved"].format(path=path) in [s.value for s in at.success]
        at.selectbox(key="foundations.load.file").set_value(path).run()
        next(b for b in at.button if b.key == "foundations.load.go").click().run()
        assert_clean(at, "en")
        kind_name, count = expected[path.rsplit("/", 1)[-1]]
        shown = [m.value for m in at.markdown]
        assert EN["foundations.load.kind"].format(kind=kind_name, count=count) in shown
        entries = {"tensor": ["array"], "list": ["[0]", "[1]"], "dict": ["A", "B"]}[kind]
        shapes = {"array": [2, 2], "[0]": [2, 2], "[1]": [2, 3], "A": [2, 2], "B": [2, 3]}
        for entry in entries:                           # the page's tensors are float32
            assert EN["foundations.load.entry"].format(entry=entry, shape=shapes[entry],
                                                       dtype="float32") in shown, shown
        values = [d.value.to_numpy() for d in at.dataframe]
        assert any(v.shape == (2, 2) and np.array_equal(v, [[1, 2], [3, 4]]) for v in values)

    _, run_id = tape_run
    runs = _runs_page(run_id)
    next(b for b in runs.button if b.key == "runs.restore.btn").click().run()
    next(b for b in runs.button if b.key == "runs.fresh.btn").click().run()
    assert_clean(runs, "en")
    table = _frame_with(runs, EN["freshcopy.col.fresh"])
    assert len(table) == 4 * 10
    assert table[EN["freshcopy.col.restored"]].tolist() == \
        table[EN["freshcopy.col.fresh"]].tolist()
    assert EN["freshcopy.equal"].format(diff="0") in [s.value for s in runs.success]


def test_T6_tf_data_pipeline_buffer_and_image_folders() -> None:
    """tf.data pipelines page (digits sorted by label): shuffle buffer 1 keeps the order (the
    first batch holds one class), a buffer of 2048 (>= the data) mixes it; the code shows
    from_tensor_slices -> map -> shuffle -> batch -> prefetch. Train page: data source
    Upload -> Image folders -> cats/ dogs/: the files become a 2-class image dataset."""
    at = open_page("app_pages/pipeline.py", "en")
    first = EN["foundations.pipeline.first_classes"]
    assert at.select_slider(key="fp.buffer").value == 1
    assert {m.label: m.value for m in at.metric}[first] == "1"
    at.select_slider(key="fp.buffer").set_value(2048).run()
    assert_clean(at, "en")
    assert int({m.label: m.value for m in at.metric}[first]) >= 8
    code = next(c.value for c in at.code if "from_tensor_slices" in c.value)
    steps = [code.index(s) for s in ("from_tensor_slices", ".map(", ".shuffle(2048",
                                     ".batch(32)", ".prefetch(")]
    assert steps == sorted(steps)

    name = image_folders()
    train = open_page("app_pages/train.py", "en")
    train.radio(key="train.data.source").set_value("upload").run()
    train.radio(key="train.data.upload_kind").set_value("images").run()
    train.selectbox(key="train.data.upload_file.images").set_value(name).run()
    run_until_decoded(train)                # read in a child process (issue 28 item 3)
    assert_clean(train, "en")
    info = [c.value for c in train.caption if " validation / " in c.value]
    # 12 files; resized to the MLP's own input (the picker's default size)
    assert len(info) == 1 and info[0].endswith("input 28 x 28 x 1, classes: 2"), info
    assert train.session_state["train.data.upload_file.images"] == name
