"""Issue 26, item 2 (engine): a page's address captured as a step; a workspace lesson's
steps reordered, duplicated, deleted and edited, each change checked by the format's own
code and written atomically; shipped lessons read-only; bad names and bad imported files
refused with located messages, nothing written."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from tests.unit.test_lessons_format import LESSON, _with
from tfcore.errors import LessonError
from tfcore.lessons import (
    SHIPPED_DIR,
    add_to_lesson,
    capture_step,
    change_lesson,
    copy_shipped,
    delete_lesson,
    delete_step,
    duplicate_step,
    edit_step,
    export_lesson,
    find_lesson,
    import_lesson,
    lesson_exists,
    lessons_dir,
    move_step,
    own_lesson,
    parse_lesson,
    read_lesson,
    reorder_steps,
    suggest_name,
)
from tfcore.workspace import Workspace

TRAIN_QUERY = {"lesson": "handbook", "step": "5", "lang": "zh", "present": "1",
               "pair": "abc", "notes": "1", "preset": "mlp", "dataset": "digits28",
               "optimizer": "sgd", "lr": "0.01", "epochs": "3", "eager": "true"}
PAGE_TITLE = {"en": "Train a model", "zh": "训练模型"}


def _ws(tmp_path: Path) -> Workspace:
    return Workspace(tmp_path / "ws")


def _lesson(tmp_path: Path, name: str = "mine", data: dict = LESSON) -> Workspace:
    ws = _ws(tmp_path)
    folder = lessons_dir(ws)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.json").write_text(json.dumps(data), encoding="utf-8")
    return ws


def _titles(lesson) -> list[str]:
    return [step.title["en"] for step in lesson.steps]


def _numbered(count: int) -> dict:
    """LESSON with ``count`` Train steps titled S1, S2, ... (步1, 步2, ...)."""
    steps = [{**LESSON["steps"][0], "title": {"en": f"S{k}", "zh": f"步{k}"}}
             for k in range(1, count + 1)]
    return {**LESSON, "steps": steps}


def test_a_train_address_is_captured_whole_without_the_apps_own_parameters() -> None:
    capture = capture_step("train", TRAIN_QUERY, PAGE_TITLE)
    step = capture.step
    assert step.page == "train" and step.tab is None
    assert dict(step.query) == {"preset": "mlp", "dataset": "digits28", "optimizer": "sgd",
                                "lr": "0.01", "epochs": "3", "eager": "true"}
    assert dict(step.title) == PAGE_TITLE
    assert dict(step.notes) == {"en": "", "zh": ""} == dict(step.prompt)
    assert capture.dropped == ()


def test_a_tab_becomes_the_steps_tab_and_what_the_page_does_not_read_is_named() -> None:
    capture = capture_step("builder", {"preset": "b1_mlp", "tab": "code", "draft": "x1",
                                       "lang": "en"}, PAGE_TITLE)
    assert capture.step.tab == "code" and dict(capture.step.query) == {"preset": "b1_mlp"}
    assert capture.dropped == ("draft",)
    other = capture_step("tensors", {"tab": "nope", "Bad Name": "1"}, PAGE_TITLE)
    assert other.step.tab is None and other.step.query == {}
    assert other.dropped == ("Bad Name", "tab")
    assert other.step.link() == {}


def test_a_capture_that_breaks_the_format_is_located() -> None:
    with pytest.raises(LessonError) as caught:
        capture_step("train", {"preset": "mlp"}, {"en": "", "zh": "训练"})
    assert caught.value.key == "lessons.err.capture"
    (problem,) = caught.value.details
    assert str(problem) == "capture: step 1: title.en: is empty"
    with pytest.raises(LessonError) as unknown:
        capture_step("trian", {}, PAGE_TITLE)
    assert unknown.value.key == "lessons.err.page" and "trian" in str(unknown.value)


def test_capture_into_a_new_lesson_and_more_round_trips_through_the_file(
        tmp_path: Path) -> None:
    ws = _ws(tmp_path)
    first = capture_step("train", TRAIN_QUERY, PAGE_TITLE).step
    second = capture_step("tensors", {"tab": "tape"}, {"en": "Tensors", "zh": "张量"}).step
    made = add_to_lesson(ws, "class_1", first)
    assert made.title == {"en": "class_1", "zh": "class_1"} and made.steps == (first,)
    grown = add_to_lesson(ws, "class_1", second)
    assert grown.steps == (first, second)
    with pytest.raises(LessonError) as taken:
        add_to_lesson(ws, "class_1", second, new=True)      # "a new lesson" named like one
    assert taken.value.key == "lessons.err.exists"
    entry = find_lesson(ws, "class_1")
    assert entry.origin == "workspace" and entry.lesson == grown
    on_disk = json.loads((lessons_dir(ws) / "class_1.json").read_text(encoding="utf-8"))
    assert on_disk["steps"][1] == {"page": "tensors", "tab": "tape", "query": {},
                                   "title": {"en": "Tensors", "zh": "张量"},
                                   "notes": {"en": "", "zh": ""},
                                   "prompt": {"en": "", "zh": ""}}
    assert parse_lesson("class_1", on_disk)[0] == grown
    assert not list(lessons_dir(ws).glob(".*.tmp"))           # written atomically


@pytest.mark.parametrize("name", ["My Lesson", "", "-x", "a" * 65, "../escape", "x.json"])
def test_a_bad_name_is_refused_and_nothing_is_written(tmp_path: Path, name: str) -> None:
    ws = _ws(tmp_path)
    step = capture_step("home", {}, PAGE_TITLE).step
    with pytest.raises(LessonError) as caught:
        add_to_lesson(ws, name, step)
    assert caught.value.key == "lessons.err.name"
    assert str(caught.value).startswith("Lesson name: " + repr(name[:64]))
    assert caught.value.text("zh").startswith("课程名称：" + repr(name[:64]))
    assert not lessons_dir(ws).exists()


def test_a_shipped_lesson_is_read_only_until_copied(tmp_path: Path) -> None:
    ws = _ws(tmp_path)
    step = capture_step("home", {}, PAGE_TITLE).step
    for change in (lambda: add_to_lesson(ws, "handbook", step),
                   lambda: own_lesson(ws, "handbook"),
                   lambda: delete_lesson(ws, "handbook")):
        with pytest.raises(LessonError) as caught:
            change()
        assert caught.value.key == "lessons.err.shipped"
        assert "copy it into your workspace first" in str(caught.value)
    assert not lessons_dir(ws).exists()
    copy = copy_shipped(ws, "handbook")
    assert copy == read_lesson(SHIPPED_DIR / "handbook.json").lesson
    assert lesson_exists(ws, "handbook") == "workspace"
    grown = add_to_lesson(ws, "handbook", step)
    assert len(grown.steps) == len(copy.steps) + 1
    with pytest.raises(LessonError) as again:
        copy_shipped(ws, "handbook")                    # never overwrites the copy
    assert again.value.key == "lessons.err.exists"
    assert len(find_lesson(ws, "handbook").lesson.steps) == len(copy.steps) + 1
    delete_lesson(ws, "handbook")                       # the shipped one shows again
    assert find_lesson(ws, "handbook").origin == "shipped"


def test_move_reorder_duplicate_delete_and_edit(tmp_path: Path) -> None:
    ws = _lesson(tmp_path, data=_numbered(4))
    lesson = own_lesson(ws, "mine")
    assert _titles(move_step(lesson, 1, 3)) == ["S2", "S3", "S1", "S4"]
    assert _titles(move_step(lesson, 4, 1)) == ["S4", "S1", "S2", "S3"]
    assert _titles(reorder_steps(lesson, [3, 1, 4, 2])) == ["S3", "S1", "S4", "S2"]
    assert _titles(duplicate_step(lesson, 2)) == ["S1", "S2", "S2", "S3", "S4"]
    assert _titles(delete_step(lesson, 3)) == ["S1", "S2", "S4"]
    edited = edit_step(lesson, 2, notes={"en": "Say this", "zh": "这样讲"},
                       prompt={"en": "Why?", "zh": "为什么？"})
    assert edited.steps[1].notes == {"en": "Say this", "zh": "这样讲"}
    assert edited.steps[1].title == lesson.steps[1].title
    assert edited.steps[1].query == lesson.steps[1].query
    saved = change_lesson(ws, "mine", lambda ls: reorder_steps(ls, [4, 3, 2, 1]))
    assert _titles(saved) == ["S4", "S3", "S2", "S1"]
    assert _titles(find_lesson(ws, "mine").lesson) == ["S4", "S3", "S2", "S1"]


@pytest.mark.parametrize("change, key", [
    (lambda ls: move_step(ls, 0, 1), "lessons.err.no_step"),
    (lambda ls: move_step(ls, 1, 5), "lessons.err.no_step"),
    (lambda ls: duplicate_step(ls, 9), "lessons.err.no_step"),
    (lambda ls: reorder_steps(ls, [1, 1, 2, 3]), "lessons.err.order"),
    (lambda ls: reorder_steps(ls, [1, 2, 3]), "lessons.err.order"),
    (lambda ls: edit_step(ls, 2, title={"en": " ", "zh": "标题"}), "lessons.err.invalid"),
    (lambda ls: edit_step(ls, 2, notes={"en": "x" * 4001, "zh": ""}), "lessons.err.invalid"),
    (lambda ls: replace(ls, steps=ls.steps * 51), "lessons.err.invalid"),   # 204 > 200
])
def test_a_bad_change_writes_nothing(tmp_path: Path, change, key: str) -> None:
    ws = _lesson(tmp_path, data=_numbered(4))
    path = lessons_dir(ws) / "mine.json"
    before = path.read_bytes()
    with pytest.raises(LessonError) as caught:
        change_lesson(ws, "mine", change)
    assert caught.value.key == key
    assert path.read_bytes() == before


def test_an_edit_with_a_problem_is_located() -> None:
    lesson, _ = parse_lesson("mine", _numbered(3))
    with pytest.raises(LessonError) as caught:
        export_lesson(edit_step(lesson, 2, title={"en": "T", "zh": "  "}))
    assert [str(p) for p in caught.value.details] == ["mine.json: step 2: title.zh: is empty"]
    assert caught.value.details[0].text("zh") == "mine.json: 第 2 步: title.zh：内容为空"


def test_the_only_step_cannot_be_deleted(tmp_path: Path) -> None:
    ws = _lesson(tmp_path, data=_numbered(1))
    with pytest.raises(LessonError) as caught:
        change_lesson(ws, "mine", lambda ls: delete_step(ls, 1))
    assert caught.value.key == "lessons.err.last_step"
    assert len(own_lesson(ws, "mine").steps) == 1


def test_a_damaged_workspace_lesson_is_not_changed(tmp_path: Path) -> None:
    ws = _lesson(tmp_path, data=_with(2, page="trian"))
    step = capture_step("home", {}, PAGE_TITLE).step
    with pytest.raises(LessonError) as caught:
        add_to_lesson(ws, "mine", step)
    assert caught.value.key == "lessons.err.damaged"
    assert "step 2: page" in str(caught.value.details[0])


def test_export_and_import_round_trip(tmp_path: Path) -> None:
    ws = _lesson(tmp_path, data=_numbered(3))
    raw = export_lesson(own_lesson(ws, "mine"))
    assert json.loads(raw) == parse_lesson("mine", _numbered(3))[0].to_dict()
    again = import_lesson(ws, "yours", raw, "mine.json")
    assert again.steps == own_lesson(ws, "mine").steps
    assert lesson_exists(ws, "yours") == "workspace" and lesson_exists(ws, "nope") is None


def test_an_import_never_overwrites_silently(tmp_path: Path) -> None:
    ws = _lesson(tmp_path, data=_numbered(3))
    path = lessons_dir(ws) / "mine.json"
    before = path.read_bytes()
    raw = json.dumps(_numbered(1)).encode()
    with pytest.raises(LessonError) as caught:
        import_lesson(ws, "mine", raw, "other.json")
    assert caught.value.key == "lessons.err.exists" and path.read_bytes() == before
    replaced = import_lesson(ws, "mine", raw, "other.json", replace_own=True)
    assert _titles(replaced) == ["S1"] and _titles(own_lesson(ws, "mine")) == ["S1"]


@pytest.mark.parametrize("raw, expected", [
    (b'{"format": 1, "ti', ["bad.json: is not valid JSON (line 1, column 15)"]),
    (b"\xff\xfe", ["bad.json: cannot be read (not UTF-8 text)"]),
    (b"[1]", ["bad.json: <list of 1> is not a JSON object"]),
    (json.dumps(_with(format=2)).encode(),
     ["bad.json: format: 2 is newer than this TF Lab understands (1)"]),
    (json.dumps(_with(2, page="trian", title=None)).encode(),
     ["bad.json: step 2: page: 'trian' is not one of home, lessons, tensors, pipeline, "
      "placement, builder, weights, custom_code, train, runs, timing",
      "bad.json: step 2: title: is missing"]),
    (b" " * 1_000_001, ["bad.json: 1000001 bytes, larger than the 1000000 a lesson file "
                        "may have"]),
])
def test_a_bad_file_is_not_imported_and_every_problem_is_located(
        tmp_path: Path, raw: bytes, expected: list[str]) -> None:
    ws = _ws(tmp_path)
    with pytest.raises(LessonError) as caught:
        import_lesson(ws, "bad", raw, "bad.json")
    assert caught.value.key == "lessons.err.import"
    assert [str(p) for p in caught.value.details] == expected
    assert caught.value.params["count"] == len(expected)
    assert not (lessons_dir(ws) / "bad.json").exists()


@pytest.mark.parametrize("file, name", [("My Lesson.json", "my_lesson"),
                                        ("handbook.json", "handbook"),
                                        ("课程.json", "lesson"), ("a.b.json", "a_b")])
def test_an_uploaded_files_name_suggests_a_lesson_name(file: str, name: str) -> None:
    assert suggest_name(file) == name


def test_a_reorder_of_same_size_is_read_again(tmp_path: Path) -> None:
    ws = _lesson(tmp_path, data=_numbered(2))
    for _ in range(5):                     # same size each time, within one clock tick
        first = _titles(own_lesson(ws, "mine"))
        change_lesson(ws, "mine", lambda ls: reorder_steps(ls, [2, 1]))
        assert _titles(own_lesson(ws, "mine")) == first[::-1]
