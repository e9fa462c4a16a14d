"""``bench_live.py --browser``: click the Train page's "Train" button -> the first point on
the live chart, cold vs warm dashboards, in headless chromium. The method is described in
``bench_live.py``'s docstring; this module holds the servers, the warm-worker probe, one
trial and the summary."""

from __future__ import annotations

import argparse
import array
import fcntl
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import termios
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sessions_setup import wait_healthy  # noqa: E402 - bench/ is on sys.path

HOST = "127.0.0.1"
CHROMIUM = os.environ.get("TFLAB_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--no-first-run", "--disable-background-networking"]
READY = b"ready\n"          # what a warm worker prints once warmed up (tfcore.training.warm)

IDLE_JS = """() => {
  const app = document.querySelector("[data-testid='stApp']");
  return !!app && app.getAttribute('data-test-script-state') === 'notRunning'
    && !document.querySelector("[data-testid='stStatusWidget']");
}"""

# Stamps (browser wall clock, ms) the click on the page and the first moment the live
# panel shows a point: the caption "N logged training steps" and a drawn chart (vega-lite
# draws into a canvas or, as Streamlit 1.67 does here, an SVG).
SHOWN_JS = """() => [...document.querySelectorAll("[data-testid='stCaptionContainer']")]
    .some(el => /^\\d+ logged training steps/.test(el.innerText.trim())
                && !el.closest("[data-stale='true']"))
  && !!document.querySelector(
    "[data-testid='stVegaLiteChart'] canvas, [data-testid='stVegaLiteChart'] svg.marks")"""
STAMP_JS = """() => {
  const b = window.__bench;
  if (b.clickAt && !b.visibleAt && (SHOWN)()) b.visibleAt = Date.now();
  return b.visibleAt > 0;
}""".replace("SHOWN", SHOWN_JS)
INSTALL_JS = """() => {
  window.__bench = {clickAt: 0, visibleAt: 0};
  document.addEventListener('click', () => {
    if (!window.__bench.clickAt) window.__bench.clickAt = Date.now(); }, true);
  new MutationObserver(STAMP).observe(document.body,
    {subtree: true, childList: true, characterData: true, attributes: true});
}""".replace("STAMP", STAMP_JS)


@dataclass
class Server:
    """One dashboard (``streamlit run app.py``) with its own workspace."""

    mode: str                 # "cold" | "warm"
    workspace: Path
    port: int
    proc: subprocess.Popen
    log: Path

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    @property
    def runs(self) -> Path:
        return self.workspace / "runs"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def start_server(mode: str, base: Path) -> Server:
    """A dashboard on a free port with a fresh workspace; returns once it answers."""
    workspace = base / mode
    workspace.mkdir()
    port, log = _free_port(), base / f"{mode}-streamlit.log"
    env = dict(os.environ, TFLAB_WORKSPACE=str(workspace), PYTHONPATH=str(ROOT),
               TFLAB_WARM_WORKER="1" if mode == "warm" else "0")
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "app.py", "--server.address", HOST,
             "--server.port", str(port), "--server.headless", "true",
             "--server.fileWatcherType", "none", "--browser.gatherUsageStats", "false"],
            cwd=str(ROOT), env=env, stdout=out, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, start_new_session=True)
    server = Server(mode, workspace, port, proc, log)
    try:
        wait_healthy(port, proc, timeout=180)
    except SystemExit as exc:
        raise RuntimeError(f"{mode} server: {exc}\n{log.read_text(errors='replace')}") from None
    return server


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _parent(pid: int) -> int:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        return int(stat[stat.rindex(")") + 2:].split()[1])
    except (OSError, ValueError, IndexError):
        return -1


def warm_workers(server: Server) -> list[int]:
    """The server's warm workers (idle or warming up): its ``tfcore.training.warm`` children."""
    return [int(e.name) for e in Path("/proc").iterdir() if e.name.isdigit()
            and _parent(int(e.name)) == server.proc.pid
            and "tfcore.training.warm" in _cmdline(int(e.name))]


