"""The class setup (issue 27): HAProxy's configuration, the settings every process reads,
the notes windows' record in the workspace, and a real start and stop of
``python -m ui.serve class`` that leaves no process behind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tfcore import settings
from tfcore.lessons import PAIR_TTL, pair_step, prune_pairs, publish_pair
from tfcore.lessons.pairs import pairs_dir
from tfcore.workspace import Workspace
from ui.serve import COOKIE, find_haproxy, haproxy_config
from ui.serve.classroom import COOKIE_SECRET, ClassServer, free_port, main

HAPROXY = find_haproxy()


def _haproxy() -> str:
    if HAPROXY is None:
        pytest.fail("haproxy is missing: apt-get install haproxy (make test does it as root)")
    return HAPROXY


# ------------------------------------------------------------------ the proxy's file


def test_the_config_pins_each_browser_to_one_process_and_haproxy_accepts_it(tmp_path) -> None:
    text = haproxy_config("0.0.0.0", 8501, [("s0", "127.0.0.1", 9001),
                                             ("s1", "127.0.0.1", 9002),
                                             ("h0", "10.0.0.7", 9001)])
    lines = [line.strip() for line in text.splitlines()]
    assert "bind 0.0.0.0:8501" in lines
    assert f"cookie {COOKIE} insert indirect nocache httponly" in lines
    assert "option httpchk GET /_stcore/health" in lines
    servers = [line.split()[1:5] for line in lines if line.startswith("server ")]
    assert servers == [["s0", "127.0.0.1:9001", "cookie", "s0"],
                       ["s1", "127.0.0.1:9002", "cookie", "s1"],
                       ["h0", "10.0.0.7:9001", "cookie", "h0"]]
    config = tmp_path / "haproxy.cfg"
    config.write_text(text)
    check = subprocess.run([_haproxy(), "-c", "-f", str(config)], capture_output=True,
                           text=True, timeout=60)
    assert check.returncode == 0, check.stdout + check.stderr


@pytest.mark.parametrize("backends", [
    [], [("s 0", "127.0.0.1", 9001)], [("s0", "127.0.0.1\nbind *:80", 9001)],
    [("s0", "127.0.0.1", 0)], [("s0", "127.0.0.1", 70000)]])
def test_the_config_refuses_what_cannot_go_in_the_file(backends) -> None:
    with pytest.raises(ValueError):
        haproxy_config("127.0.0.1", 8501, backends)


def test_ipv6_addresses_are_bracketed() -> None:
    text = haproxy_config("::", 8501, [("s0", "::1", 9001)])
    assert "bind [::]:8501" in text and "server s0 [::1]:9001 cookie s0" in text


# ------------------------------------------------------------------ settings


def test_the_public_address_and_the_process_count_are_settings(monkeypatch) -> None:
    monkeypatch.delenv("TFLAB_PUBLIC_ADDRESS", raising=False)
    monkeypatch.delenv("TFLAB_CLASS_PROCESSES", raising=False)
    assert settings.public_address() is None
    assert settings.class_processes() == (os.cpu_count() or 1)
    monkeypatch.setenv("TFLAB_PUBLIC_ADDRESS", "0.0.0.0")
    monkeypatch.setenv("TFLAB_CLASS_PROCESSES", "3")
    assert settings.public_address() == "0.0.0.0"
    assert settings.class_processes() == 3
    monkeypatch.setenv("TFLAB_CLASS_PROCESSES", "0")
    with pytest.raises(settings.SettingError) as caught:
        settings.class_processes()
    assert caught.value.params["name"] == "TFLAB_CLASS_PROCESSES"


def test_every_host_signs_cookies_with_the_secret_it_is_given(monkeypatch, tmp_path) -> None:
    monkeypatch.delenv(COOKIE_SECRET, raising=False)
    one, two = ClassServer(folder=tmp_path), ClassServer(folder=tmp_path)
    assert len(one.secret) == 64 and one.secret != two.secret      # one per group
    assert one._env()[COOKIE_SECRET] == one._env()[COOKIE_SECRET] == one.secret
    monkeypatch.setenv(COOKIE_SECRET, "s" * 40)                     # shared by the hosts
    assert ClassServer(folder=tmp_path)._env()[COOKIE_SECRET] == "s" * 40


def test_without_haproxy_the_class_setup_says_how_to_install_it_and_starts_nothing(
        monkeypatch, capsys) -> None:
    monkeypatch.setattr("ui.serve.classroom.find_haproxy", lambda: None)
    assert main(["class", "--host", "127.0.0.1", "--port", "8599", "--processes", "1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: HAProxy is not installed") and "apt-get install haproxy" in err


@pytest.mark.parametrize("argv", [["class", "--processes", "0"], ["class", "--port", "99999"],
                                  ["class", "--also", "nohost"], ["backends", "--host", "x"]])
def test_bad_arguments_are_refused_by_the_parser(argv, capsys) -> None:
    with pytest.raises(SystemExit) as caught:
        main(argv)
    assert caught.value.code == 2
    assert "error:" in capsys.readouterr().err


# ------------------------------------------------------------------ notes windows


def test_a_notes_window_follows_a_window_served_by_another_process(tmp_path) -> None:
    workspace = Workspace(tmp_path).ensure()
    pair = "Abc_def-123"
    code = ("import sys; from tfcore.lessons import publish_pair; "
            "from pathlib import Path; from tfcore.workspace import Workspace; "
            f"publish_pair(Workspace(Path(sys.argv[1])), {pair!r}, 'handbook', 4)")
    subprocess.run([sys.executable, "-c", code, str(tmp_path)], cwd=ROOT, check=True,
                   timeout=120)
    assert pair_step(workspace, pair) == ("handbook", 4)
    path = pairs_dir(workspace) / f"{pair}.json"
    stamp = path.stat().st_mtime_ns
    publish_pair(workspace, pair, "handbook", 4)          # unchanged: not written again
    assert path.stat().st_mtime_ns == stamp
    publish_pair(workspace, pair, "handbook", 5)
    assert pair_step(workspace, pair) == ("handbook", 5)
    assert pair_step(workspace, "unknown-window") is None


@pytest.mark.parametrize("content", [b"", b"{", b"[1]", b'{"lesson": "handbook"}',
                                     b'{"lesson": "../x", "step": 1}',
                                     b'{"lesson": "handbook", "step": true}',
                                     b'{"lesson": "handbook", "step": 0}',
                                     b'{"lesson": "handbook", "step": 1, "x": 2}',
                                     b"\xff\xfe", b" " * 5000])
def test_a_damaged_record_means_no_such_window(tmp_path, content: bytes) -> None:
    workspace = Workspace(tmp_path).ensure()
    pairs_dir(workspace).mkdir(parents=True)
    (pairs_dir(workspace) / "window01.json").write_bytes(content)
    assert pair_step(workspace, "window01") is None


@pytest.mark.parametrize("pair", ["../escape", "a/b", "", "x" * 65, None, "short"])
def test_a_pair_id_that_is_not_one_is_neither_written_nor_read(tmp_path, pair) -> None:
    workspace = Workspace(tmp_path).ensure()
    publish_pair(workspace, pair, "handbook", 1)
    assert not pairs_dir(workspace).exists() or not list(pairs_dir(workspace).iterdir())
    assert pair_step(workspace, pair) is None


def test_idle_windows_are_pruned_when_a_new_one_presents(tmp_path) -> None:
    workspace = Workspace(tmp_path).ensure()
    publish_pair(workspace, "old-window", "handbook", 2)
    old = pairs_dir(workspace) / "old-window.json"
    then = time.time() - PAIR_TTL - 60
    os.utime(old, (then, then))
    publish_pair(workspace, "live-window", "builders", 1)       # a new window: prunes
    assert not old.exists()
    assert pair_step(workspace, "live-window") == ("builders", 1)
    assert prune_pairs(workspace) == 0


# ------------------------------------------------------------------ start and stop


def _descendants(root: int) -> dict[int, str]:
    """Every live process under ``root`` (pid -> command line)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(parent, []).append(int(entry.name))
    found, todo = {}, [root]
    while todo:
        for child in children.get(todo.pop(), []):
            try:
                found[child] = (Path(f"/proc/{child}/cmdline").read_bytes()
                                .replace(b"\0", b" ").decode(errors="replace"))
            except OSError:
                continue
            todo.append(child)
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def _cookie(url: str) -> str:
    with urllib.request.urlopen(url, timeout=30) as reply:
        assert reply.status == 200
        cookies = [v for k, v in reply.headers.items() if k.lower() == "set-cookie"]
    [cookie] = [c for c in cookies if c.startswith(f"{COOKIE}=")]
    return cookie.split(";")[0].split("=", 1)[1]


