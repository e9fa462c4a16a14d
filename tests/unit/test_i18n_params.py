"""Translation parameters may have any name: ``key`` and ``lang`` do not collide with
``t()``'s own argument (an error whose params name a checkpoint variable ``key`` used to
show "t() got multiple values for argument 'key'")."""

from __future__ import annotations

import inspect

import pytest

from tfcore.errors import CheckpointError
from ui.common import errors, i18n


def test_the_key_is_positional_only() -> None:
    kinds = {p.name: p.kind for p in inspect.signature(i18n.t).parameters.values()}
    assert kinds["key"] is inspect.Parameter.POSITIONAL_ONLY
    with pytest.raises(TypeError):
        i18n.t(key="runs.title")                  # the point: key= is refused


def test_params_named_key_and_lang_fill_their_placeholders(monkeypatch) -> None:
    monkeypatch.setattr(i18n, "catalog", lambda lang: {"demo": "{key} / {lang} / {self}"})
    assert i18n.t("demo", key="dense/kernel", lang="zh", self="me") == "dense/kernel / zh / me"


def test_real_catalog_text_with_a_key_param() -> None:
    text = i18n.t("runs.err.read_var", key="dense/kernel", ckpt="ckpt-4", reason="short read",
                  lang="ignored")
    assert text == "Cannot read dense/kernel from ckpt-4: short read"


def test_engine_error_with_key_param_shows_its_message() -> None:
    exc = CheckpointError("Cannot read dense/kernel.", key="runs.err.read_var",
                          params={"key": "dense_kernel", "ckpt": "ckpt_4", "reason": "eof"})
    assert errors.error_text(exc) == "Cannot read dense_kernel from ckpt_4: eof"


def test_located_text_translates_a_run_problem_and_escapes_markdown() -> None:
    from tfcore.rundir import RunProblem

    problem = RunProblem("status.json", "step", "type", "'*abc*'", "int")
    assert str(problem) == "status.json: step: '*abc*' is not an integer"
    assert errors.located_text(problem, markdown=False) == str(problem)
    # the file's text is escaped (Markdown shows it literally); the template's is not
    assert errors.located_text(problem) == r"status.json: step: '\*abc\*' is not an integer"


def test_english_catalog_says_what_the_engine_says_for_every_run_problem() -> None:
    from tfcore.rundir import RunProblem
    from tfcore.rundir.schema import KINDS, REASONS

    en = i18n.catalog("en")
    from tfcore.workspace import NOT_REGULAR

    problems = [RunProblem("run.json", "f", reason, "'v'", "9") for reason in REASONS
                if reason not in ("type", "special")]
    problems += [RunProblem("meta.json", "tags", "type", "5", kind, line=3) for kind in KINDS]
    problems += [RunProblem("status.json", "", "special", limit=kind)     # what the file is
                 for kind in NOT_REGULAR if kind != "missing"]
    for problem in problems:
        assert en[problem.key].format(**problem.params) == str(problem)
        assert problem.key in i18n.catalog("zh")
