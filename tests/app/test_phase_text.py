"""The restoring phase names the checkpoint as its files are named (T3: model.ckpt-N)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tfcore.rundir import RUNNING, RunPaths, RunRecord, RunStatus
from ui.training.live import phase_text


@pytest.mark.parametrize("prefix, shown", [(None, "ckpt-12"), ("model.ckpt", "model.ckpt-12")])
def test_restoring_names_the_checkpoint_file(tmp_path: Path, prefix, shown: str) -> None:
    training = {"ckpt_prefix": prefix} if prefix else {}
    record = RunRecord("r1", RunPaths(tmp_path), {"training": training},
                       RunStatus(RUNNING, extra={"phase": "restoring", "phase_checkpoint": 12}))
    assert phase_text(record, waiting=True) == f"Restoring checkpoint {shown}…"
