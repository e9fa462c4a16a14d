"""The Runs page says when the workspace's user-written code is no longer the code a run
trained with (restore, evaluate and export build the model with the current code), in
both languages, and "Put this run's code back" writes the run's copy back and loads it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.app.apptest_helpers import assert_clean, open_page
from tests.unit.fixtures_runs import make_run
from tfcore.custom import (
    TEMPLATES,
    TRUSTED_ENV,
    current,
    load_sources,
    prepare_run,
    run_code_changes,
    save_code,
)
from tfcore.workspace import Workspace
from ui.common.i18n import catalog

PAGE = "app_pages/runs.py"
LINEAR = TEMPLATES["linear"].source
LOSS = TEMPLATES["mse_loss"].source
EDITED = LINEAR.replace("units=1", "units=5")
pytestmark = pytest.mark.shared_workspace


@pytest.fixture(scope="module")
def space(module_workspace: Path):
    """The module's workspace with one real run (``make_run``)."""
    workspace = Workspace(module_workspace).ensure()
    run_id = make_run(workspace.runs, name="with_code", steps=4, ckpt_every=4)
    return workspace, run_id


@pytest.fixture()
def run_code(space, monkeypatch: pytest.MonkeyPatch):
    """The run used linear.py and mse_loss.py (copied by ``prepare_run`` as the worker
    does); since then linear.py was edited and mse_loss.py deleted in the workspace."""
    workspace, run_id = space
    run_dir = workspace.runs / run_id
    monkeypatch.setenv(TRUSTED_ENV, "1")
    shutil.rmtree(run_dir / "custom", ignore_errors=True)
    shutil.rmtree(workspace.root / "custom", ignore_errors=True)
    prepare_run(run_dir, {"custom_code": {"linear": LINEAR, "mse_loss": LOSS}})
    save_code(workspace.root, "linear", EDITED)
    yield workspace, run_id
    shutil.rmtree(workspace.root / "custom", ignore_errors=True)
    monkeypatch.setenv(TRUSTED_ENV, "1")      # a test may have turned it off
    load_sources({})              # no user-written types left in this process's catalog


def _open(run_id: str, lang: str):
    at = open_page(PAGE, lang)                 # the only run: selected by default
    assert not at.exception, [e.value for e in at.exception]
    assert at.selectbox(key="runs.detail.run").value == run_id
    return at


def _expected_warning(lang: str) -> str:
    cat = catalog(lang)
    files = cat["runs.code.sep"].join([cat["runs.code.changed"].format(file="linear.py"),
                                      cat["runs.code.missing"].format(file="mse_loss.py")])
    return cat["runs.code.warning"].format(files=files)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_warning_names_each_changed_file(run_code, lang: str) -> None:
    _, run_id = run_code
    at = _open(run_id, lang)
    assert_clean(at, lang)
    assert _expected_warning(lang) in [w.value for w in at.warning]
    assert at.button(key="runs.code.restore").label == catalog(lang)["runs.code.restore"]


def test_button_puts_the_run_code_back_and_loads_it(run_code) -> None:
    workspace, run_id = run_code
    at = _open(run_id, "en")
    assert current().sources["linear"] == EDITED          # what the page builds with now
    at.button(key="runs.code.restore").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    en = catalog("en")
    assert [s.value for s in at.success] == [
        en["runs.code.restored"].format(files="linear.py, mse_loss.py")]
    assert not any("linear.py" in w.value for w in at.warning)
    assert not [b for b in at.button if b.key == "runs.code.restore"]
    code = workspace.root / "custom"
    assert (code / "linear.py").read_text(encoding="utf-8") == LINEAR
    assert (code / "mse_loss.py").read_text(encoding="utf-8") == LOSS
    assert run_code_changes(workspace.runs / run_id, workspace.root) == []
    assert current().sources == {"linear": LINEAR, "mse_loss": LOSS}
    assert {"Linear", "MeanSquaredError"} <= set(current().classes)
    at.run()                                               # the message is shown once
    assert not at.success and not any("linear.py" in w.value for w in at.warning)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_untrusted_server_says_how_to_enable(run_code, lang: str, monkeypatch) -> None:
    workspace, run_id = run_code
    monkeypatch.delenv(TRUSTED_ENV)
    at = _open(run_id, lang)
    assert_clean(at, lang)
    assert _expected_warning(lang) in [w.value for w in at.warning]
    captions = " ".join(c.value for c in at.caption)
    assert f"{TRUSTED_ENV}=1 streamlit run app.py --server.address 127.0.0.1" in captions
    assert not [b for b in at.button if b.key == "runs.code.restore"]
    assert (workspace.root / "custom" / "linear.py").read_text(encoding="utf-8") == EDITED


def test_no_warning_when_the_code_is_unchanged(run_code) -> None:
    workspace, run_id = run_code
    save_code(workspace.root, "linear", LINEAR)
    save_code(workspace.root, "mse_loss", LOSS)
    at = _open(run_id, "en")
    assert not any("linear.py" in w.value for w in at.warning)
    assert not [b for b in at.button if b.key == "runs.code.restore"]


def test_page_reads_new_edits_without_a_restart(run_code) -> None:
    workspace, run_id = run_code
    save_code(workspace.root, "mse_loss", LOSS)
    at = _open(run_id, "en")
    en = catalog("en")
    only_linear = en["runs.code.warning"].format(
        files=en["runs.code.changed"].format(file="linear.py"))
    assert only_linear in [w.value for w in at.warning]
    save_code(workspace.root, "linear", LINEAR)          # the teacher undoes the edit
    at.run()
    assert not any("linear.py" in w.value for w in at.warning)
    assert Path(workspace.runs / run_id / "custom" / "linear.py").is_file()
