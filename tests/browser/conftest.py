"""Browser tests: a real ``streamlit run`` on a free local port, driven by headless chromium.

The fixtures start the server (always stopped afterwards, with its process group and the
training workers it started), chromium, and a fresh page per test with the script-run
probe of ``tests.browser.waits``. Tests wait for states, never for times: see that module
(its helpers are re-exported here).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Sequence
from urllib.parse import urlparse

import pytest

from tests.browser.waits import (  # noqa: F401 - re-exported for the tests
    CHART,
    IDLE_JS,
    LOST_CLICK_MS,
    PROBE_JS,
    TIMEOUT_MS,
    act_and_wait,
    chart_picture,
    choose_option,
    click_and_wait,
    click_button,
    fill_and_wait,
    select_tab,
    settle,
    wait_charts_drawn,
    wait_for_app,
    wait_idle,
)
from tests.browser.choices import click_chip, pick_option  # noqa: F401 - re-exported
from tests.conftest import ROOT
from tfcore.training.cluster import free_ports

# The browser: `make test CHROMIUM=/path/to/chromium` (the Makefile exports CHROMIUM).
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic",
    "--no-first-run", "--disable-background-networking", "--disable-component-update",
    "--disable-sync",
]
SERVER_START_S = 180


# --- the app server and the browser ----------------------------------------------------

PORT_TRIES = 3
WELCOME = "You can now view your Streamlit app"      # printed once the server bound its port
PORT_TAKEN = "is not available"                     # streamlit's exit when the port is taken


def _server_state(proc: subprocess.Popen, log: Path) -> str:
    """``"bound"`` once the server printed its URL, ``"clash"`` when it exited because its
    port was taken meanwhile, ``"failed"`` on another exit, ``""`` while it starts."""
    text = log.read_text(errors="replace")
    if proc.poll() is not None:
        return "clash" if PORT_TAKEN in text else "failed"
    return "bound" if WELCOME in text else ""


def _wait_healthy(url: str, proc: subprocess.Popen, log: Path) -> bool:
    """Poll until our server bound its port and its health endpoint answers 200 (states,
    not delays); False when it lost its port to another process (start it again)."""
    deadline = time.monotonic() + SERVER_START_S
    while time.monotonic() < deadline:
        state = _server_state(proc, log)
        if state == "clash":
            return False
        if state == "failed":
            raise RuntimeError(f"streamlit exited early:\n{log.read_text()}")
        if state == "bound":                     # the port is ours: its answers are ours
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as resp:
                    if resp.status == 200:
                        return True
            except OSError:
                pass
        time.sleep(0.5)  # poll interval of a state check, not a wait for the app
    raise RuntimeError(f"streamlit did not start in {SERVER_START_S} s:\n{log.read_text()}")


def _stop_group(proc: subprocess.Popen) -> None:
    """Stop the server and everything in its process group (timing workers, ...)."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)   # stragglers of the group, if any
    except ProcessLookupError:
        pass
    proc.wait()


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _session_workers(workspace: Path) -> set[int]:
    """Training workers this test session started: they run in their own sessions (so a
    server restart does not kill them) and would outlive the server. Found by the pid in
    a run's status.json, or by a command line naming the session's workspace."""
    pids = set()
    for status in workspace.glob("runs/*/status.json"):
        try:
            pid = int(json.loads(status.read_text()).get("pid") or 0)
        except (OSError, ValueError, TypeError, AttributeError):
            continue
        if pid > 0 and "tfcore.training" in _cmdline(pid):
            pids.add(pid)
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            line = _cmdline(int(entry.name))
            if "tfcore.training" in line and str(workspace) in line:
                pids.add(int(entry.name))
    pids.discard(os.getpid())
    return pids


def _kill_workers(workspace: Path) -> None:
    for pid in _session_workers(workspace):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


