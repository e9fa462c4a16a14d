"""The class setup across two process groups, as on two hosts (issue 27): one group runs
only a server process (``python -m ui.serve backends``, "the other host"), the other runs
a server process and HAProxy in front of both (``python -m ui.serve class --also``); both
share one workspace folder. Two browsers reach one address; HAProxy's cookie gives each a
different process.

A run started in the first browser is watched live from the second; the second's own run
waits in the queue (one worker for the whole class, across processes), starts when the
second stops the first run, and the first run is then deleted from the second browser,
which the first browser's page follows without a click. Waits are for states only."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.browser.waits import SELECTBOX_TEXT_JS
from tests.browser.conftest import (PROBE_JS, TIMEOUT_MS, _kill_workers, choose_option,
                                    click_and_wait, click_button, fill_and_wait, is_local,
                                    select_tab, settle)
from tests.browser.test_train_browser import TRAINING_S, wait_logged
from tests.conftest import ROOT
from tfcore.training.cluster import free_ports
from ui.common.i18n import catalog
from ui.serve import COOKIE, find_haproxy

EN = catalog("en")
START_S = 300.0
pytestmark = pytest.mark.class_browser         # in make test; alone: make test-class
PICKER_JS = SELECTBOX_TEXT_JS


def _start(argv: list[str], env: dict, log: Path) -> subprocess.Popen:
    with open(log, "wb") as sink:
        proc = subprocess.Popen([sys.executable, "-m", "ui.serve", *argv], cwd=ROOT, env=env,
                                stdout=sink, stderr=subprocess.STDOUT,
                                start_new_session=True)
    deadline = time.monotonic() + START_S
    while "READY" not in log.read_text(errors="replace"):
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise RuntimeError(f"{argv[0]} did not start:\n{log.read_text(errors='replace')}")
        time.sleep(0.2)                    # polls a state (the READY line)
    return proc


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


@pytest.fixture(scope="module")
def classroom(tmp_path_factory):
    """Two process groups on loopback over one workspace; yields (proxy URL, workspace)."""
    if find_haproxy() is None:
        pytest.fail("haproxy is missing: apt-get install haproxy (make test does it as root)")
    folder = tmp_path_factory.mktemp("class")
    workspace = folder / "ws"
    env = dict(os.environ, TFLAB_WORKSPACE=str(workspace), TFLAB_MAX_WORKERS="1",
               TFLAB_WARM_WORKER="1", PYTHONUNBUFFERED="1",
               TMPDIR=str(folder),               # the groups' server logs land here too
               STREAMLIT_SERVER_COOKIE_SECRET=uuid.uuid4().hex * 2)   # as on two hosts
    other, proxy_port = free_ports(2)
    groups = []
    try:
        groups.append(_start(["backends", "--host", "127.0.0.1", "--first-port", str(other),
                              "--processes", "1", "--public-address", "127.0.0.1"],
                             env, folder / "other-host.log"))
        groups.append(_start(["class", "--host", "127.0.0.1", "--port", str(proxy_port),
                              "--processes", "1", "--also", f"127.0.0.1:{other}"],
                             env, folder / "proxy-host.log"))
        yield f"http://127.0.0.1:{proxy_port}", workspace
    finally:
        for proc in reversed(groups):
            _stop(proc)
        _kill_workers(workspace)


def _tab(browser, url: str, server: str, foreign: list):
    """A browser of its own, pinned by HAProxy's cookie to the process ``server``."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.on("request", lambda r: None if is_local(r.url) else foreign.append(r.url))
    context.add_cookies([{"name": COOKIE, "value": server, "url": url}])
    context.add_init_script(f"({PROBE_JS})()")
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.set_default_navigation_timeout(TIMEOUT_MS)
    return context, page


