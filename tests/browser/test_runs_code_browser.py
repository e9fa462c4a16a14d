"""The Runs page in a real browser on a trusted server: a run whose user-written code was
edited in the workspace since it trained shows the warning naming the file; "Put this
run's code back" writes the run's copy back and the warning goes."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from tests.browser.conftest import (
    dashboard,
    click_button,
    settle,
    wait_idle,
)
from tests.unit.fixtures_runs import make_run
from tfcore.custom import TEMPLATES, TRUSTED_ENV, save_code
from tfcore.workspace import Workspace
from ui.common.i18n import catalog

EN = catalog("en")
LINEAR = TEMPLATES["linear"].source
EDITED = LINEAR.replace("units=1", "units=7")


@pytest.fixture(scope="module")
def space(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Workspace, str]]:
    """A trusted server (TFLAB_TRUSTED_CODE=1 on 127.0.0.1) with a workspace of its own
    holding one run that trained with linear.py; linear.py was edited since."""
    workspace = Workspace(tmp_path_factory.mktemp("runcode_browser_ws")).ensure()
    run_id = make_run(workspace.runs, name="with_code", steps=4, ckpt_every=4)
    code = workspace.runs / run_id / "custom"
    code.mkdir()
    (code / "linear.py").write_text(LINEAR, encoding="utf-8")   # as the worker copies it
    save_code(workspace.root, "linear", EDITED)
    log = tmp_path_factory.mktemp("runcode_server") / "streamlit.log"
    with dashboard(workspace.root, log, TFLAB_WARM_WORKER="0", **{TRUSTED_ENV: "1"}) as url:
        yield url, workspace, run_id


def test_warning_and_put_the_code_back(space, page, tmp_path: Path) -> None:
    url, workspace, run_id = space
    page.goto(f"{url}/runs?lang=en")
    settle(page, EN["runs.title"])
    changed = EN["runs.code.changed"].format(file="linear.py")
    warning = page.locator("[data-testid='stAlert']").filter(has_text=changed).first
    warning.wait_for()
    assert EN["runs.code.warning"].split("{files}")[1].strip() in warning.inner_text()
    click_button(page, EN["runs.code.restore"],
                 expect=EN["runs.code.restored"].format(files="linear.py"))
    wait_idle(page)
    assert page.get_by_text(changed).count() == 0
    assert (workspace.root / "custom" / "linear.py").read_text(encoding="utf-8") == LINEAR
    page.screenshot(path=str(tmp_path / "runs-code-restored.png"), full_page=True)
