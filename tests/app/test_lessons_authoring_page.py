"""Issue 26, item 2 (pages): "Add this view to a lesson" in the sidebar of any page captures
the page and its address as a step (Train, Tensors, Builder); the Lessons page edits a
workspace lesson's steps (texts, Up / Down, duplicate, delete with confirm), exports its file
and imports one, with located messages for bad input and nothing written then."""

from __future__ import annotations

import json

import pytest

from tests.app.apptest_helpers import assert_clean, open_page
from tests.unit.test_lessons_authoring import _numbered
from tests.unit.test_lessons_format import LESSON
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

from tfcore.lessons import SHIPPED_DIR, find_lesson, lessons_dir, parse_lesson, read_lesson
from tfcore.workspace import default_workspace
from ui.common.i18n import catalog

HANDBOOK = read_lesson(SHIPPED_DIR / "handbook.json").lesson


def _own(data: dict = LESSON, name: str = "mine") -> None:
    folder = lessons_dir(default_workspace())
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.json").write_text(json.dumps(data), encoding="utf-8")


def _file(name: str = "mine") -> dict:
    return json.loads((lessons_dir(default_workspace()) / f"{name}.json").read_text("utf-8"))


def _titles(name: str = "mine") -> list[str]:
    return [step["title"]["en"] for step in _file(name)["steps"]]


def _add(at, lesson: str = "", name: str | None = None, copy: bool | None = None):
    """Use the sidebar's popover: choose ``lesson`` ("" = a new one named ``name``)."""
    at.selectbox(key="lessons.add.lesson").set_value(lesson).run()
    if name is not None:
        at.text_input(key="lessons.add.name").set_value(name).run()
    if copy is not None:
        at.checkbox(key="lessons.add.copy").set_value(copy).run()
    at.button(key="lessons.add.go").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_train_captures_its_whole_form_into_a_new_lesson() -> None:
    lang = "en"        # AppTest formats the Train page's choices in English only
    at = open_page("app_pages/train.py", lang)
    at.selectbox(key="train.optimizer").set_value("sgd").run()
    at.number_input(key="train.epochs").set_value(7).run()
    address = {k: v for k, v in at.query_params.items() if k != "lang"}
    assert address["optimizer"] == "sgd" and address["epochs"] == "7"
    _add(at, name="class_1")
    words = catalog(lang)
    (message,) = [s.value for s in at.success]
    assert message.startswith(words["lessons.add.added"].split("{")[0])
    step = _file("class_1")["steps"][0]
    assert step == {"page": "train", "tab": None, "query": address,
                    "title": {"en": catalog("en")["nav.train"],
                              "zh": catalog("zh")["nav.train"]},
                    "notes": {"en": "", "zh": ""}, "prompt": {"en": "", "zh": ""}}
    assert_clean(at, lang)
    at.button(key="lessons.add.go").click().run()       # again: step 2 of the same lesson
    assert len(_file("class_1")["steps"]) == 1           # the choice is still "new"...
    assert [e.value for e in at.error][0].startswith(       # ...and class_1 exists: refused
        catalog(lang)["lessons.err.exists"].split("{")[0])
    _add(at, lesson="class_1")
    assert len(_file("class_1")["steps"]) == 2


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_tab_is_captured_and_what_a_page_does_not_read_is_named(lang: str) -> None:
    at = open_page("app_pages/tensors.py", lang)
    at.query_params["tab"] = "tape"
    at.run()
    _add(at, name="t")
    assert _file("t")["steps"][0]["page"] == "tensors"
    assert _file("t")["steps"][0]["tab"] == "tape"
    at = open_page("app_pages/builder.py", lang)
    assert "draft" in at.query_params                    # the session's draft, not a link
    _add(at, lesson="t")
    step = _file("t")["steps"][1]
    assert step["page"] == "builder" and step["query"] == {}
    (message,) = [s.value for s in at.success]
    assert catalog(lang)["lessons.add.dropped"].format(names="draft") in message
    assert _file("t")["steps"][1]["title"] == {"en": catalog("en")["nav.builder"],
                                               "zh": catalog("zh")["nav.builder"]}
    assert_clean(at, lang)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("name", ["My Lesson", "../up", ""])
