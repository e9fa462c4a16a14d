"""Browser tests: a real ``streamlit run`` on a free local port, driven by headless chromium."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Iterator

import pytest

from tests.conftest import ROOT

CHROMIUM = os.environ.get("TFLAB_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic",
    "--no-first-run", "--disable-background-networking", "--disable-component-update",
    "--disable-sync",
]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory, session_workspace: Path) -> Iterator[str]:
    """Start the dashboard once for all browser tests; yield its base URL."""
    port = _free_port()
    log = tmp_path_factory.mktemp("server") / "streamlit.log"
    env = dict(os.environ, TFLAB_WORKSPACE=str(session_workspace))
    with open(log, "w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "app.py",
             "--server.address", "127.0.0.1", "--server.port", str(port),
             "--server.headless", "true"],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 120
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as resp:
                if resp.status == 200:
                    break
        except OSError:
            time.sleep(0.5)
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited early:\n{log.read_text()}")
    else:
        proc.kill()
        raise RuntimeError(f"streamlit did not start:\n{log.read_text()}")
    yield url
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: apt-get install chromium (make test does it as root)")
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                      args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture()
def page(browser, tmp_path: Path) -> Iterator[object]:
    """A fresh page; on failure a screenshot is left in the test's temp folder."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = context.new_page()
    pg.set_default_timeout(60_000)
    yield pg
    try:
        pg.screenshot(path=str(tmp_path / "last.png"), full_page=True)
    finally:
        context.close()


def wait_for_app(pg, timeout: float = 90_000) -> None:
    """Wait until Streamlit has finished running the script."""
    pg.wait_for_selector("[data-testid='stApp']", timeout=timeout)
    pg.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')",
        timeout=timeout,
    )