def test_make_class_serves_through_the_proxy_and_stops_without_leaving_a_process(
        tmp_path) -> None:
    _haproxy()
    port = free_port()
    env = dict(os.environ, TFLAB_WORKSPACE=str(tmp_path / "ws"), TFLAB_WARM_WORKER="1",
               PYTHONUNBUFFERED="1")
    log = tmp_path / "class.log"
    with open(log, "wb") as sink:
        proc = subprocess.Popen([sys.executable, "-m", "ui.serve", "class", "--host",
                                 "127.0.0.1", "--port", str(port), "--processes", "2"],
                                cwd=ROOT, env=env, stdout=sink, stderr=subprocess.STDOUT,
                                start_new_session=True)
    try:
        deadline = time.monotonic() + 300
        while "READY" not in log.read_text():
            assert proc.poll() is None, log.read_text()
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.2)            # polls a state (the READY line), not a delay
        text = log.read_text()
        assert f"TF Lab class: http://127.0.0.1:{port}/ (2 server processes" in text
        assert text.count("page home ran in") == 2 and text.count("page train ran in") == 2
        running = _descendants(proc.pid)
        servers = [p for p, line in running.items() if "streamlit run" in line]
        assert len(servers) == 2
        assert [p for p, line in running.items() if "haproxy" in line]
        for pid in servers:
            environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
            assert b"TFLAB_PUBLIC_ADDRESS=127.0.0.1" in environ
        # each new browser is given one process and stays with it
        seen = {_cookie(f"http://127.0.0.1:{port}/") for _ in range(4)}
        assert seen == {"s0", "s1"}
        request = urllib.request.Request(f"http://127.0.0.1:{port}/_stcore/health",
                                         headers={"Cookie": f"{COOKIE}=s1"})
        with urllib.request.urlopen(request, timeout=30) as reply:
            assert reply.status == 200 and reply.read() == b"ok"
        everything = _descendants(proc.pid)
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=120)
    assert code == 0, log.read_text()
    assert log.read_text().rstrip().endswith("stopped")
    left = {pid: line for pid, line in everything.items() if _alive(pid)}
    assert not left, f"still running after the class setup stopped: {left}"
    # also what started after the tree was read (a warm worker): none names the workspace
    assert not _using(str(tmp_path / "ws"))


def _using(workspace: str) -> list[str]:
    """Live processes whose environment names ``workspace``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid() and _alive(int(entry.name)):
            try:
                environ = (entry / "environ").read_bytes()
            except OSError:
                continue
            if f"TFLAB_WORKSPACE={workspace}".encode() in environ.split(b"\0"):
                found.append((entry / "cmdline").read_bytes().decode(errors="replace"))
    return found
