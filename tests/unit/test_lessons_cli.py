"""``python -m tfcore lessons list|show|check`` (in-process through the CLI's main)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.unit.test_lessons_format import LESSON, _with
from tfcore.cli import main


def _run(capsys, argv: list[str]) -> tuple[int, str, str]:
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture()
def ws(tmp_path: Path) -> Path:
    folder = tmp_path / "ws" / "lessons"
    folder.mkdir(parents=True)
    (folder / "mine.json").write_text(json.dumps(LESSON), encoding="utf-8")
    (folder / "broken.json").write_text(json.dumps(_with(2, page="trian")), encoding="utf-8")
    return tmp_path / "ws"


def test_list_names_shipped_and_workspace_lessons_and_the_damaged_ones(ws: Path,
                                                                       capsys) -> None:
    code, out, _ = _run(capsys, ["lessons", "list", "--workspace", str(ws), "--json"])
    rows = {row["name"]: row for row in json.loads(out)}
    assert code == 0
    assert rows["handbook"]["origin"] == "shipped" and rows["handbook"]["steps"] == 9
    assert rows["builders_guide"]["steps"] == 7
    assert rows["mine"]["origin"] == "workspace" and rows["mine"]["ok"]
    problem = rows["broken"]["problems"][0]
    assert not rows["broken"]["ok"] and (problem["step"], problem["field"]) == (2, "page")
    code, out, _ = _run(capsys, ["lessons", "list", "--workspace", str(ws)])
    lines = {line.split()[0]: line for line in out.splitlines()}
    assert "broken.json: step 2: page: 'trian' is not one of" in lines["broken"]
    assert lines["handbook"].split()[1:3] == ["shipped", "9"]


def test_show_prints_each_step_with_its_link(ws: Path, capsys) -> None:
    code, out, _ = _run(capsys, ["lessons", "show", "handbook", "--workspace", str(ws)])
    assert code == 0
    assert "  5. train        Training with live charts  ?preset=mlp&dataset=digits28" in out
    code, out, _ = _run(capsys, ["lessons", "show", "mine", "--json", "--workspace", str(ws)])
    steps = json.loads(out)["lesson"]["steps"]
    assert code == 0 and [(s["page"], s["tab"], s["query"]) for s in steps] == [
        ("train", None, {"preset": "mlp", "epochs": "3", "lr": "0.001", "eager": "true"}),
        ("tensors", "tape", {})]


def test_show_of_a_damaged_or_unknown_lesson_exits_2(ws: Path, capsys,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    code, _, err = _run(capsys, ["lessons", "show", "broken", "--workspace", str(ws)])
    assert code == 2 and err.splitlines()[0].endswith("broken.json: 1 problem(s); the lesson "
                                                      "cannot be opened until they are fixed:")
    assert err.splitlines()[1].startswith("  - broken.json: step 2: page: 'trian'")
    code, _, err = _run(capsys, ["lessons", "show", "nope", "--workspace", str(ws)])
    assert code == 2 and err.startswith("error: There is no lesson called nope. Lessons: ")
    monkeypatch.setenv("TFLAB_LANG", "zh")
    code, _, err = _run(capsys, ["lessons", "show", "nope", "--workspace", str(ws)])
    assert code == 2 and "没有名为 nope 的课程" in err


def test_check_a_file_anywhere(ws: Path, tmp_path: Path, capsys,
                               monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, _ = _run(capsys, ["lessons", "check", str(ws / "lessons" / "mine.json")])
    assert code == 0 and out.strip() == "ok: mine: 2 steps"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(_with(1, tab="tape", prompt=None)), encoding="utf-8")
    code, _, err = _run(capsys, ["lessons", "check", str(bad)])
    assert code == 2 and err.splitlines()[1:] == [
        "  - bad.json: step 1: tab: the page 'train' has no tabs",
        "  - bad.json: step 1: prompt: is missing"]
    code, _, err = _run(capsys, ["lessons", "check", str(tmp_path / "missing.json")])
    assert code == 2 and "  - missing.json: cannot be read (FileNotFoundError)" in err
    code, out, _ = _run(capsys, ["lessons", "check", str(bad), "--json"])
    assert code == 2 and [p["field"] for p in json.loads(out)["problems"]] == ["tab", "prompt"]
    monkeypatch.setenv("TFLAB_LANG", "zh")
    code, _, err = _run(capsys, ["lessons", "check", str(bad)])
    assert err.splitlines()[2] == "  - bad.json: 第 1 步: prompt：缺少此项"
