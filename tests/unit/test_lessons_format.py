"""Issue 26, item 1: a lesson file is versioned and checked on read; every problem is
located (file, step from 1, field) and worded in both languages; a damaged lesson is listed
with its problem and breaks no other lesson."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path

import pytest

from tfcore.errors import LessonError
from tfcore.lessons import (
    LESSON_FORMAT,
    PAGES,
    SHIPPED_DIR,
    find_lesson,
    list_lessons,
    parse_lesson,
    read_lesson,
)
from tfcore.messages import catalog
from tfcore.workspace import Workspace

TEXT = {"en": "Hello", "zh": "你好"}
STEP = {"page": "train", "query": {"preset": "mlp", "epochs": 3, "lr": 0.001,
                                   "eager": True},
        "title": TEXT, "notes": TEXT, "prompt": TEXT}
LESSON = {"format": 1, "title": TEXT, "steps": [STEP, {**STEP, "page": "tensors",
                                                       "query": {}, "tab": "tape"}]}


def _problems(data, name: str = "demo") -> list[tuple]:
    lesson, problems = parse_lesson(name, data)
    assert (lesson is None) == bool(problems)
    return [(p.step, p.field, p.reason, p.limit if p.reason == "type" else "")
            for p in problems]


def _with(step: int | None = None, **fields) -> dict:
    """LESSON with ``fields`` set (``None`` removes one) on the lesson or on step ``step``."""
    data = copy.deepcopy(LESSON)
    target = data if step is None else data["steps"][step - 1]
    for name, value in fields.items():
        if value is None:
            target.pop(name, None)
        else:
            target[name] = value
    return data


def test_a_sound_lesson_reads_and_round_trips() -> None:
    lesson, problems = parse_lesson("demo", LESSON)
    assert problems == ()
    assert [s.page for s in lesson.steps] == ["train", "tensors"]
    assert lesson.steps[0].query == {"preset": "mlp", "epochs": "3", "lr": "0.001",
                                     "eager": "true"}
    assert lesson.steps[1].link() == {"tab": "tape"}
    again, problems = parse_lesson("demo", json.loads(json.dumps(lesson.to_dict())))
    assert problems == () and again == lesson
    assert lesson.to_dict()["format"] == LESSON_FORMAT


@pytest.mark.parametrize("data, expected", [
    ([1, 2], [(None, "", "not_object", "")]),
    (_with(format=None), [(None, "format", "missing", "")]),
    (_with(format="1"), [(None, "format", "type", "int")]),
    (_with(format=True), [(None, "format", "type", "int")]),
    (_with(format=LESSON_FORMAT + 1), [(None, "format", "newer", "")]),
    (_with(format=0), [(None, "format", "low", "")]),
    (_with(title=None), [(None, "title", "missing", "")]),
    (_with(title="Hello"), [(None, "title", "type", "texts")]),
    (_with(title={"en": "Hello"}), [(None, "title.zh", "missing", "")]),
    (_with(title={"en": "Hello", "zh": 3}), [(None, "title.zh", "type", "string")]),
    (_with(title={"en": " ", "zh": "你好"}), [(None, "title.en", "blank", "")]),
    (_with(title={"en": "x" * 201, "zh": "你好"}), [(None, "title.en", "long", "")]),
    (_with(title={**TEXT, "fr": "Salut"}), [(None, "title.fr", "unknown", "")]),
    (_with(description=[1]), [(None, "description", "type", "texts")]),
    (_with(colour="red"), [(None, "colour", "unknown", "")]),
    (_with(steps=None), [(None, "steps", "missing", "")]),
    (_with(steps={"page": "train"}), [(None, "steps", "type", "list")]),
    (_with(steps=[]), [(None, "steps", "empty", "")]),
    (_with(steps=[STEP] * 201), [(None, "steps", "many", "")]),
    (_with(steps=[STEP, "tensors"]), [(2, "", "not_object", "")]),
    (_with(2, page=None), [(2, "page", "missing", "")]),
    (_with(2, page=7), [(2, "page", "type", "string")]),
    (_with(2, page="trian"), [(2, "page", "choice", "")]),
    (_with(2, tab=["tape"]), [(2, "tab", "type", "string")]),
    (_with(2, tab="graph"), [(2, "tab", "choice", "")]),
    (_with(1, tab="tape"), [(1, "tab", "no_tabs", "")]),
    (_with(1, query=["preset"]), [(1, "query", "type", "object")]),
    (_with(1, query={"Epochs": 3}), [(1, "query.Epochs", "param_name", "")]),
    (_with(1, query={"lesson": "x"}), [(1, "query.lesson", "reserved", "")]),
    (_with(1, query={"tab": "tape"}), [(1, "query.tab", "reserved", "")]),
    (_with(1, query={"epochs": None}), [(1, "query.epochs", "type", "value")]),
    (_with(1, query={"epochs": [3]}), [(1, "query.epochs", "type", "value")]),
    (_with(1, query={"lr": float("nan")}), [(1, "query.lr", "type", "value")]),
    (_with(1, query={"name": "x" * 401}), [(1, "query.name", "long", "")]),
    (_with(2, query={"preset": "mlp"}), [(2, "query.preset", "param", "")]),
    (_with(1, prompt=None), [(1, "prompt", "missing", "")]),
    (_with(1, notes={"en": "x" * 4001, "zh": "好"}), [(1, "notes.en", "long", "")]),
    (_with(1, title={"zh": "你好"}), [(1, "title.en", "missing", "")]),
    (_with(1, pgae="train"), [(1, "pgae", "unknown", "")]),
])
def test_every_problem_is_located(data, expected) -> None:
    assert _problems(data) == expected


def test_all_problems_come_at_once_and_a_newer_format_stops_reading() -> None:
    data = _with(2, page="trian", title=None)
    data["steps"][0]["query"] = {"lesson": "x"}
    assert [p[:3] for p in _problems(data)] == [
        (1, "query.lesson", "reserved"), (2, "page", "choice"), (2, "title", "missing")]
    # a newer format's fields may mean other things: only the version is reported
    assert _problems(_with(format=2, steps="whatever")) == [(None, "format", "newer", "")]


def test_a_bad_name_is_located() -> None:
    assert _problems(LESSON, name="My Lesson") == [(None, "", "name", "")]


def test_messages_name_the_file_the_step_and_the_field_in_both_languages() -> None:
    _, (problem,) = parse_lesson("demo", _with(2, page="trian"))
    assert str(problem) == ("demo.json: step 2: page: 'trian' is not one of "
                            + ", ".join(PAGES))
    assert problem.text("zh").startswith("demo.json: 第 2 步: page：'trian' 不在可选值")
    _, (problem,) = parse_lesson("demo", _with(format=9))
    assert str(problem) == "demo.json: format: 9 is newer than this TF Lab understands (1)"
    for lang in ("en", "zh"):            # every reason has a text in both catalogs
        keys = [k for k in catalog(lang) if k.startswith("lessons.problem.")]
        assert len(keys) >= 29


@pytest.mark.parametrize("content, reason", [
    (b'{"format": 1,', "json_at"), (b"\xff\xfe{}", "binary"), (b"[" * 100_000, "deep"),
    (b'{"format": 1' + b"1" * 5000 + b"}", "json"), (b" " * 1_000_001, "big"),
])
def test_a_file_that_cannot_be_read_is_located(tmp_path: Path, content: bytes,
                                               reason: str) -> None:
    path = tmp_path / "broken.json"
    path.write_bytes(content)
    entry = read_lesson(path)
    assert not entry.ok and [p.reason for p in entry.problems] == [reason]
    assert entry.problems[0].where == "broken.json"


def test_an_unreadable_file_is_located(tmp_path: Path) -> None:
    folder = tmp_path / "folder.json"
    folder.mkdir()                                    # reading a folder raises OSError
    entry = read_lesson(folder)
    assert [p.reason for p in entry.problems] == ["unreadable"]
    assert "IsADirectoryError" in str(entry.problems[0])


def _workspace(tmp_path: Path, files: dict[str, object]) -> Workspace:
    folder = tmp_path / "ws" / "lessons"
    folder.mkdir(parents=True)
    for name, data in files.items():
        text = data if isinstance(data, str) else json.dumps(data)
        (folder / f"{name}.json").write_text(text, encoding="utf-8")
    return Workspace(tmp_path / "ws")


def test_a_damaged_lesson_is_listed_with_its_problem_beside_sound_ones(tmp_path: Path) -> None:
    ws = _workspace(tmp_path, {"mine": LESSON, "broken": _with(2, page="trian"),
                               "Bad Name": LESSON, "torn": '{"format": 1, "ti'})
    entries = {e.name: e for e in list_lessons(ws)}
    assert {"handbook", "builders_guide", "mine", "broken", "torn", "Bad Name"} <= set(entries)
    assert entries["mine"].ok and entries["handbook"].ok and entries["builders_guide"].ok
    assert str(entries["broken"].problems[0]).startswith("broken.json: step 2: page:")
    assert entries["torn"].problems[0].reason == "json_at"
    assert entries["Bad Name"].problems[0].reason == "name"
    assert find_lesson(ws, "mine").lesson.title == TEXT
    assert find_lesson(ws, "broken").problems == entries["broken"].problems


def test_a_workspace_lesson_replaces_a_shipped_one_of_its_name(tmp_path: Path) -> None:
    ws = _workspace(tmp_path, {"handbook": LESSON})
    entries = [e for e in list_lessons(ws) if e.name == "handbook"]
    assert [e.origin for e in entries] == ["workspace"]
    assert find_lesson(ws, "handbook").lesson.steps[0].page == "train"


def test_a_link_out_of_the_workspace_is_refused(tmp_path: Path) -> None:
    ws = _workspace(tmp_path, {})
    outside = tmp_path / "elsewhere.json"
    outside.write_text(json.dumps(LESSON))
    os.symlink(outside, ws.root / "lessons" / "linked.json")
    entry = find_lesson(ws, "linked")
    assert [p.reason for p in entry.problems] == ["outside"]


@pytest.mark.parametrize("name", ["nope", "../handbook", "", None])
def test_an_unknown_lesson_names_the_known_ones(tmp_path: Path, name) -> None:
    with pytest.raises(LessonError) as caught:
        find_lesson(_workspace(tmp_path, {}), name)
    assert "builders_guide, handbook" in str(caught.value)


def test_an_edited_file_is_read_again(tmp_path: Path) -> None:
    ws = _workspace(tmp_path, {"mine": LESSON})
    assert find_lesson(ws, "mine").ok
    path = ws.root / "lessons" / "mine.json"
    path.write_text(json.dumps(_with(2, page="trian")) + " " * 10)
    assert not find_lesson(ws, "mine").ok


def test_the_shipped_lessons_are_sound_and_follow_the_tutorials() -> None:
    handbook = read_lesson(SHIPPED_DIR / "handbook.json").lesson
    guide = read_lesson(SHIPPED_DIR / "builders_guide.json").lesson
    assert [(s.page, s.tab) for s in handbook.steps] == [
        ("tensors", "tensors"), ("tensors", "tape"), ("tensors", "gd"), ("builder", "code"),
        ("train", None), ("train", None), ("runs", None), ("train", None), ("timing", "g1")]
    assert [(s.page, s.query.get("preset")) for s in guide.steps] == [
        ("builder", "b1_mlp"), ("builder", "nested_mlp"), ("weights", "nested_blocks"),
        ("weights", "b1_mlp"), ("builder", "my_dense"), ("tensors", None),
        ("weights", "b1_mlp")]
    for lesson in (handbook, guide):
        for step in lesson.steps:
            assert all(step.title[lang] and step.notes[lang] and step.prompt[lang]
                       for lang in ("en", "zh"))


def test_the_pages_a_step_may_open_are_the_apps_pages() -> None:
    from ui.common.nav import PAGES as NAV

    assert set(PAGES) == {Path(page.path).stem for page in NAV}
