"""The Train page under AppTest: opens clean in both languages, starts a real run, shows
its state, and at the end its test metrics and confusion matrix; the form survives page
switches and opens from a link; a model that does not fit disables Train; after a reload the
panel attaches to the newest active run."""

from __future__ import annotations

import os
import shutil
import time

import pytest
from streamlit.testing.v1 import AppTest

from tests.app.apptest_helpers import APP, assert_clean, open_page
from tests.unit.fixtures_train import end_run
from tfcore.model import from_dict, get_preset
from tfcore.rundir import RunStore, RunWriter
from tfcore.training import jobs
from tfcore.workspace import default_workspace
from ui.common.i18n import catalog


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_train_page_opens_clean(lang: str) -> None:
    at = open_page("app_pages/train.py", lang)
    assert_clean(at, lang)
    assert at.title[0].value == catalog(lang)["train.title"]
    assert at.button(key="train.start").label == catalog(lang)["train.start"]
    # defaults: MLP preset, digits28, CPU -> one replica, global batch 50
    captions = [c.value for c in at.caption]
    expected = catalog(lang)["train.replicas"].format(replicas=1, batch=50, per_replica=50)
    assert expected in captions, captions


def test_train_page_starts_a_run_and_shows_its_state() -> None:
    at = open_page("app_pages/train.py", "en")
    at.number_input(key="train.epochs").set_value(1)
    at.button(key="train.start").click().run()
    assert_clean(at, "en")
    runs_root = default_workspace().runs
    run_id = at.session_state["train.run_id"]
    assert run_id in RunStore(runs_root).run_ids()
    states = {m.label: m.value for m in at.metric}
    assert states["State"] in ("queued", "running", "finished")
    assert jobs.wait_for(runs_root, run_id, timeout=400) == "finished"
    at.run()
    assert_clean(at, "en")
    states = {m.label: m.value for m in at.metric}
    assert states["State"] == "finished"
    assert float(states["Test Accuracy"]) > 0.5
    assert any(c.value.startswith("Checkpoints: ckpt-") for c in at.caption)
    charts = at.get("arrow_vega_lite_chart") or at.get("vega_lite_chart")
    assert len(charts) >= 3        # loss, accuracy, confusion matrix


def test_stop_and_resume_buttons_drive_the_run() -> None:
    at = open_page("app_pages/train.py", "en")
    at.number_input(key="train.epochs").set_value(300)
    at.button(key="train.start").click().run()
    runs_root = default_workspace().runs
    store = RunStore(runs_root)
    run_id = at.session_state["train.run_id"]
    deadline = time.time() + 300
    while store.get(run_id).status.step < 1 and time.time() < deadline:
        time.sleep(0.5)
    at.run()
    assert at.button(key="train.resume").disabled
    at.button(key="train.stop").click().run()
    assert_clean(at, "en")
    assert jobs.wait_for(runs_root, run_id, timeout=300) == "stopped"
    at.run()
    assert {m.label: m.value for m in at.metric}["State"] == "stopped"
    assert at.button(key="train.stop").disabled and not at.button(key="train.resume").disabled
    at.button(key="train.resume").click().run()
    assert store.get(run_id).status.state in ("queued", "running")
    assert store.get(run_id).status.extra["resumes"] == 1
    assert end_run(runs_root, run_id) in ("interrupted", "stopped")