def _diagnosis(page, workspace: Path) -> str:
    """What a failure needs to be understood (it failed only on a slower CI machine):
    the page's URL, its form, its process cookie, the runs and the servers' logs."""
    lines = [f"page URL: {page.url}"]
    for label in (EN["train.epochs"], EN["train.run_name"]):
        try:
            value = page.get_by_label(label, exact=True).first.input_value(timeout=5000)
        except PlaywrightError as exc:           # not shown, or the page is gone
            value = f"(not read: {str(exc).splitlines()[0][:80]})"
        lines.append(f"form {label!r}: {value!r}")
    lines.append("cookies: " + ", ".join(f"{c['name']}={c['value']}"
                                         for c in page.context.cookies()))
    for run in sorted((workspace / "runs").glob("*/run.json")):
        try:
            record = json.loads(run.read_text())
            status = json.loads((run.parent / "status.json").read_text())
        except (OSError, ValueError):
            continue
        lines.append(f"run {record.get('name')!r}: epochs "
                     f"{record.get('training', {}).get('epochs')}, {status.get('state')}")
    for log in sorted(workspace.parent.rglob("*.log")):     # the class folder's logs
        tail = log.read_text(errors="replace").splitlines()[-15:]
        lines += [f"--- {log.name}", *tail]
    return "\n".join(lines)


def _picker(page) -> str:
    return page.evaluate(PICKER_JS, EN["train.watch"])


def _wait_picker(page, text: str, absent: str | None = None,
                 workspace: Path | None = None) -> None:
    script = ("([l, t, a]) => { const s = (" + PICKER_JS + ")(l); "
              "return s.includes(t) && !(a && s.includes(a)); }")
    try:
        page.wait_for_function(script, arg=[EN["train.watch"], text, absent],
                               timeout=TRAINING_S)
    except PlaywrightTimeout:
        found = f"the run picker shows {_picker(page)!r}, not {text!r}"
        if workspace is not None:
            found += "\n" + _diagnosis(page, workspace)
        raise AssertionError(found) from None


def _runs(workspace: Path) -> dict[str, dict]:
    """Run name -> its status.json, read from the shared workspace."""
    found = {}
    for run in (workspace / "runs").iterdir():
        try:
            name = json.loads((run / "run.json").read_text())["name"]
            found[name] = json.loads((run / "status.json").read_text())
        except (OSError, ValueError, KeyError):
            continue
    return found


def _wait_state(workspace: Path, name: str, state: str) -> dict:
    deadline = time.monotonic() + TRAINING_S / 1000
    while time.monotonic() < deadline:
        status = _runs(workspace).get(name, {})
        if status.get("state") == state:
            return status
        time.sleep(0.2)                    # polls the run's state file
    raise AssertionError(f"{name} is {_runs(workspace).get(name)}, not {state}")


def _stop_active(workspace: Path) -> None:
    """Stop what an earlier attempt left training (its runs hold the one worker slot)."""
    from tfcore.training import stop_run

    for name, status in _runs(workspace).items():
        if status.get("state") in ("running", "queued", "stopping"):
            run_id = next(p.name for p in (workspace / "runs").iterdir()
                          if (p / "run.json").exists()
                          and json.loads((p / "run.json").read_text()).get("name") == name)
            stop_run(workspace / "runs", run_id)
    for name in list(_runs(workspace)):
        _wait_state_any(workspace, name)


def _wait_state_any(workspace: Path, name: str) -> None:
    deadline = time.monotonic() + TRAINING_S / 1000
    while _runs(workspace).get(name, {}).get("state") in ("running", "queued", "stopping"):
        assert time.monotonic() < deadline, f"{name} did not stop"
        time.sleep(0.2)                    # polls the run's state file


def test_a_fresh_browser_is_given_one_of_the_hosts_processes(classroom) -> None:
    url, _ = classroom
    given = set()
    for _ in range(4):
        with urllib.request.urlopen(f"{url}/", timeout=60) as reply:
            cookies = [v for k, v in reply.headers.items() if k.lower() == "set-cookie"]
        given |= {c.split(";")[0].split("=", 1)[1] for c in cookies
                  if c.startswith(f"{COOKIE}=")}
    assert given == {"s0", "h0"}


