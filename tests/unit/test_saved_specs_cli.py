"""Saved models from the command line (issue 22 item 7 gave ``delete_spec`` and
``rename_spec`` their caller): ``spec saved`` lists the workspace's models, ``spec rename``
moves a model and its own initial weights, ``spec delete`` removes both; a wrong name is a
located refusal (exit 2) that changes nothing, in English and Chinese, and a damaged file
is listed with its problem without hiding the others. That the weights follow a rename and
go with a delete is ``test_import_weights_follow.py``'s check of the same functions."""

from __future__ import annotations

import pytest

from tfcore.cli import main
from tfcore.model import get_preset, list_specs, load_spec, save_spec
from tfcore.workspace import default_workspace

TEXTS = {"en": ("sequential, 4 layers", "Renamed the saved model mlp to lesson_net.",
                "Deleted the saved model lesson_net.", "No saved models yet"),
         "zh": ("sequential，4 层", "已将模型 mlp 重命名为 lesson_net。",
                "已删除模型 lesson_net。", "还没有保存的模型")}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_list_rename_and_delete_a_saved_model(capsys, monkeypatch, lang: str) -> None:
    monkeypatch.setenv("TFLAB_LANG", lang)
    listed, renamed, deleted, empty = TEXTS[lang]
    ws = default_workspace().ensure()
    assert main(["spec", "saved"]) == 0 and empty in capsys.readouterr().out
    spec = get_preset("mlp")
    assert len(spec.layers) == 4 and spec.kind == "sequential"
    save_spec(ws, "mlp", spec)
    save_spec(ws, "cnn", get_preset("cnn"))
    assert main(["spec", "saved"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == ["cnn", "mlp"]
    assert listed in lines[1]
    assert main(["spec", "rename", "mlp", "lesson_net"]) == 0
    assert capsys.readouterr().out.strip() == renamed
    assert list_specs(ws) == ["cnn", "lesson_net"]
    assert load_spec(ws, "lesson_net").name == "lesson_net"
    assert main(["spec", "delete", "lesson_net"]) == 0
    assert capsys.readouterr().out.strip() == deleted
    assert list_specs(ws) == ["cnn"]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("argv", [["spec", "delete", "nothing_here"],
                                  ["spec", "rename", "nothing_here", "other"],
                                  ["spec", "rename", "cnn", "mlp"],          # taken
                                  ["spec", "rename", "cnn", "../escape"],
                                  ["spec", "delete", "../../etc/passwd"]])
def test_a_wrong_name_is_refused_and_changes_nothing(capsys, monkeypatch, lang: str,
                                                     argv: list[str]) -> None:
    monkeypatch.setenv("TFLAB_LANG", lang)
    ws = default_workspace().ensure()
    save_spec(ws, "cnn", get_preset("cnn"))
    save_spec(ws, "mlp", get_preset("mlp"))
    before = sorted(p.name for p in ws.models.rglob("*"))
    assert main(argv) == 2
    said = capsys.readouterr()
    assert "Traceback" not in said.err and said.err.strip()
    named = argv[2] if argv[2] != "cnn" else argv[3]
    assert named in said.err                                # located: the name it refused
    assert sorted(p.name for p in ws.models.rglob("*")) == before


def test_a_damaged_saved_model_is_listed_with_its_problem(capsys) -> None:
    ws = default_workspace().ensure()
    save_spec(ws, "mlp", get_preset("mlp"))
    (ws.models / "broken.json").write_text("{not json", encoding="utf-8")
    (ws.models / "latin1.json").write_bytes('{"name": "caf\xe9"}'.encode("latin-1"))
    (ws.models / "folder.json").mkdir()                          # not a saved model at all
    assert main(["spec", "saved"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == ["broken", "latin1", "mlp"]
    assert "JSON" in lines[0]                                    # its problem, located
    assert "models/latin1.json" in lines[1] and "UTF-8" in lines[1] and "byte 13" in lines[1]
    assert "4 layers" in lines[2]


def test_another_workspace_is_chosen_with_the_flag(capsys, tmp_path) -> None:
    from tfcore.workspace import Workspace

    other = Workspace(tmp_path / "other").ensure()
    save_spec(other, "elsewhere", get_preset("mlp"))
    assert main(["spec", "saved", "--workspace", str(tmp_path / "other")]) == 0
    assert capsys.readouterr().out.split()[0] == "elsewhere"
    assert main(["spec", "delete", "elsewhere", "--workspace", str(tmp_path / "other")]) == 0
    assert list_specs(other) == []
