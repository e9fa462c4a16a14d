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
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--no-first-run", "--disable-background-networking"]
READY = b"ready\n"          # what a warm worker prints once warmed up (tfcore.training.warm)

IDLE_JS = """() => {
  const app = document.querySelector("[data-testid='stApp']");
  return !!app && app.getAttribute('data-test-script-state') === 'notRunning'
    && !document.querySelector("[data-testid='stStatusWidget']");
}"""

# Stamps (browser wall clock, ms) the click on the page and the first moment the live
# panel shows a point beyond ``window.__bench.after`` logged steps: the caption "N logged
# training steps" with N > after, and a drawn chart (vega-lite draws into a canvas or, as
# Streamlit 1.67 does here, an SVG). A start waits for N > 0, a resume for N > the count
# the stopped run showed.
POINTS_JS = """() => Math.max(-1, ...[...document.querySelectorAll(
    "[data-testid='stCaptionContainer']")]
  .filter(el => !el.closest("[data-stale='true']"))
  .map(el => /^(\\d[\\d,]*) logged training steps/.exec(el.innerText.trim()))
  .filter(m => m).map(m => parseInt(m[1].replace(/,/g, ''), 10)))"""
SHOWN_JS = """() => (POINTS)() > ((window.__bench || {}).after || 0)
  && !!document.querySelector(
    "[data-testid='stVegaLiteChart'] canvas, [data-testid='stVegaLiteChart'] svg.marks")
""".replace("POINTS", POINTS_JS)
STAMP_JS = """() => {
  const b = window.__bench;
  if (b.clickAt && !b.visibleAt && (SHOWN)()) b.visibleAt = Date.now();
  return b.visibleAt > 0;
}""".replace("SHOWN", SHOWN_JS)
INSTALL_JS = """(after) => {
  window.__bench = {clickAt: 0, visibleAt: 0, after: after};
  document.addEventListener('click', () => {
    if (!window.__bench.clickAt) window.__bench.clickAt = Date.now(); }, true);
  new MutationObserver(STAMP).observe(document.body,
    {subtree: true, childList: true, characterData: true, attributes: true});
}""".replace("STAMP", STAMP_JS)
# The stopped run's panel: Resume enabled, Stop disabled, the app idle.
STOPPED_JS = """() => {
  const named = n => [...document.querySelectorAll('button')]
    .find(b => b.innerText.trim().endsWith(n));
  const resume = named('Resume'), stop = named('Stop');
  return !!resume && !resume.disabled && !!stop && stop.disabled && (IDLE)();
}""".replace("IDLE", IDLE_JS)


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


def _first_line_time(path: Path, after_step: int = 0) -> float | None:
    """Wall time of the first train line beyond ``after_step`` in ``metrics.jsonl``."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    for line in lines:
        try:
            record = json.loads(line)
            if record.get("split") == "train" and int(record["step"]) > after_step:
                return float(record["time"])
        except (ValueError, KeyError, TypeError):
            continue
    return None


def _train_lines(path: Path) -> int:
    """How many train records ``metrics.jsonl`` holds (what the caption counts)."""
    count = 0
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            count += json.loads(line).get("split") == "train"
        except ValueError:
            continue
    return count


def _click_until_shown(page, button, after: int, timeout_ms: float, runs: Path) -> dict:
    """Stamp, click ``button``, wait until more than ``after`` logged steps show; when they
    do not, stop with what the runs' status files and logs say."""
    page.wait_for_function(IDLE_JS, polling=50)
    page.evaluate(INSTALL_JS, after)
    button.click()
    try:
        page.wait_for_function(STAMP_JS, polling=50, timeout=timeout_ms)
    except Exception as exc:  # noqa: BLE001 - any wait failure: say what the run did
        found = [f"{run.name}: {_read_json(run / 'status.json')}\n"
                 + "\n".join((run / "log.txt").read_text(errors="replace").splitlines()[-20:])
                 for run in sorted(runs.iterdir()) if (run / "log.txt").exists()]
        raise SystemExit(f"no new point shown after the click ({exc.__class__.__name__}); "
                         f"the runs:\n" + "\n".join(found or ["none"])) from exc
    return page.evaluate("() => window.__bench")


def _parts(stamps: dict, status: dict, first: float | None, quiet: bool) -> dict:
    """click -> visible, split at the run's ``queued_at`` and its first (new) line."""
    click, shown = stamps["clickAt"] / 1000, stamps["visibleAt"] / 1000
    queued = float(status.get("queued_at") or "nan")
    first = float("nan") if first is None else first
    return {"visible": shown - click, "queued": queued - click, "first": first - queued,
            "drawn": shown - first, "start": status.get("start", "?"), "quiet": quiet}