def test_a_bad_name_is_located_and_nothing_is_written(lang: str, name: str) -> None:
    at = open_page("app_pages/home.py", lang)
    _add(at, name=name)
    (error,) = [e.value for e in at.error]
    assert error.startswith(catalog(lang)["lessons.err.name"].split("{")[0])
    assert not lessons_dir(default_workspace()).exists()


def test_a_shipped_lesson_is_copied_first_or_refused() -> None:
    at = open_page("app_pages/home.py")
    _add(at, lesson="handbook")
    (error,) = [e.value for e in at.error]
    assert "handbook" in error and "read-only" in error
    assert not lessons_dir(default_workspace()).exists()
    _add(at, lesson="handbook", copy=True)
    copy = find_lesson(default_workspace(), "handbook")
    assert copy.origin == "workspace" and len(copy.lesson.steps) == len(HANDBOOK.steps) + 1
    assert copy.lesson.steps[:-1] == HANDBOOK.steps and copy.lesson.steps[-1].page == "home"


def _lessons_page(lang: str = "en"):
    at = open_page("app_pages/lessons.py", lang)
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_edit_a_steps_texts_and_a_blank_title_is_located(lang: str) -> None:
    _own()
    at = _lessons_page(lang)
    assert at.selectbox(key="lessons.edit.lesson").value == "mine"
    assert_clean(at, lang)
    fields = {f"{field}.{lg}": box for box in [*at.text_input, *at.text_area]
              for field in ("title", "notes", "prompt") for lg in ("en", "zh")
              if box.key.endswith(f".2.{field}.{lg}")}
    fields["notes.en"].set_value("Ask what the tape records.")
    fields["prompt.zh"].set_value("磁带记录了什么？")
    at.button(key="lessons.step.2.save").click().run()
    step = _file()["steps"][1]
    assert step["notes"] == {"en": "Ask what the tape records.", "zh": "你好"}
    assert step["prompt"] == {"en": "Hello", "zh": "磁带记录了什么？"}
    assert [s.value for s in at.success] == [catalog(lang)["lessons.edit.saved"].format(k=2)]
    before = _file()
    title = [b for b in at.text_input if b.key.endswith(".1.title.en")][0]
    title.set_value("   ")
    at.button(key="lessons.step.1.save").click().run()
    (error,) = [e.value for e in at.error]
    step = "step 1" if lang == "en" else "第 1 步"
    assert f"mine.json: {step}: title.en" in error
    assert _file() == before


def test_up_down_duplicate_and_delete_with_confirm() -> None:
    _own(_numbered(3))
    at = _lessons_page()
    at.button(key="lessons.step.1.down").click().run()
    assert _titles() == ["S2", "S1", "S3"]
    at.button(key="lessons.step.3.up").click().run()
    assert _titles() == ["S2", "S3", "S1"]
    assert at.button(key="lessons.step.1.up").disabled
    assert at.button(key="lessons.step.3.down").disabled
    at.button(key="lessons.step.2.duplicate").click().run()
    assert _titles() == ["S2", "S3", "S3", "S1"]
    at.button(key="lessons.step.1.delete").click().run()     # the popover's confirm
    assert _titles() == ["S3", "S3", "S1"]
    assert [s.value for s in at.success] == [
        catalog("en")["lessons.edit.deleted"].format(k=1)]
    expander_labels = [e.label.replace("\\", "") for e in at.expander]
    assert [label for label in expander_labels if label.startswith(("1.", "2.", "3."))][:3] \
        == [f"{k}. {t} · {catalog('en')['nav.train']}" for k, t in
            ((1, "S3"), (2, "S3"), (3, "S1"))]


def test_the_only_step_cannot_be_deleted() -> None:
    _own(_numbered(1))
    at = _lessons_page()
    at.button(key="lessons.step.1.delete").click().run()
    assert [e.value for e in at.error][0].startswith(
        catalog("en")["lessons.err.last_step"].split("{")[0])
    assert _titles() == ["S1"]


