"""Shared test setup: each test its own temporary workspace, quiet TensorFlow.

``TFLAB_WORKSPACE`` points at a fresh folder for every test, so no test sees what an
earlier one left. A module whose tests share work on purpose (a run trained once, a page
opened once) says so with ``pytestmark = pytest.mark.shared_workspace``: its tests and
its module-scoped fixtures then use one workspace of the module's own.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
# AppTest runs app.py in this process: no warm worker per test session (the browser
# tests' server turns it on, as `make run` does).
os.environ.setdefault("TFLAB_WARM_WORKER", "0")
SHARED = "shared_workspace"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", f"{SHARED}: the module's tests share one workspace")


@pytest.fixture(scope="session", autouse=True)
def session_workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A workspace for what runs outside any test (imports, session fixtures)."""
    root = tmp_path_factory.mktemp("workspace")
    os.environ["TFLAB_WORKSPACE"] = str(root)
    return root


@pytest.fixture(scope="module", autouse=True)
def module_workspace(request: pytest.FixtureRequest,
                     tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path | None]:
    """The module's own workspace when it is marked ``shared_workspace``, else None; set up
    before the module's other fixtures (autouse comes first in its scope)."""
    if request.node.get_closest_marker(SHARED) is None:
        yield None
        return
    with pytest.MonkeyPatch.context() as patch:
        root = tmp_path_factory.mktemp(f"ws_{request.module.__name__.rpartition('.')[2]}")
        patch.setenv("TFLAB_WORKSPACE", str(root))
        yield root


@pytest.fixture(autouse=True)
def each_test_workspace(module_workspace: Path | None,
                        tmp_path_factory: pytest.TempPathFactory,
                        monkeypatch: pytest.MonkeyPatch) -> Path:
    """This test's workspace: a fresh folder, or its module's shared one."""
    if module_workspace is not None:
        return module_workspace
    root = tmp_path_factory.mktemp("ws")
    monkeypatch.setenv("TFLAB_WORKSPACE", str(root))
    return root
