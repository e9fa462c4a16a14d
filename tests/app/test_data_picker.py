"""The dataset picker, driven with AppTest in both languages."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from tests.app.apptest_helpers import assert_clean
from tfcore.data.loader import DatasetRequest
from tfcore.workspace import default_workspace
from ui.common.i18n import catalog


def _script() -> None:
    import streamlit as st

    from ui.common.i18n import init_language
    from ui.data import load_with_spinner, pick_dataset

    init_language()
    request = pick_dataset("t")
    if request is not None:
        st.session_state["t.request"] = request.to_json()
        bundle = load_with_spinner(request)
        if bundle is not None:
            info = bundle.info
            st.session_state["t.sizes"] = [info.n_train, info.n_val, info.n_test]


def _open(lang: str = "en") -> AppTest:
    at = AppTest.from_function(_script, default_timeout=60)
    at.query_params["lang"] = lang
    return at.run()


def _to_lang(at: AppTest, lang: str) -> AppTest:
    """Switch language for the last run: AppTest formats option labels in the test
    process (English), so interact in English first, then look in the other language."""
    at.session_state["lang"] = lang
    return at.run()


def _request(at: AppTest) -> DatasetRequest:
    return DatasetRequest.from_dict(json.loads(at.session_state["t.request"]))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_default_is_digits28_and_loads_its_splits(lang: str) -> None:
    at = _open(lang)
    assert_clean(at, lang)
    request = _request(at)
    assert request.name == "digits28" and request.val_fraction == 0.1
    assert at.session_state["t.sizes"] == [1258, 180, 359]


def test_point_set_options_reach_the_request() -> None:
    at = _open()
    at.selectbox(key="t.name").set_value("blobs").run()
    at.slider(key="t.noise").set_value(0.3).run()
    at.slider(key="t.classes").set_value(4).run()
    request = _request(at)
    assert request.name == "blobs"
    assert request.options == {"n_samples": 400, "noise": 0.3, "classes": 4}
    assert_clean(at, "en")


def test_house_prices_shows_its_fixed_split_note() -> None:
    at = _open()
    at.selectbox(key="t.name").set_value("house_prices").run()
    _to_lang(at, "zh")
    assert _request(at).name == "house_prices"
    assert catalog("zh")["data.split.fixed"] in [c.value for c in at.caption]
    assert_clean(at, "zh")


def test_split_fractions_and_seed_reach_the_request() -> None:
    at = _open()
    at.slider(key="t.test").set_value(0.3).run()
    at.number_input(key="t.seed").set_value(5).run()
    request = _request(at)
    assert (request.test_fraction, request.seed) == (0.3, 5)
    assert at.session_state["t.sizes"][2] == round(0.3 * 1797)


def test_tfds_name_not_on_disk_shows_translated_error(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("TFDS_DATA_DIR", str(tmp_path))
    at = _open()
    at.radio(key="t.source").set_value("tfds").run()
    assert at.info and not at.error                  # asks for a name first
    at.text_input(key="t.tfds_name").input("mnist").run()
    _to_lang(at, "zh")
    assert _request(at).name == "tfds:mnist"
    assert at.error and "mnist" in at.error[0].value and "磁盘" in at.error[0].value
    assert_clean(at, "zh")


def test_uploaded_csv_target_column() -> None:
    uploads = default_workspace().ensure().uploads
    rows = "\n".join(f"{i},{'ab'[i % 2]},{i % 3}" for i in range(30))
    (uploads / "picker.csv").write_text("size,kind,label\n" + rows + "\n")
    at = _open()
    at.radio(key="t.source").set_value("upload").run()
    at.selectbox(key="t.upload_file.csv").set_value("picker.csv").run()
    request = _request(at)
    assert request.name == "upload:csv:picker.csv"
    assert request.options["target"] == "label"
    assert sum(at.session_state["t.sizes"]) == 30
    at.selectbox(key="t.target.picker.csv").set_value("kind").run()
    assert _request(at).options["target"] == "kind"
    assert_clean(at, "en")
