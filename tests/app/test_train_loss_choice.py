"""The Train page and the loss the last layer's output needs (issue 23, item 5): a one-line
note when the run will use the matching loss, a refusal with a button that applies the fix;
and runs named after the model or the name typed before Start (item 6), in the Runs table."""

from __future__ import annotations

from dataclasses import replace

import pytest
from streamlit.testing.v1 import AppTest

from tests.app.apptest_helpers import assert_clean, open_page
from tfcore.model import from_dict, get_preset
from tfcore.model import store as models_store
from tfcore.rundir import RunStore
from tfcore.training import jobs
from tfcore.workspace import default_workspace
from ui.common.i18n import catalog

LOGITS = "sparse_categorical_crossentropy_logits"


def _lesson_net(name: str = "lesson_net"):
    """784 -> 100 relu -> 10 with a linear output: the mlp preset without its softmax."""
    spec = get_preset("mlp")
    return replace(spec, name=name, layers=spec.layers[:-1])


def _sigmoid_net():
    spec = get_preset("mlp").to_dict()
    spec["name"] = "sigmoid_net"
    spec["layers"] = [*spec["layers"][:-2], {"name": "out", "type": "Dense",
                                              "config": {"units": 10, "activation": "sigmoid"}}]
    return from_dict(spec)


def _train_page(lang: str, spec) -> AppTest:
    at = open_page("app_pages/train.py", lang, state={"builder.spec": spec})
    assert not at.exception, [e.value for e in at.exception]
    assert at.radio(key="train.model.source").value == "builder"
    return at


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_linear_last_layer_gets_the_logits_loss_and_a_one_line_note(lang: str) -> None:
    text = catalog(lang)
    at = _train_page(lang, _lesson_net())
    assert_clean(at, lang)
    note = text["train.output_switched.logits"].format(
        layer="logits", output=text["train.output.logits"], loss=LOGITS)
    assert [i.value for i in at.info].count(note) == 1
    assert not at.button(key="train.start").disabled
    at = _train_page(lang, get_preset("mlp"))             # softmax + the default loss: no note
    assert not [i for i in at.info if "logits" in i.value]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_refusal_shows_a_button_that_applies_the_fix(lang: str) -> None:
    text = catalog(lang)
    at = _train_page(lang, _sigmoid_net())
    assert at.button(key="train.start").disabled
    refusal = text["train.output_refused"].format(
        layer="out", output=text["train.output.sigmoid"], units=10,
        asked="sparse_categorical_crossentropy", fix="softmax")
    assert refusal in [w.value for w in at.warning]
    fix = at.button(key="train.output_fix")
    assert fix.label == text["train.output_fix"].format(layer="out", fix="softmax")
    if lang == "zh":        # AppTest formats translated radios in English on a rerun
        return
    fix.click().run()
    assert not at.exception
    assert not at.button(key="train.start").disabled
    assert refusal not in [w.value for w in at.warning]
    assert text["train.output_fixed"].format(layer="out", fix="softmax") in \
        [c.value for c in at.caption]
    assert_clean(at, lang)


def test_runs_are_named_after_the_model_and_listed_so(monkeypatch) -> None:
    monkeypatch.setattr(jobs, "reconcile", lambda root, exclude_pid=None: None)  # no worker
    ws = default_workspace().ensure()
    models_store.save_spec(ws, "lesson_net", _lesson_net("my_model"))  # built, saved
    at = _train_page("en", get_preset("mlp"))
    at.radio(key="train.model.source").set_value("saved").run()
    at.selectbox(key="train.model.saved").set_value("lesson_net").run()
    assert at.text_input(key="train.run_name").placeholder == "lesson_net"
    at.button(key="train.start").click().run()
    at.button(key="train.start").click().run()
    at.text_input(key="train.run_name").set_value("wider").run()
    at.button(key="train.start").click().run()
    assert not at.exception, [e.value for e in at.exception]
    records = RunStore(ws.runs).list()
    assert sorted(r.name for r in records) == ["lesson_net", "lesson_net 2", "wider"]
    assert all(r.request["training"]["loss"] == LOGITS for r in records)
    assert all(r.request["loss_choice"]["automatic"] for r in records)
    runs = open_page("app_pages/runs.py", "en")
    table = next(d.value for d in runs.dataframe if "Name" in d.value.columns)
    assert sorted(table["Name"]) == ["lesson_net", "lesson_net 2", "wider"]
