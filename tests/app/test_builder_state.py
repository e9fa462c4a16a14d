"""The builder keeps its editor and model across pages and reloads; Load asks first."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests.app.apptest_helpers import APP, assert_clean, open_page
from tfcore.model import get_preset
from tfcore.model.drafts import draft_path
from tfcore.workspace import default_workspace

DRAFT = "builder.draft"


def _add(at: AppTest, type_name: str) -> None:
    at.selectbox(key="bld.add_type").set_value(type_name)
    at.button(key="bld.add").click().run()


def _types(at: AppTest) -> list[str]:
    return [layer.type for layer in at.session_state[DRAFT].layers]


def test_switching_to_train_and_back_keeps_the_editor_and_the_model() -> None:
    at = open_page("app_pages/builder.py", "en")
    _add(at, "Dropout")
    edited = at.session_state[DRAFT]
    assert _types(at)[-1] == "Dropout"
    at.radio(key="bld.mode").set_value("canvas").run()
    assert not at.exception, [e.value for e in at.exception]
    at.switch_page("app_pages/train.py").run()
    assert not at.exception, [e.value for e in at.exception]
    at.switch_page("app_pages/builder.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.radio(key="bld.mode").value == "canvas"
    assert at.session_state[DRAFT] == edited
    at.radio(key="bld.mode").set_value("forms").run()
    at.switch_page("app_pages/train.py").run()
    at.switch_page("app_pages/builder.py").run()
    assert at.radio(key="bld.mode").value == "forms"
    assert _types(at)[-1] == "Dropout"
    assert any("Dropout" in e.label for e in at.expander)


def test_load_with_unsaved_edits_asks_first() -> None:
    at = open_page("app_pages/builder.py", "en")
    at.selectbox(key="bld.start").set_value("tied")
    at.button(key="bld.load").click().run()         # nothing edited yet: loads at once
    assert at.session_state[DRAFT].name != "mlp" and not at.warning
    tied = at.session_state[DRAFT]
    _add(at, "Dropout")
    at.selectbox(key="bld.start").set_value("scratch")
    at.button(key="bld.load").click().run()
    assert _types(at)[-1] == "Dropout"               # not replaced yet
    assert len(at.warning) == 1 and at.button(key="bld.confirm_replace")
    assert "not saved" in at.warning[0].value
    at.button(key="bld.confirm_keep").click().run()  # keep editing: nothing changes
    assert _types(at)[-1] == "Dropout" and not at.warning
    at.button(key="bld.load").click().run()
    at.button(key="bld.confirm_replace").click().run()
    assert at.session_state[DRAFT].layers == () and not at.warning
    assert at.session_state[DRAFT] != tied
    assert_clean(at, "en")


def test_a_new_session_with_the_same_draft_param_gets_the_model_back() -> None:
    at = open_page("app_pages/builder.py", "en")
    _add(at, "Dropout")
    draft_id = at.query_params["draft"]
    draft_id = draft_id[0] if isinstance(draft_id, list) else draft_id
    assert draft_path(default_workspace().root, draft_id).is_file()
    edited = at.session_state[DRAFT]

    again = AppTest.from_file(APP, default_timeout=120)     # a reload: a new session
    again.query_params["lang"], again.query_params["draft"] = "en", draft_id
    again.run()
    again.switch_page("app_pages/builder.py").run()
    assert not again.exception, [e.value for e in again.exception]
    assert again.session_state[DRAFT] == edited
    again.selectbox(key="bld.start").set_value("scratch")
    again.button(key="bld.load").click().run()      # still unsaved after the reload: asks
    assert again.session_state[DRAFT] == edited and again.warning


def test_a_damaged_draft_is_reported_and_the_builder_starts_clean() -> None:
    draft_id = "ab" * 16
    path = draft_path(default_workspace().root, draft_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{broken", encoding="utf-8")
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["lang"], at.query_params["draft"] = "en", draft_id
    at.run()
    at.switch_page("app_pages/builder.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert [w for w in at.warning if str(path) in w.value and "cannot be read" in w.value]
    assert at.session_state[DRAFT] == get_preset("mlp")


def test_a_saved_model_is_not_unsaved_and_open_saved_asks_after_edits() -> None:
    at = open_page("app_pages/builder.py", "en")
    _add(at, "Dropout")
    at.text_input(key="bld.save_name").set_value("kept_net")
    at.button(key="bld.save").click().run()
    saved = at.session_state[DRAFT]
    at.selectbox(key="bld.start").set_value("tied")
    at.button(key="bld.load").click().run()          # saved just now: loads at once
    assert not at.warning and _types(at) != _types_of(saved)
    _add(at, "Flatten")
    at.selectbox(key="bld.saved_pick").set_value("kept_net")
    at.button(key="bld.open_saved").click().run()    # edits since the load: asks
    assert _types(at)[-1] == "Flatten" and len(at.warning) == 1
    at.button(key="bld.confirm_replace").click().run()
    assert _types(at) == _types_of(saved) and not at.warning


def _types_of(spec) -> list[str]:
    return [layer.type for layer in spec.layers]