def is_warmed_up(pid: int) -> bool:
    """Whether warm worker ``pid`` printed ``ready``: its stdout pipe holds those bytes
    unread (the server reads them only when asked). Read-only: FIONREAD takes nothing."""
    try:
        if not os.readlink(f"/proc/{pid}/fd/1").startswith("pipe:"):
            return False
        fd = os.open(f"/proc/{pid}/fd/1", os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return False
    try:
        unread = array.array("i", [0])
        fcntl.ioctl(fd, termios.FIONREAD, unread)
        return unread[0] >= len(READY)
    finally:
        os.close(fd)


def wait_warm(server: Server, need_one: bool, limit: float) -> bool:
    """Wait until every warm worker of ``server`` has warmed up (and, with ``need_one``,
    at least one exists), at most ``limit`` seconds; whether that state came."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        pids = warm_workers(server)
        if (pids or not need_one) and all(is_warmed_up(p) for p in pids):
            return True
        time.sleep(0.1)
    return False


def _read_json(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _first_line_time(path: Path) -> float | None:
    try:
        first = path.read_text(encoding="utf-8").split("\n", 1)[0]
        return float(json.loads(first)["time"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def browser_trial(browser, server: Server, args: argparse.Namespace,
                  others: list[Server]) -> dict:
    """One click -> first point on ``server``; returns the times (s) and the start path."""
    from tfcore.errors import RunError
    from tfcore.runs import delete_run
    from tfcore.training import jobs

    timeout_ms = args.timeout * 1000
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        page = context.new_page()
        page.set_default_timeout(timeout_ms)
        page.goto(f"{server.url}/train?lang=en&loop={args.loop}")
        button = page.get_by_role("button", name="Train", exact=True).first
        button.wait_for(state="visible")
        page.wait_for_function(IDLE_JS, polling=50)
        waits = [wait_warm(s, need_one=s is server and s.mode == "warm",
                           limit=args.warm_wait) for s in others]      # each one, in turn
        quiet = all(waits)
        page.wait_for_function(IDLE_JS, polling=50)
        page.evaluate(INSTALL_JS)
        button.click()
        page.wait_for_function(STAMP_JS, polling=50, timeout=timeout_ms)
        stamps = page.evaluate("() => window.__bench")
    finally:
        context.close()
    run_ids = [p.name for p in server.runs.iterdir() if p.is_dir()]
    assert len(run_ids) == 1, f"one run expected in {server.runs}: {run_ids}"
    run_id = run_ids[0]
    status = _read_json(server.runs / run_id / "status.json")
    first = _first_line_time(server.runs / run_id / "metrics.jsonl")
    try:
        jobs.stop_run(server.runs, run_id)
    except RunError:
        pass                                  # it had already ended (a short default run)
    jobs.wait_for(server.runs, run_id, timeout=args.timeout)
    delete_run(server.runs, run_id)
    click, shown = stamps["clickAt"] / 1000, stamps["visibleAt"] / 1000
    queued = float(status.get("queued_at") or "nan")
    first = float("nan") if first is None else first
    return {"visible": shown - click, "queued": queued - click, "first": first - queued,
            "drawn": shown - first, "start": status.get("start", "?"), "quiet": quiet}


def _kill_group(pid: int, sig: int) -> None:
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def stop_server(server: Server) -> None:
    """Stop the server's process group, its warm workers and its runs' workers (each in
    its own session, so not in the server's group)."""
    pids = set(warm_workers(server))
    if server.runs.is_dir():
        for status in server.runs.glob("*/status.json"):
            pid = int(_read_json(status).get("pid") or 0)
            if pid > 0 and "tfcore.training" in _cmdline(pid):
                pids.add(pid)
    _kill_group(server.proc.pid, signal.SIGTERM)
    try:
        server.proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        pass
    _kill_group(server.proc.pid, signal.SIGKILL)
    server.proc.wait()
    for pid in pids:
        _kill_group(pid, signal.SIGKILL)


def _line(trial: int, mode: str, r: dict) -> str:
    flags = "" if r["quiet"] else "  (a warm worker was still warming up)"
    if mode == "warm" and r["start"] != "warm":
        flags += f"  (started {r['start']}, not warm)"
    return (f"trial {trial} {mode}: click -> visible {r['visible']:6.2f} s = click -> queued "
            f"{r['queued']:5.2f} + queued -> first line {r['first']:5.2f} + first line -> "
            f"visible {r['drawn']:5.2f}{flags}")


def browser_bench(args: argparse.Namespace) -> None:
    """Click "Train" -> first point visible, cold vs warm dashboards, in chromium."""
    from playwright.sync_api import sync_playwright

    def _terminate(signum, frame):
        raise SystemExit(f"stopped by signal {signum}")

    signal.signal(signal.SIGTERM, _terminate)
    results: dict[str, list[dict]] = {"cold": [], "warm": []}
    servers: list[Server] = []
    with tempfile.TemporaryDirectory(prefix="tflab-bench-live-") as tmp:
        try:
            for mode in ("cold", "warm"):
                servers.append(start_server(mode, Path(tmp)))
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                             args=CHROMIUM_ARGS)
                try:
                    for trial in range(1, args.trials + 1):
                        for server in servers:
                            result = browser_trial(browser, server, args, servers)
                            results[server.mode].append(result)
                            print(_line(trial, server.mode, result), flush=True)
                finally:
                    browser.close()
        except BaseException:
            for server in servers:
                tail = server.log.read_text(errors="replace")[-2000:]
                print(f"--- {server.mode} server log (end) ---\n{tail}", file=sys.stderr)
            raise
        finally:
            for server in servers:
                stop_server(server)

    def med(mode: str, part: str) -> float:
        return statistics.median(r[part] for r in results[mode])

    cold, warm = med("cold", "visible"), med("warm", "visible")
    print(f"median click Train -> first point visible (browser, {args.loop} loop, mlp on "
          f"digits28): cold {cold:.2f} s, warm {warm:.2f} s, warm/cold {warm / cold:.2f}")
    for part, name in (("queued", "click -> queued"), ("first", "queued -> first line"),
                       ("drawn", "first line -> visible")):
        print(f"  median {name}: cold {med('cold', part):.2f} s, "
              f"warm {med('warm', part):.2f} s")
