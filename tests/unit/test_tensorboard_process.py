"""T4: the real TensorBoard as a managed process for a runs folder: started on loopback at
a free port, answering HTTP with the run, reused, replaced for another folder, stopped; one
per folder for servers that open it at the same moment, and none outlives its servers."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.unit.fixtures_train import wait_until
from tfcore.errors import RunError
from tfcore.runs import open_tensorboard, run_url, running_tensorboard, stop_tensorboard
from tfcore.runs.tensorboard import STATE_NAME, fetch_json, process_token

pytestmark = pytest.mark.slow
ANSWER_S = 60.0      # a TensorBoard that runs answers; on a loaded machine it may take long


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
    """No such process, or only its zombie (an orphan waiting for init to reap it)."""
    return process_token(pid) is None


def _boards(folder: Path) -> list[int]:
    """Live TensorBoard processes (``tfcore.runs.tensorboard``) serving ``folder``."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            args = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"tfcore.runs.tensorboard" in args and str(folder).encode() in args \
                and process_token(int(proc.name)) is not None:
            found.append(int(proc.name))
    return found


def test_tensorboard_starts_answers_with_the_run_is_reused_and_stops(tmp_path) -> None:
    root = tmp_path / "runs"
    run_dir = _write_scalar_run(root, "run-a")
    (root / STATE_NAME).write_text(json.dumps({         # left by a TensorBoard long gone
        "pid": 1, "token": "1:0", "port": 9, "url": "http://127.0.0.1:9",
        "logdir": str(root.resolve()), "users": ["1:0"]}))
    try:
        info = open_tensorboard(root)
        assert info.url == f"http://127.0.0.1:{info.port}" and not info.reused
        assert fetch_json(f"{info.url}/data/logdir", timeout=ANSWER_S) == \
            {"logdir": str(root.resolve() / ".tensorboard-runs")}
        wait_until(lambda: "run-a" in (fetch_json(f"{info.url}/data/runs") or []),
                   timeout=120, poll=0.5)
        tags = {}

        def loss_tag_listed() -> bool:
            tags.update(fetch_json(f"{info.url}/data/plugin/scalars/tags") or {})
            return "loss" in tags.get("run-a", {})

        wait_until(loss_tag_listed, timeout=120, poll=0.5)
        assert run_url(info, run_dir) == \
            f"{info.url}/?runFilter=%5Erun-a%28%2F%7C%24%29#timeseries"   # ^run-a(/|$)
        again = open_tensorboard(root)                     # one per server: reused
        assert again.reused and again.pid == info.pid and again.port == info.port
        assert running_tensorboard() == info
        maps = Path(f"/proc/{info.pid}/maps").read_text()     # on TensorBoard's TF stub
        assert "libtensorflow" not in maps and "_pywrap_tensorflow" not in maps

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


def test_a_folder_locked_by_another_starter_is_refused_after_the_timeout(tmp_path) -> None:
    """While another process holds the folder's lock (it is starting TensorBoard), a second
    one waits for it, and refuses with a translated error after its timeout."""
    import fcntl

    from tfcore.runs.tensorboard import LOCK_NAME

    root = tmp_path / "runs"
    root.mkdir()
    with open(root / LOCK_NAME, "a") as handle:      # another open file: another holder
        fcntl.flock(handle, fcntl.LOCK_EX)
        started = time.monotonic()
        with pytest.raises(RunError) as info:
            open_tensorboard(root, timeout=0.5)
        assert time.monotonic() - started >= 0.5
    assert info.value.key == "tensorboard.err.busy"
    assert running_tensorboard() is None and _boards(root.resolve()) == []
    assert not (root / STATE_NAME).exists()


# A server process: imports, says "ready", waits for "go" (the barrier), opens TensorBoard,
# prints what it got, then waits for "exit" (a clean exit runs atexit) or is killed.
CHILD = """
import sys
from tfcore.runs import open_tensorboard
print("ready", flush=True)
sys.stdin.readline()
info = open_tensorboard(sys.argv[1])
print(info.pid, info.url, info.reused, flush=True)
sys.stdin.readline()
"""