def test_open_a_step_starts_the_lesson_there() -> None:
    _own()
    at = _lessons_page()
    at.button(key="lessons.step.2.open").click().run()
    assert (at.query_params["lesson"], at.query_params["step"], at.query_params["tab"]) \
        == ("mine", "2", "tape")
    assert at.title[0].value == catalog("en")["foundations.tensors.title"]


def test_a_shipped_lesson_is_read_only_until_copied_on_the_page() -> None:
    at = _lessons_page()
    assert at.selectbox(key="lessons.edit.lesson").value == "builders_guide"
    assert not [b for b in at.button if b.key.startswith("lessons.step.")]
    at.button(key="lessons.edit.copy").click().run()
    assert find_lesson(default_workspace(), "builders_guide").origin == "workspace"
    assert at.button(key="lessons.step.1.up").disabled      # now editable


def test_export_gives_the_checked_file(monkeypatch: pytest.MonkeyPatch) -> None:
    _own(_numbered(2))
    served: dict[str, bytes] = {}
    load = MemoryMediaFileStorage.load_and_get_id

    def keep(self, path_or_data, mimetype, kind, filename=None):
        if filename is not None:
            served[filename] = path_or_data
        return load(self, path_or_data, mimetype, kind, filename)

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", keep)
    at = _lessons_page()
    (button,) = at.download_button
    assert button.label == catalog("en")["lessons.edit.export"]
    exported, problems = parse_lesson("mine", json.loads(served["mine.json"]))
    assert problems == () and exported == parse_lesson("mine", _file())[0]
    assert json.loads(served["mine.json"])["steps"][0]["query"]["epochs"] == "3"


def _upload(at, data: bytes, file: str = "theirs.json"):
    at.file_uploader(key="lessons.import.file").set_value((file, data, "application/json"))
    at.run()
    return at


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_import_a_file_and_never_overwrite_silently(lang: str) -> None:
    _own(_numbered(2))
    at = _lessons_page(lang)
    _upload(at, json.dumps(_numbered(3)).encode(), "Their Lesson.json")
    name_box = [b for b in at.text_input if b.key.startswith("lessons.import.name.")][0]
    assert name_box.value == "their_lesson"
    at.button(key="lessons.import.go").click().run()
    assert _titles("their_lesson") == ["S1", "S2", "S3"]
    assert at.selectbox(key="lessons.edit.lesson").value == "their_lesson"
    assert_clean(at, lang)
    _upload(at, json.dumps(_numbered(1)).encode(), "mine.json")
    at.button(key="lessons.import.go").click().run()
    (error,) = [e.value for e in at.error]
    assert error.startswith(catalog(lang)["lessons.err.exists"].split("{")[0])
    assert _titles() == ["S1", "S2"]                            # unchanged
    [box for box in at.checkbox if box.key.startswith("lessons.import.replace.")][0].check()
    at.run()
    at.button(key="lessons.import.go").click().run()
    assert _titles() == ["S1"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_bad_file_is_not_imported_and_its_problems_are_located(lang: str) -> None:
    at = _lessons_page(lang)
    bad = {**_numbered(2)}
    bad["steps"] = [dict(bad["steps"][0]), {**bad["steps"][1], "page": "trian", "promt": "x"}]
    _upload(at, json.dumps(bad).encode(), "bad.json")
    at.button(key="lessons.import.go").click().run()
    (error,) = [e.value for e in at.error]
    step = "step 2" if lang == "en" else "第 2 步"
    assert f"bad.json: {step}: page" in error and f"bad.json: {step}: promt" in error
    assert not (lessons_dir(default_workspace()) / "bad.json").exists()
    _upload(at, b'{"format": 1,', "torn.json")
    at.button(key="lessons.import.go").click().run()
    (error,) = [e.value for e in at.error]
    assert "torn.json" in error
    assert not (lessons_dir(default_workspace()) / "torn.json").exists()
