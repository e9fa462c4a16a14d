"""Issue 15 on the pages: D1 (visible GPUs, the logical devices a split creates) on Train;
D3 ("Number of devices: 2", a mirrored variable's per-replica values) on Placement; T3 (the
checkpoint prefix choice); T4 (Open in TensorBoard links to the running server); T5 (a
checkpoint loaded into a fresh model gives equal outputs, side by side)."""

from __future__ import annotations

from urllib.parse import quote

import pytest

from tests.app.apptest_helpers import assert_clean, open_page
from tests.unit.fixtures_runs import make_run
from tfcore.runs import fresh_copy_outputs, running_tensorboard, stop_tensorboard
from tfcore.runs.tb_names import board_names, run_filter
from tfcore.runs.tensorboard import fetch_json
from tfcore.tfenv import describe_devices
from tfcore.workspace import default_workspace
from ui.common.i18n import catalog

EN = catalog("en")
pytestmark = [pytest.mark.slow, pytest.mark.shared_workspace]


def _button(at, key: str):
    return next(b for b in at.button if b.key == key)


def _frame_with(at, column: str):
    return next(d.value for d in at.dataframe if column in d.value.columns)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_train_device_section_explains_the_visible_gpu_choice(lang: str) -> None:
    text = catalog(lang)
    at = open_page("app_pages/train.py", lang)
    assert_clean(at, lang)
    visible = at.multiselect(key="train.visible_gpus")
    assert visible.label == text["devices.visible"]
    if not describe_devices().gpu_count:            # this machine: the choice is explained
        assert visible.disabled and visible.options == []
        assert text["devices.visible_none"] in [c.value for c in at.caption]
    prefix = at.selectbox(key="train.ckpt_prefix")
    assert prefix.value == "ckpt" and prefix.options == ["ckpt", "model.ckpt"]


def test_train_device_section_lists_the_logical_devices_of_a_split() -> None:
    # (English only: AppTest formats radio options outside the script run, in English)
    at = open_page("app_pages/train.py", "en")
    at.radio(key="train.device").set_value("logical").run()
    _button(at, "train.list_devices").click().run()
    assert_clean(at, "en")
    names = ", ".join(f"`/device:CPU:{i}`" for i in range(2))
    assert EN["devices.listed"].format(count=2, names=names) in [s.value for s in at.success]
    expected = EN["train.replicas"].format(replicas=2, batch=50, per_replica=25)
    assert expected in [c.value for c in at.caption]
    assert expected.startswith("Number of devices: 2")
    at.number_input(key="train.logical_count").set_value(3).run()
    assert not at.success                     # other settings: the old list is not shown


def test_placement_page_runs_mirrored_strategy_over_two_logical_cpus() -> None:
    at = open_page("app_pages/placement.py", "en")
    assert at.number_input(key="foundations.mirrored.logical").value == 2
    _button(at, "foundations.mirrored.run").click().run()
    assert_clean(at, "en")
    assert "**Number of devices: 2**" in [m.value for m in at.markdown]
    created, updated = [d.value for d in at.dataframe
                        if EN["devices.mirrored.col.values"] in d.value.columns][-2:]
    assert created[EN["devices.mirrored.col.values"]].tolist() == ["1, 2, 3"] * 2
    assert updated[EN["devices.mirrored.col.values"]].tolist() == ["1.5, 2.5, 3.5"] * 2
    assert [d.rsplit("/", 1)[-1] for d in created[EN["devices.mirrored.col.device"]]] == \
        ["device:CPU:0", "device:CPU:1"]
    assert EN["devices.mirrored.type"].format(type="`MirroredVariable`") in \
        [m.value for m in at.markdown]


@pytest.fixture(scope="module")
def run_id() -> str:
    return make_run(default_workspace().ensure().runs, name="fresh_copy", steps=8,
                    ckpt_every=4)