# ------------------------------------------------------------ form state (issue 12, item 5)
def _train_page(params: dict | None = None, session: dict | None = None) -> AppTest:
    """A new session (like a reload or a new tab) opened on /train with ``params``."""
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update({"lang": "en", **(params or {})})
    for key, value in (session or {}).items():
        at.session_state[key] = value
    at.run()
    at.switch_page("app_pages/train.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _form(at: AppTest) -> dict:
    return {
        "source": at.radio(key="train.model.source").value,
        "preset": at.selectbox(key="train.model.preset").value,
        "dataset": at.selectbox(key="train.data.name").value,
        "val": at.slider(key="train.data.val").value,
        "loop": at.radio(key="train.loop").value,
        "epochs": at.number_input(key="train.epochs").value,
        "batch": at.number_input(key="train.batch_size").value,
        "optimizer": at.selectbox(key="train.optimizer").value,
        "lr": at.number_input(key="train.lr").value,
        "momentum": at.slider(key="train.momentum").value,
        "seed": at.number_input(key="train.seed").value,
        "pace": at.selectbox(key="train.pace").value,
        "device": at.radio(key="train.device").value,
        "logical": at.number_input(key="train.logical_count").value,
    }


def test_every_form_value_survives_a_page_switch() -> None:
    # the builder holds a model, so "From the builder" is the first (default) source
    at = _train_page(session={"builder.spec": get_preset("mlp")})
    assert at.radio(key="train.model.source").value == "builder"
    at.radio(key="train.model.source").set_value("preset").run()
    at.selectbox(key="train.model.preset").set_value("cnn")
    at.slider(key="train.data.val").set_value(0.15)
    at.radio(key="train.loop").set_value("custom")
    at.number_input(key="train.epochs").set_value(9)
    at.number_input(key="train.batch_size").set_value(32)
    at.selectbox(key="train.optimizer").set_value("sgd").run()
    at.number_input(key="train.lr").set_value(0.05)
    at.slider(key="train.momentum").set_value(0.9)
    at.number_input(key="train.seed").set_value(7)
    at.selectbox(key="train.pace").set_value(20)
    at.radio(key="train.device").set_value("logical").run()
    at.number_input(key="train.logical_count").set_value(3).run()
    chosen = _form(at)
    assert chosen == {"source": "preset", "preset": "cnn", "dataset": "digits28", "val": 0.15,
                      "loop": "custom", "epochs": 9, "batch": 32, "optimizer": "sgd",
                      "lr": 0.05, "momentum": 0.9, "seed": 7, "pace": 20,
                      "device": "logical", "logical": 3}
    at.switch_page("app_pages/home.py").run()
    assert "train.epochs" not in at.session_state          # Streamlit dropped the widgets
    at.switch_page("app_pages/train.py").run()
    assert not at.exception
    assert _form(at) == chosen
    assert at.query_params["preset"] == "cnn" and at.query_params["epochs"] == "9"
    assert at.query_params["pace"] == "20" and at.query_params["optimizer"] == "sgd"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_link_with_query_parameters_opens_the_form_filled(lang: str) -> None:
    at = _train_page({"lang": lang, "preset": "cnn", "epochs": "3", "optimizer": "sgd",
                      "lr": "0.01", "batch": "20", "pace": "5", "loop": "custom"})
    assert at.title[0].value == catalog(lang)["train.title"]
    assert at.selectbox(key="train.model.preset").value == "cnn"
    assert at.number_input(key="train.epochs").value == 3
    assert at.selectbox(key="train.optimizer").value == "sgd"
    assert at.number_input(key="train.lr").value == 0.01
    assert at.number_input(key="train.batch_size").value == 20
    assert at.selectbox(key="train.pace").value == 5
    assert at.radio(key="train.loop").value == "custom"
    assert not at.button(key="train.start").disabled
    assert_clean(at, lang)


def test_a_link_with_a_bad_value_says_which_parameter_was_ignored() -> None:
    at = _train_page({"epochs": "many", "preset": "no_such_model", "batch": "16"})
    assert at.number_input(key="train.epochs").value == 5             # the default stays
    assert at.selectbox(key="train.model.preset").value == "mlp"
    assert at.number_input(key="train.batch_size").value == 16
    warning = catalog("en")["train.url_ignored"].format(names="preset, epochs")
    assert warning in [w.value for w in at.warning]


def test_the_pacing_choice_reaches_the_run_request() -> None:
    at = _train_page({"pace": "20", "epochs": "1"})
    at.button(key="train.start").click().run()
    run_id = at.session_state["train.run_id"]
    record = RunStore(default_workspace().runs).get(run_id)
    assert record.request["training"]["steps_per_second"] == 20.0
    assert record.request["training"]["epochs"] == 1
    assert end_run(default_workspace().runs, run_id) in ("interrupted", "stopped", "finished")


# ------------------------------------------------------------ fit checks (issue 12, item 8)
def _two_class_mlp():
    spec = get_preset("mlp").to_dict()
    for layer in spec["layers"]:
        if layer["name"] == "logits":
            layer["config"]["units"] = 2
    return from_dict(spec)


def test_train_is_disabled_when_the_model_does_not_fit_the_dataset() -> None:
    at = _train_page()
    assert not at.button(key="train.start").disabled
    at.selectbox(key="train.data.name").set_value("circles").run()      # inputs (2,)
    assert at.button(key="train.start").disabled
    shape = catalog("en")["train.shape_mismatch"].format(model=(28, 28, 1), data=(2,))
    assert shape in [w.value for w in at.warning]
    at.selectbox(key="train.data.name").set_value("digits28").run()
    assert not at.button(key="train.start").disabled

    at = _train_page(session={"builder.spec": _two_class_mlp()})    # 2 outputs, 10 classes
    assert at.radio(key="train.model.source").value == "builder"
    assert at.button(key="train.start").disabled
    classes = catalog("en")["train.classes_mismatch"].format(outputs=2, classes=10)
    assert classes in [w.value for w in at.warning]


# ------------------------------------------------------------ run lists (issue 12, item 5)
def _fake_run(root, run_id: str, created: str, state: str) -> None:
    writer = RunWriter.create(root, {"name": run_id.split("-")[0], "created": created,
                                     "spec": {}, "training": {}}, run_id)
    writer.set_status(state=state, pid=os.getpid() if state == "running" else None)


def test_after_a_reload_the_panel_attaches_to_the_newest_active_run() -> None:
    root = default_workspace().runs
    # ids sort the other way round from their creation times
    runs = {"aaa-old-active": ("2020-01-01T10:00:00+00:00", "running"),
            "mmm-new-active": ("2020-01-02T10:00:00+00:00", "running"),
            "zzz-done": ("2020-01-01T09:00:00+00:00", "finished")}
    for run_id, (created, state) in runs.items():
        _fake_run(root, run_id, created, state)
    try:
        at = _train_page()                       # a new session, as after a reload
        watch = next(s for s in at.selectbox if s.label == catalog("en")["train.watch"])
        assert watch.value == "mmm-new-active"
        ours = [o for o in watch.options if any(r in o for r in ("aaa", "mmm", "zzz"))]
        assert [o.split(" · ")[0] for o in ours] == ["mmm", "aaa", "zzz"]   # newest first
    finally:                                     # leave no fake runs to other tests
        for run_id in runs:
            shutil.rmtree(root / run_id, ignore_errors=True)
