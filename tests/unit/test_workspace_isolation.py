"""Each test runs in an empty workspace of its own (tests/conftest.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tfcore.workspace import default_workspace
from ui.common import workspace

SEEN: list[Path] = []


@pytest.mark.parametrize("turn", [1, 2])
def test_each_test_starts_in_an_empty_workspace_of_its_own(
        turn: int, each_test_workspace: Path) -> None:
    root = default_workspace().root
    assert root == each_test_workspace.resolve()
    assert not any(root.iterdir()), f"turn {turn} found what another test left"
    assert workspace().root == root                 # the pages' cached workspace follows
    (root / "left_over.txt").write_text(str(turn))
    assert root not in SEEN
    SEEN.append(root)