@contextmanager
def dashboard(workspace: Path, log: Path, args: Sequence[str] = (),
              **env: str) -> Iterator[str]:
    """Run ``streamlit run app.py`` on a free loopback port over ``workspace`` (extra
    Streamlit options ``args``, extra environment ``env``), yield its base URL once
    healthy; the server, its process group and the training workers it started are always
    stopped afterwards."""
    env = dict(os.environ, TFLAB_WORKSPACE=str(workspace), PYTHONUNBUFFERED="1", **env)
    for _ in range(PORT_TRIES):
        [port] = free_ports(1)     # outside the ephemeral range, reserved on this machine
        with open(log, "w") as out:
            proc = subprocess.Popen(
                [sys.executable, "-m", "streamlit", "run", "app.py",
                 "--server.address", "127.0.0.1", "--server.port", str(port),
                 "--server.headless", "true", "--server.fileWatcherType", "none",
                 "--server.runOnSave", "false", "--browser.gatherUsageStats", "false",
                 "--logger.hideWelcomeMessage", "false", *args],
                cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, start_new_session=True,
            )
        try:
            url = f"http://127.0.0.1:{port}"
            if _wait_healthy(url, proc, log):
                yield url
                return
        finally:
            _stop_group(proc)
            _kill_workers(workspace)
    raise RuntimeError(f"streamlit lost its port {PORT_TRIES} times:\n{log.read_text()}")


@pytest.fixture(autouse=True)
def each_test_workspace(session_workspace: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Browser tests talk to one server: its workspace, the session's, is every test's."""
    monkeypatch.setenv("TFLAB_WORKSPACE", str(session_workspace))
    return session_workspace


# A browser test drives a real server and chromium on a machine that may be busy with other
# work; a failure there is run once more (pytest-rerunfailures) and still reported: the
# summary counts reruns ("R" in the progress line, RERUN lines with -rR), so a test that
# fails twice fails the suite and a test that needed its second run stays visible.
BROWSER_RERUNS = 1
_BROWSER_DIR = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config: pytest.Config, items: list) -> None:
    """Mark every browser test (not the others) for one rerun, unless it says otherwise."""
    if not config.pluginmanager.hasplugin("rerunfailures"):
        return
    for item in items:
        if _BROWSER_DIR in Path(str(item.fspath)).resolve().parents \
                and item.get_closest_marker("flaky") is None:
            item.add_marker(pytest.mark.flaky(reruns=BROWSER_RERUNS))


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory, session_workspace: Path) -> Iterator[str]:
    """Start the dashboard once for all browser tests; yield its base URL."""
    log = tmp_path_factory.mktemp("server") / "streamlit.log"
    with dashboard(session_workspace, log, TFLAB_WARM_WORKER="1") as url:
        yield url


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: apt-get install chromium (make test does it as root)")
    with sync_playwright() as pw:   # leaving the block stops the driver and its chromium
        chromium = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                      args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


LOOPBACK = {"127.0.0.1", "localhost", "::1", "[::1]"}


def is_local(url: str) -> bool:
    """A request this machine answers itself (the server, or data the page holds)."""
    parsed = urlparse(url)
    return parsed.scheme in ("data", "blob", "about") or parsed.hostname in LOOPBACK


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Keep each phase's report on the test item: the page fixture reads whether the test
    failed (a screenshot is taken only then)."""
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"report_{report.when}", report)


@pytest.fixture()
def page(browser, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[object]:
    """A fresh page with the run probe. Every browser test also checks that the app works
    offline: a request for anything but this machine (a CDN, a font service, a tracker)
    fails the test that made it. On failure a screenshot is left in the test's temp folder."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    foreign: list[str] = []
    context.on("request", lambda req: None if is_local(req.url) else foreign.append(req.url))
    try:
        context.add_init_script(f"({PROBE_JS})()")
        pg = context.new_page()
        pg.set_default_timeout(TIMEOUT_MS)
        pg.set_default_navigation_timeout(TIMEOUT_MS)
        yield pg
        report = getattr(request.node, "report_call", None)
        if report is None or report.failed:
            try:
                pg.screenshot(path=str(tmp_path / "last.png"), full_page=True)
            except Exception:  # noqa: BLE001 - a screenshot is a courtesy, never a failure
                pass
    finally:
        context.close()
    assert not foreign, f"requests outside this machine: {sorted(set(foreign))}"
