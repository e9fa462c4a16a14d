"""T4: the real TensorBoard as a managed process for a runs folder: started on loopback at
a free port, answering HTTP with the run, reused, replaced for another folder, stopped."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tests.unit.fixtures_train import wait_until
from tfcore.errors import RunError
from tfcore.runs import open_tensorboard, run_url, running_tensorboard, stop_tensorboard
from tfcore.runs.tensorboard import fetch_json

pytestmark = pytest.mark.slow


def _write_scalar_run(root: Path, run_id: str) -> Path:
    """A run folder whose ``tb/`` holds a scalar loss for three steps."""
    import tensorflow as tf

    tb = root / run_id / "tb"
    tb.mkdir(parents=True)
    writer = tf.summary.create_file_writer(str(tb))
    with writer.as_default():
        for step, loss in enumerate((0.9, 0.5, 0.25), start=1):
            tf.summary.scalar("loss", loss, step=step)
    writer.close()
    return root / run_id


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_tensorboard_starts_answers_with_the_run_is_reused_and_stops(tmp_path) -> None:
    root = tmp_path / "runs"
    run_dir = _write_scalar_run(root, "run-a")
    try:
        info = open_tensorboard(root)
        assert info.url == f"http://127.0.0.1:{info.port}" and not info.reused
        assert fetch_json(f"{info.url}/data/logdir") == {"logdir": str(root.resolve())}
        wait_until(lambda: "run-a/tb" in (fetch_json(f"{info.url}/data/runs") or []),
                   timeout=120, poll=0.5)
        tags = {}

        def loss_tag_listed() -> bool:
            tags.update(fetch_json(f"{info.url}/data/plugin/scalars/tags") or {})
            return "loss" in tags.get("run-a/tb", {})

        wait_until(loss_tag_listed, timeout=120, poll=0.5)
        assert run_url(info, run_dir) == f"{info.url}/?runFilter=run-a#timeseries"
        again = open_tensorboard(root)                     # one per server: reused
        assert again.reused and again.pid == info.pid and again.port == info.port
        assert running_tensorboard() == info

        other = tmp_path / "other"
        _write_scalar_run(other, "run-b")
        moved = open_tensorboard(other)                    # another folder replaces it
        assert moved.pid != info.pid and not moved.reused
        wait_until(lambda: _gone(info.pid), timeout=30)
        assert fetch_json(f"{info.url}/data/logdir", timeout=1) is None or \
            info.port == moved.port
    finally:
        stopped = running_tensorboard()
        assert stop_tensorboard()
    wait_until(lambda: _gone(stopped.pid), timeout=30)
    assert running_tensorboard() is None and fetch_json(f"{stopped.url}/data/logdir",
                                                        timeout=1) is None
    assert not stop_tensorboard()                          # nothing left to stop


def test_a_missing_folder_is_refused_without_starting_anything(tmp_path) -> None:
    started = time.monotonic()
    with pytest.raises(RunError) as info:
        open_tensorboard(tmp_path / "nope")
    assert info.value.key == "tensorboard.err.no_folder"
    assert running_tensorboard() is None and time.monotonic() - started < 5


CHILD = """
import sys, time
from tfcore.runs import open_tensorboard
info = open_tensorboard(sys.argv[1])
print(info.pid, flush=True)
if sys.argv[2] == "wait":
    time.sleep(600)
"""


def test_no_tensorboard_outlives_its_server(tmp_path) -> None:
    """A server that exits stops its TensorBoard (atexit); one that is killed too (the
    TensorBoard process watches its parent)."""
    import signal
    import subprocess
    import sys

    from tests.conftest import ROOT

    root = tmp_path / "runs"
    _write_scalar_run(root, "run-a")
    children = {how: subprocess.Popen([sys.executable, "-c", CHILD, str(root), how], cwd=ROOT,
                                      stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                      text=True) for how in ("exit", "wait")}
    try:
        pids = {how: int(child.stdout.readline()) for how, child in children.items()}
        assert children["exit"].wait(timeout=60) == 0
        wait_until(lambda: _gone(pids["exit"]), timeout=30)
        assert not _gone(pids["wait"])
        children["wait"].send_signal(signal.SIGKILL)
        children["wait"].wait(timeout=30)
        wait_until(lambda: _gone(pids["wait"]), timeout=30)
    finally:
        for child in children.values():
            if child.poll() is None:
                child.kill()
                child.wait(timeout=30)