def browser_trial(browser, server: Server, args: argparse.Namespace,
                  others: list[Server]) -> dict:
    """One click on Train -> first point on ``server``, then Stop, and a click on Resume
    -> the first new point; returns the times (s) and the start paths (``resume`` is None
    when the run ended before it could be stopped)."""
    from tfcore.errors import RunError
    from tfcore.runs import delete_run
    from tfcore.training import jobs

    def quiet(limit: float = args.warm_wait) -> bool:
        return all([wait_warm(s, need_one=s is server and s.mode == "warm",
                              limit=limit) for s in others])  # each one, in turn

    timeout_ms = args.timeout * 1000
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    resumed = None
    try:
        page = context.new_page()
        page.set_default_timeout(timeout_ms)
        page.goto(f"{server.url}/train?lang=en&loop={args.loop}&epochs={args.epochs}")
        button = page.get_by_role("button", name="Train", exact=True).first
        button.wait_for(state="visible")
        page.wait_for_function(IDLE_JS, polling=50)
        calm = quiet()
        stamps = _click_until_shown(page, button, 0, timeout_ms, server.runs)
        [run_id] = [p.name for p in server.runs.iterdir() if p.is_dir()]
        status = _read_json(server.runs / run_id / "status.json")
        started = _parts(stamps, status, _first_line_time(server.runs / run_id /
                                                           "metrics.jsonl"), calm)
        if args.resume:
            page.get_by_role("button", name="Stop").first.click()
            page.wait_for_function(STOPPED_JS, polling=100, timeout=timeout_ms)
            stopped = _read_json(server.runs / run_id / "status.json")
            if stopped.get("state") == "stopped":
                shown = _train_lines(server.runs / run_id / "metrics.jsonl")
                try:
                    page.wait_for_function(f"() => ({POINTS_JS})() >= {shown}", polling=100,
                                           timeout=timeout_ms)    # every stopped step shown
                except Exception as exc:
                    raise SystemExit(f"the stopped run logged {shown} training steps; the "
                                     f"chart shows {page.evaluate(POINTS_JS)}") from exc
                calm = quiet(0.0 if args.resume_at_once else args.warm_wait)
                stamps = _click_until_shown(
                    page, page.get_by_role("button", name="Resume").first, shown, timeout_ms,
                    server.runs)
                status = _read_json(server.runs / run_id / "status.json")
                first = _first_line_time(server.runs / run_id / "metrics.jsonl",
                                         int(stopped.get("step") or 0))
                resumed = _parts(stamps, status, first, calm)
    finally:
        context.close()
    try:
        jobs.stop_run(server.runs, run_id)
    except (RunError, UnboundLocalError):
        pass                                  # it had already ended (or never started)
    else:
        jobs.wait_for(server.runs, run_id, timeout=args.timeout)
    delete_run(server.runs, run_id)
    return {"start": started, "resume": resumed}


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


def _line(trial: int, mode: str, action: str, r: dict) -> str:
    flags = "" if r["quiet"] else "  (a warm worker was still warming up)"
    if mode == "warm" and r["start"] != "warm":
        flags += f"  (started {r['start']}, not warm)"
    return (f"trial {trial} {mode} {action}: click -> visible {r['visible']:6.2f} s = click -> "
            f"queued {r['queued']:5.2f} + queued -> first line {r['first']:5.2f} + first line "
            f"-> visible {r['drawn']:5.2f}{flags}")


def browser_bench(args: argparse.Namespace) -> None:
    """Click "Train" -> first point visible, and "Resume" -> first new point visible,
    cold vs warm dashboards, in chromium."""
    from playwright.sync_api import sync_playwright

    def _terminate(signum, frame):
        raise SystemExit(f"stopped by signal {signum}")

    signal.signal(signal.SIGTERM, _terminate)
    results: dict[tuple[str, str], list[dict]] = {}
    servers: list[Server] = []
    print(f"load average before: {_load()} ({os.cpu_count()} cores)", flush=True)
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
                            for action in ("start", "resume"):
                                if result[action] is not None:
                                    results.setdefault((server.mode, action), []).append(
                                        result[action])
                                    print(_line(trial, server.mode, action, result[action])
                                          + f"  (load {_load()})", flush=True)
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
    _summary(results, args)
    print(f"load average after: {_load()}")


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _summary(results: dict[tuple[str, str], list[dict]], args: argparse.Namespace) -> None:
    def med(mode: str, action: str, part: str) -> float:
        rows = results.get((mode, action)) or [{part: float("nan")}]
        return statistics.median(r[part] for r in rows)

    for action, what in (("start", "click Train -> first point"),
                         ("resume", "click Resume -> first new point")):
        cold, warm = med("cold", action, "visible"), med("warm", action, "visible")
        counts = "/".join(str(len(results.get((m, action), []))) for m in ("cold", "warm"))
        print(f"median {what} visible (browser, {args.loop} loop, mlp on digits28, trials "
              f"cold/warm {counts}): cold {cold:.2f} s, warm {warm:.2f} s, "
              f"warm/cold {warm / cold:.2f}")
        for part, name in (("queued", "click -> queued"), ("first", "queued -> first line"),
                           ("drawn", "first line -> visible")):
            print(f"  median {name}: cold {med('cold', action, part):.2f} s, "
                  f"warm {med('warm', action, part):.2f} s")
    start, resume = med("warm", "start", "visible"), med("warm", "resume", "visible")
    print(f"warm resume/start {resume / start:.2f}")