class Server:
    """One ``CHILD`` process; its stderr goes to a file that failures quote."""

    def __init__(self, tmp_path: Path, name: str, folder: Path) -> None:
        import subprocess
        import sys

        from tests.conftest import ROOT

        self.err = tmp_path / f"{name}.err"
        with open(self.err, "w") as sink:
            self.proc = subprocess.Popen([sys.executable, "-c", CHILD, str(folder)], cwd=ROOT,
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=sink, text=True)

    def line(self) -> str:
        text = self.proc.stdout.readline().strip()
        assert text, f"the server printed nothing; its stderr: {self.err.read_text()[-3000:]}"
        return text

    def send(self, text: str) -> None:
        self.proc.stdin.write(text + "\n")
        self.proc.stdin.flush()

    def opened(self) -> tuple[int, str, bool]:
        pid, url, reused = self.line().split()
        return int(pid), url, reused == "True"

    def end(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=30)


def _servers(tmp_path: Path, folders: dict[str, Path]) -> dict[str, Server]:
    """Servers that open TensorBoard at the same moment: each has imported everything and
    said ready before any is told to go."""
    servers = {name: Server(tmp_path, name, folder) for name, folder in folders.items()}
    for server in servers.values():
        assert server.line() == "ready"
    for server in servers.values():
        server.send("go")
    return servers


def test_no_tensorboard_outlives_its_server(tmp_path) -> None:
    """A server that exits stops its TensorBoard (atexit); one that is killed too (the
    TensorBoard process watches the servers that use it)."""
    import signal

    folders = {how: tmp_path / how for how in ("exit", "killed")}
    for folder in folders.values():
        _write_scalar_run(folder, "run-a")
    servers = _servers(tmp_path, folders)
    try:
        pids = {how: server.opened()[0] for how, server in servers.items()}
        assert pids["exit"] != pids["killed"]                    # two folders, two boards
        servers["exit"].send("exit")
        assert servers["exit"].proc.wait(timeout=60) == 0
        wait_until(lambda: _gone(pids["exit"]), timeout=30)
        assert not _gone(pids["killed"])
        servers["killed"].proc.send_signal(signal.SIGKILL)
        servers["killed"].proc.wait(timeout=30)
        wait_until(lambda: _gone(pids["killed"]), timeout=30)
        assert not (folders["killed"] / STATE_NAME).exists()
    finally:
        for server in servers.values():
            server.end()


def test_servers_opening_at_once_share_one_tensorboard_that_ends_with_the_last(
        tmp_path) -> None:
    """Two server processes open TensorBoard for one folder at the same moment: exactly one
    TensorBoard starts and both get its URL; it outlives the server that started it while
    the other uses it, and ends when that one is killed."""
    import signal

    root = tmp_path / "runs"
    _write_scalar_run(root, "run-a")
    servers = _servers(tmp_path, {"a": root, "b": root})
    try:
        got = {name: server.opened() for name, server in servers.items()}
        (pid, url, _), (pid_b, url_b, _) = got["a"], got["b"]
        assert (pid, url) == (pid_b, url_b)                      # both got the same one
        assert sorted(reused for _, _, reused in got.values()) == [False, True]
        assert _boards(root.resolve()) == [pid]                  # and only one runs
        assert fetch_json(f"{url}/data/logdir", timeout=ANSWER_S) == \
            {"logdir": str(root.resolve() / ".tensorboard-runs")}
        starter = next(name for name, (_, _, reused) in got.items() if not reused)
        other = "b" if starter == "a" else "a"
        servers[starter].send("exit")                            # its starter leaves
        assert servers[starter].proc.wait(timeout=60) == 0
        assert not _gone(pid) and fetch_json(f"{url}/data/logdir", timeout=ANSWER_S) == \
            {"logdir": str(root.resolve() / ".tensorboard-runs")}
        servers[other].proc.send_signal(signal.SIGKILL)          # the last user dies
        servers[other].proc.wait(timeout=30)
        wait_until(lambda: _gone(pid), timeout=30)
        assert _boards(root.resolve()) == [] and not (root / STATE_NAME).exists()
        assert fetch_json(f"{url}/data/logdir", timeout=1) is None
    finally:
        for server in servers.values():
            server.end()