def test_a_run_started_on_one_process_is_watched_stopped_and_deleted_from_the_other(
        classroom, browser, tmp_path: Path) -> None:
    url, workspace = classroom
    _stop_active(workspace)                # a rerun starts with the worker slot free
    tag = uuid.uuid4().hex[:6]             # and with names of its own
    from_a, from_b = f"from_a_{tag}", f"from_b_{tag}"
    foreign: list[str] = []
    ctx_a, a = _tab(browser, url, "s0", foreign)       # the proxy host's process
    ctx_b, b = _tab(browser, url, "h0", foreign)       # "the other host's" process
    try:
        a.goto(f"{url}/train?lang=en&epochs=300&pace=20&name={from_a}")
        settle(a, EN["train.title"])
        click_and_wait(a, a.get_by_role("button", name=EN["train.start"]).first,
                       expect=a.get_by_role("button", name=EN["train.stop"], disabled=False))
        _wait_state(workspace, from_a, "running")

        # B watches A's run live: its logged steps grow without a click
        b.goto(f"{url}/train?lang=en&epochs=300&pace=20&name={from_b}")
        settle(b, EN["train.title"])
        _wait_picker(b, f"{from_a} · {EN['state.running']} · ", workspace=workspace)
        first = wait_logged(b, 0)
        assert wait_logged(b, first + 5) > first + 5

        # B's own run waits: one worker for the class, whichever process starts a run
        click_button(b, EN["train.start"])
        _wait_picker(b, f"{from_b} · {EN['state.queued']} · ", workspace=workspace)
        assert _runs(workspace)[from_a]["state"] == "running"
        assert _runs(workspace)[from_b]["queue_position"] == 1

        # B stops A's run; B's run then starts
        choose_option(b, EN["train.watch"], from_a, exact=False,
                      expect=b.get_by_role("button", name=EN["train.stop"], disabled=False))
        click_button(b, EN["train.stop"])
        _wait_state(workspace, from_a, "stopped")
        _wait_state(workspace, from_b, "running")
        _wait_picker(a, f"{from_a} · {EN['state.stopped']} · ", workspace=workspace)     # A follows, no click

        # B deletes A's run on the Runs page; A's run picker drops it by itself
        b.goto(f"{url}/runs?lang=en")
        settle(b, EN["runs.title"])
        fill_and_wait(b, b.get_by_label(EN["runs.filter.text"]), from_a,
                      expect=b.get_by_role("tab", name=EN["runs.tab.manage"], exact=True).first)
        panel = select_tab(b, EN["runs.tab.manage"])
        confirm = EN["runs.manage.confirm"].format(name=from_a)
        click_and_wait(b, panel.get_by_text(confirm, exact=True).first,
                       expect=panel.get_by_role("button", name=EN["runs.manage.delete"],
                                                disabled=False))
        click_button(b, EN["runs.manage.delete"], scope=panel,
                     expect=EN["runs.manage.deleted"].format(name=from_a))   # above the list
        assert from_a not in _runs(workspace)
        _wait_picker(a, f"{from_b} · {EN['state.running']} · ", absent=from_a,
                     workspace=workspace)
        a.screenshot(path=str(tmp_path / "a-after-delete.png"), full_page=True)
        for context in (ctx_a, ctx_b):          # each browser stayed with its process
            [cookie] = [c["value"] for c in context.cookies() if c["name"] == COOKIE]
            assert cookie in ("s0", "h0")
        assert {c["value"] for ctx in (ctx_a, ctx_b) for c in ctx.cookies()
                if c["name"] == COOKIE} == {"s0", "h0"}
    finally:
        ctx_a.close()
        ctx_b.close()
    assert not foreign, f"requests outside this machine: {sorted(set(foreign))}"
