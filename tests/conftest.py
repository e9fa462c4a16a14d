"""Shared test setup: a temporary workspace for the whole session, quiet TensorFlow."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
# AppTest runs app.py in this process: no warm worker per test session (the browser
# tests' server turns it on, as `make run` does).
os.environ.setdefault("TFLAB_WARM_WORKER", "0")


@pytest.fixture(scope="session", autouse=True)
def session_workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Point TFLAB_WORKSPACE at a fresh temp folder for every test session."""
    root = tmp_path_factory.mktemp("workspace")
    os.environ["TFLAB_WORKSPACE"] = str(root)
    return root
