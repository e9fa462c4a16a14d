"""The engine's one English source: an error raised with a key and structured params gets
its message from the catalog, in English for ``message`` and in Chinese on request; texts
and lists of names survive JSON files and pickling."""

from __future__ import annotations

import argparse
import ast
import json
import pickle
from pathlib import Path

import pytest

from tfcore import messages
from tfcore.cli import main
from tfcore.cli.inputs import int_range
from tfcore.errors import DatasetError, SpecError
from tfcore.jsonio import atomic_write_json, read_json
from tfcore.messages import Names, Text
from tfcore.rundir import RunProblem


def test_an_error_raised_by_key_renders_its_message_from_the_catalog() -> None:
    exc = DatasetError(key="data.err.split_name",
                       params={"split": "dev", "choices": Names(("train", "val", "test"))})
    assert exc.message == str(exc) == "Unknown split 'dev'; use one of train, val, test."
    assert exc.text("zh") == "未知的划分 'dev'；请使用以下之一：train、val、test。"


def test_an_explicit_message_still_wins_and_an_unknown_key_shows_itself() -> None:
    assert SpecError("Old text.", key="spec.no_preset", params={"name": "x"}).message == \
        "Old text."
    assert SpecError(key="no.such.key").message == "no.such.key"
    # params that do not fill the text: the key, never a KeyError while raising
    assert SpecError(key="spec.no_preset").message == "spec.no_preset"


def test_a_rule_text_nests_and_renders_in_each_language() -> None:
    rule = Text("param.allowed.int_low_high", {"low": 1, "high": 1_000_000})
    exc = SpecError(key="spec.bad_values", params={"where": "dense.units", "value": "0",
                                                   "allowed": rule, "count": 1})
    assert "use an integer from 1 to 1,000,000." in exc.message
    assert "1 到 1,000,000 之间的整数" in exc.text("zh")


def test_texts_and_names_stay_plain_in_json_and_survive_pickling(tmp_path) -> None:
    rule = Text("param.allowed.choice", {"choices": Names(("relu", "tanh"))})
    params = {"expected": rule, "known": Names(("a", "b")), "value": 3}
    atomic_write_json(tmp_path / "status.json", {"error_params": params})
    assert read_json(tmp_path / "status.json") == {
        "error_params": {"expected": "one of relu, tanh", "known": "a, b", "value": 3}}
    again = pickle.loads(pickle.dumps(rule))
    assert again == rule and again["zh"] == "以下之一：relu、tanh"
    assert pickle.loads(pickle.dumps(params["known"])).items == ("a", "b")
    assert json.loads(json.dumps(dict(rule))) == {"en": "one of relu, tanh",
                                                  "zh": "以下之一：relu、tanh"}


def test_cli_prints_errors_in_the_language_of_tflab_lang(tmp_path, monkeypatch, capsys) -> None:
    spec = {"name": "m", "inputs": [{"name": "x", "shape": [4]}],
            "layers": [{"name": "dense", "type": "Dense", "config": {"units": 0}}]}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    monkeypatch.setenv("TFLAB_LANG", "zh")
    assert main(["spec", "check", str(path)]) == 2
    err = capsys.readouterr().err
    assert "模型规格有 1 个问题" in err
    assert "dense.units：不允许的值 0；允许：1 到 1,000,000 之间的整数。" in err
    monkeypatch.setenv("TFLAB_LANG", "en")
    assert main(["spec", "check", str(path)]) == 2
    assert "dense.units: 0 is not allowed; use an integer from 1 to 1,000,000." in \
        capsys.readouterr().err


def test_pages_render_engine_texts_and_names_in_the_readers_language(monkeypatch) -> None:
    from ui.common import errors, i18n

    monkeypatch.setattr(i18n, "current_lang", lambda: "zh")
    assert i18n.pick(Text("preset.cnn", {"scenario": "M4"})) == "手写数字卷积神经网络（M4）"
    exc = DatasetError(key="data.err.option", params={
        "name": "circles", "option": "noise", "value": "3",
        "expected": Text("param.allowed.float_low_high", {"low": 0.0, "high": 1.0})})
    assert errors.error_text(exc) == \
        "数据集 'circles'：选项 'noise' 应为0.0 到 1.0 之间的数值。收到：noise=3"
    names = Names(("l1_l2", "*x*"))             # each name escaped, joined per language
    assert i18n.t("timing.error.mode", mode="m", choices=names) == \
        "未知的计时方式 'm'；请从以下选择：l1_l2、*x*。"
    assert errors.error_text(SpecError(key="timing.error.mode",
                                       params={"mode": "m", "choices": names})) == \
        "未知的计时方式 'm'；请从以下选择：l1_l2、\\*x\\*。"


def test_cli_argument_refusals_follow_tflab_lang(monkeypatch) -> None:
    parse = int_range(1, 1000)
    for lang, text in (("zh", "必须是 1 到 1,000 之间的整数。收到：0"),
                       ("en", "must be an integer from 1 to 1,000. Received: 0")):
        monkeypatch.setenv("TFLAB_LANG", lang)
        with pytest.raises(argparse.ArgumentTypeError) as info:
            parse("0")
        assert str(info.value) == text


def test_run_file_problems_render_from_the_catalog_in_both_languages() -> None:
    problem = RunProblem("status.json", "step", "type", "'abc'", "int")
    assert str(problem) == "status.json: step: 'abc' is not an integer"
    assert problem.text("zh") == \
        messages.catalog("zh")["runs.problem.type.int"].format(**problem.params)
    torn = RunProblem("metrics.jsonl", "", "json_col", limit="7", line=3)
    assert str(torn) == "metrics.jsonl:3: is not valid JSON (column 7)"


def _error_classes(trees) -> set[str]:
    """Names of TFLabError and every class deriving from it, transitively, across tfcore."""
    bases: dict[str, set[str]] = {}
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                bases.setdefault(node.name, set()).update(
                    b.id if isinstance(b, ast.Name) else b.attr
                    for b in node.bases if isinstance(b, (ast.Name, ast.Attribute)))
    found = {"TFLabError"}
    while grown := {name for name, parents in bases.items()
                    if name not in found and parents & found}:
        found |= grown
    return found


def test_engine_errors_are_raised_by_catalog_key_never_by_english_text() -> None:
    root = Path(messages.__file__).resolve().parent
    trees = {path: ast.parse(path.read_text(encoding="utf-8"))
             for path in sorted(root.rglob("*.py"))}
    classes = _error_classes(trees)
    assert {"SpecError", "RunError", "DeviceError"} <= classes
    catalogs = {lang: messages.catalog(lang) for lang in messages.LANGUAGES}
    explicit, unknown, calls = [], [], 0
    for path, tree in trees.items():
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.id if isinstance(func, ast.Name) else \
                func.attr if isinstance(func, ast.Attribute) else None
            if name not in classes:
                continue
            calls += 1
            where = f"{path.relative_to(root.parent)}:{node.lineno}"
            if node.args or any(kw.arg == "message" for kw in node.keywords):
                explicit.append(where)
            for kw in node.keywords:
                if kw.arg == "key" and isinstance(kw.value, ast.Constant):
                    unknown += [f"{where} {kw.value.value} ({lang})" for lang in catalogs
                                if kw.value.value not in catalogs[lang]]
    assert calls > 50                           # the scan sees the engine's raise sites
    assert explicit == [], "pass key= and params=, not an English message"
    assert unknown == [], "a key the engine raises lives in tfcore/locales/{en,zh}"