def test_restore_into_a_fresh_model_shows_equal_outputs(run_id: str) -> None:
    # (English only: AppTest formats radio options outside the script run, in English)
    lang, text = "en", EN
    at = open_page("app_pages/runs.py", lang)
    at.selectbox(key="runs.detail.run").set_value(run_id).run()
    at.selectbox(key="runs.restore.ckpt").set_value(4).run()
    _button(at, "runs.restore.btn").click().run()
    _button(at, "runs.fresh.btn").click().run()
    assert_clean(at, lang)
    table = _frame_with(at, text["freshcopy.col.fresh"])
    restored, fresh = table[text["freshcopy.col.restored"]], table[text["freshcopy.col.fresh"]]
    assert len(table) == 4 * 10                          # 4 examples x 10 class outputs
    assert restored.tolist() == fresh.tolist()           # equal, number for number
    assert restored.tolist() != table[text["freshcopy.col.before"]].tolist()
    engine = fresh_copy_outputs(default_workspace().runs / run_id, 4, 4)
    assert restored.tolist() == pytest.approx(engine.restored.ravel().tolist(), abs=1e-7)
    assert text["freshcopy.equal"].format(diff="0") in [s.value for s in at.success]


def test_open_in_tensorboard_links_to_the_running_server(run_id: str) -> None:
    at = open_page("app_pages/runs.py", "en")
    at.selectbox(key="runs.detail.run").set_value(run_id).run()
    try:
        _button(at, "runs.detail.tensorboard").click().run()
        assert_clean(at, "en")
        info = running_tensorboard()
        assert info is not None and info.logdir == default_workspace().runs.resolve()
        links = at.get("link_button")
        name = board_names(info.logdir)[run_id]                # the run's name in TensorBoard
        assert name in ("fresh_copy", f"fresh_copy ({run_id})")   # (a shared name: its id)
        assert [link.proto.url for link in links] == \
            [f"{info.url}/?runFilter={quote(run_filter(name), safe='')}#timeseries"]
        assert fetch_json(f"{info.url}/data/logdir") == \
            {"logdir": str(info.logdir / ".tensorboard-runs")}
    finally:
        stop_tensorboard()
    assert running_tensorboard() is None


def test_live_panel_shows_the_number_of_devices_of_a_mirrored_run() -> None:
    """D3 on Train: the worker's ``replicas`` (num_replicas_in_sync) as "Number of devices"."""
    import shutil

    from tfcore.rundir import RunWriter

    root = default_workspace().ensure().runs
    writer = RunWriter.create(root, {"name": "mirrored_status", "spec": {}, "training": {}},
                              "mirrored-status-run")
    writer.set_status(state="stopped", replicas=2, strategy="mirrored", batch_size=50,
                      per_replica_batch=25, devices=["/device:CPU:0", "/device:CPU:1"])
    try:
        at = open_page("app_pages/train.py", "en")
        at.session_state["train.run_id"] = "mirrored-status-run"
        at.run()
        assert not at.exception
        expected = EN["train.replicas"].format(replicas=2, batch=50, per_replica=25)
        assert expected == "Number of devices: 2 · global batch 50 · per-replica batch 25"
        assert expected in [c.value for c in at.caption]
    finally:
        shutil.rmtree(root / "mirrored-status-run", ignore_errors=True)


def test_visible_gpu_choice_is_off_for_a_cluster_run_on_a_gpu_machine(monkeypatch) -> None:
    """With two GPUs (a report as a GPU machine gives it) the choice is open for a GPU
    strategy, and off with its reason for Cluster: each worker sees its own machine's.
    (English only: AppTest formats radio options outside the script run, in English.)"""
    lang = "en"
    import dataclasses

    import ui.training.form as form

    two = dataclasses.replace(describe_devices(), gpu_count=2)
    monkeypatch.setattr(form, "devices_report", lambda: two)
    text = catalog(lang)
    at = open_page("app_pages/train.py", lang)
    at.radio(key="train.device").set_value("mirrored").run()
    visible = at.multiselect(key="train.visible_gpus")
    assert not visible.disabled and visible.options == ["GPU 0", "GPU 1"]
    at.radio(key="train.device").set_value("cluster").run()
    assert not at.exception
    visible = at.multiselect(key="train.visible_gpus")
    assert visible.disabled
    assert text["devices.visible_cluster"] in [c.value for c in at.caption]
