"""A classroom without browsers: N sessions and one live run against a real server.

Starts ``streamlit run app.py`` on a free loopback port with a temporary workspace (seeded
with finished runs), starts one paced training run, and talks to the server the way the
browser does, over ``/_stcore/stream`` with Streamlit's own protobuf messages: a
``BackMsg.rerun_script`` (``ClientState`` with ``page_name`` / ``page_script_hash``)
starts a page run, ``ForwardMsg.script_finished`` ends it, ``ForwardMsg.auto_rerun``
asks the client to rerun a fragment every ``interval`` seconds (the live panel), which
each session then does, as a browser would. That tab is ``Session`` in
``bench/session_client.py``; the workspace and server setup is ``bench/sessions_setup.py``.

* N page sessions cycle through Home, Train and Runs with a think time between clicks;
  each full page run's time (request sent -> ``script_finished``) is recorded.
* One watcher session keeps the Train page open on the live run; every fragment run
  whose chart elements differ from the previous one is "new points reached the
  watcher", and the longest gap between two of those is the watcher's stall.

Prints one row per N: sessions, page runs, errors, p50, p95, max, watcher stall.

``--follow N`` (issue 26, following the teacher) instead: N sessions open the handbook
lesson's first step with ``&follow=1`` (each follows the teacher), the teacher moves the
lead to the next step every ``--every`` seconds (10) for ``--duration`` seconds, with the
engine call the step bar's Next makes (``tfcore.lessons.set_lead``), and each session's time
from the move to its step bar showing the new step ("Step k of 9", drawn by the page run
that the session's follow fragment starts) is recorded: p50, p95, max and missed moves.
Goal: p95 <= 2 s with N = 30 on this machine.

    .venv/bin/python bench/bench_sessions.py [--sessions 1,10,30] [--duration 40]
        [--think 2] [--seed-runs 20] [--pace 20] [--budget 300]
    .venv/bin/python bench/bench_sessions.py --follow 30 [--duration 60] [--every 10]
    .venv/bin/python bench/bench_sessions.py --serve single,class --sessions 60,120

``--serve class`` runs the same classroom through the class setup (``make class``: one
server process per core behind HAProxy; each session loads the page's HTML first, as a
browser does, and its websocket carries the proxy's cookie); ``--serve single,class`` runs
both one after the other over the same workspace and live run and prints them side by
side, with each setup's first page run after its start.

Goal on a 2-core machine: 30 sessions and one live run, page p95 <= 2 s, stall <= 3 s
with one process; 60 sessions with the class setup (issue 27).
Everything listens on and connects to 127.0.0.1; every wait is bounded; the server and the
training worker are stopped at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PAGES = ("home", "train", "runs")
HOST = "127.0.0.1"


# ------------------------------------------------ workspace, live run, browser-like tabs


from sessions_setup import (  # noqa: E402 - bench/ is on sys.path
    feed, free_port, percentile, prepare_workspace, run_status, start_class, start_server,
    stop_server, stop_worker, wait_healthy)
from follow_bench import follow_main  # noqa: E402 - bench/ is on sys.path
from session_client import Session  # noqa: E402 - bench/ is on sys.path


# ---------------------------------------------------------------- one phase: N sessions


def max_gap(events: list[float], start: float, end: float) -> float:
    """The longest time without new points in [start, end] (edges count)."""
    inside = [e for e in events if start <= e <= end]
    points = [start] + inside + [end]
    return max(b - a for a, b in zip(points, points[1:]))


async def student(session: Session, until: float, think: float, rng: random.Random,
                  timeout: float) -> None:
    while time.monotonic() < until:
        await session.page_run(rng.choice(PAGES), timeout)
        await asyncio.sleep(min(max(0.0, until - time.monotonic()),
                                think * rng.uniform(0.5, 1.5)))


async def phase(url: str, n: int, duration: float, think: float, watcher: Session,
                timeout: float) -> dict:
    sessions = [Session(url, f"s{i}") for i in range(n)]
    await asyncio.gather(*(s.open() for s in sessions))
    watched = watcher.received
    try:
        start = time.monotonic()
        until = start + duration
        await asyncio.gather(*(student(s, until, think, random.Random(i), timeout)
                               for i, s in enumerate(sessions)))
        end = time.monotonic()
    finally:
        await asyncio.gather(*(s.close() for s in sessions), return_exceptions=True)
    times = [t for s in sessions for _, t in s.runs]
    by_page = {p: [t for s in sessions for q, t in s.runs if q == p] for p in PAGES}
    return {"n": n, "runs": len(times), "errors": sum(s.errors for s in sessions),
            "p50": percentile(times, 0.5), "p95": percentile(times, 0.95),
            "max": max(times, default=float("nan")),
            "by_page": {p: (len(v), percentile(v, 0.5), percentile(v, 0.95))
                        for p, v in by_page.items()},
            "stall": max_gap(watcher.chart_events, start, end),
            "updates": sum(start <= e <= end for e in watcher.chart_events),
            "mb": (sum(s.received for s in sessions) + watcher.received - watched) / 2**20,
            "watcher_kb": (watcher.received - watched) / 1024 / (end - start)}


async def bench(url: str, counts: list[int], duration: float, think: float,
                timeout: float) -> tuple[list[dict], dict]:
    warm = Session(url, "warm")
    await warm.open()
    warmup = {page: await warm.page_run(page, 180.0) for page in PAGES}
    await warm.close()
    watcher = Session(url, "watcher")
    await watcher.open()
    try:
        await watcher.page_run("train", 180.0)
        deadline = time.monotonic() + 60
        while len(watcher.chart_events) < 2 and time.monotonic() < deadline:
            await asyncio.sleep(0.5)          # the live run has drawn points twice
        if len(watcher.chart_events) < 2:
            raise SystemExit("the watcher saw no live chart updates within 60 s")
        print_head(warmup)
        rows = []
        for n in counts:
            rows.append(await phase(url, n, duration, think, watcher, timeout))
            print_row(rows[-1])
    finally:
        await watcher.close()
    return rows, warmup


def print_head(warmup: dict) -> None:
    print("first run of each page (cold caches): "
          + ", ".join(f"{p} {s:.2f} s" for p, s in warmup.items()))
    print(f"{'N':>4} {'page runs':>10} {'errors':>7} {'p50 s':>7} {'p95 s':>7} {'max s':>7} "
          f"{'watcher updates':>16} {'max stall s':>12} {'MB sent':>8} {'watcher KB/s':>13}",
          flush=True)


def print_row(r: dict) -> None:
    print(f"{r['n']:>4} {r['runs']:>10} {r['errors']:>7} {r['p50']:>7.2f} {r['p95']:>7.2f} "
          f"{r['max']:>7.2f} {r['updates']:>16} {r['stall']:>12.2f} {r['mb']:>8.1f} "
          f"{r['watcher_kb']:>13.1f}", flush=True)


def print_pages(rows: list[dict]) -> None:
    print("per page (runs, p50 s, p95 s):")
    for r in rows:
        print(f"  N={r['n']:>3}: " + "; ".join(f"{p} {c} {a:.2f} {b:.2f}"
                                              for p, (c, a, b) in r["by_page"].items()))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sessions", default="1,10,30", help="comma-separated N (default 1,10,30)")
    p.add_argument("--duration", type=float, default=40.0, help="seconds per N (default 40)")
    p.add_argument("--think", type=float, default=2.0,
                   help="mean seconds between a session's clicks (default 2)")
    p.add_argument("--seed-runs", type=int, default=20, help="finished runs in the workspace")
    p.add_argument("--pace", type=float, default=20.0,
                   help="live run steps per second, when TrainConfig has steps_per_second")
    p.add_argument("--epochs", type=int, default=200, help="live run epochs")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds one page run may take")
    p.add_argument("--budget", type=float, default=300.0, help="hard limit for the whole bench")
    p.add_argument("--live", choices=("worker", "synthetic"), default="worker",
                   help="live run: a real training worker (default), or a writer that "
                        "plays one without TensorFlow")
    p.add_argument("--serve", default="single",
                   help="single (one streamlit process), class (make class's setup: "
                        "--processes server processes behind HAProxy) or single,class: both, "
                        "one after the other, and a side-by-side table (default single)")
    p.add_argument("--processes", type=int, default=os.cpu_count() or 1,
                   help="--serve class: server processes (default: one per core)")
    p.add_argument("--follow", type=int, metavar="N",
                   help="N sessions follow the teacher; the lead moves every --every s")
    p.add_argument("--every", type=float, default=10.0,
                   help="--follow: seconds between the teacher's moves (default 10)")
    p.add_argument("--prepare", metavar="RUNS_ROOT", help=argparse.SUPPRESS)
    p.add_argument("--feed", metavar="RUNS_ROOT", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.prepare:                  # the child that seeds runs and starts the live run
        print(prepare_workspace(Path(args.prepare), args.seed_runs, args.pace, args.epochs,
                                args.live))
        return 0
    if args.feed:                     # the child that plays a worker (--live synthetic)
        feed(Path(args.feed), args.pace, args.budget)
        return 0
    if args.follow is not None:
        return follow_main(args)
    counts = [int(n) for n in args.sessions.split(",") if n.strip()]
    if any(n < 1 or n > 200 for n in counts):
        raise SystemExit("--sessions: each N must be in 1..200")
    modes = [m.strip() for m in args.serve.split(",") if m.strip()]
    if not modes or set(modes) - {"single", "class"}:
        raise SystemExit("--serve: single, class or both (single,class)")
    began = time.monotonic()
    results: dict[str, tuple[list[dict], dict, float]] = {}
    with tempfile.TemporaryDirectory(prefix="tflab-bench-") as tmp:
        workspace = Path(tmp) / "ws"
        runs_root = workspace / "runs"
        runs_root.mkdir(parents=True)
        env = dict(os.environ, TFLAB_WORKSPACE=str(workspace), PYTHONPATH=str(ROOT))
        run_id, feeder = None, None
        try:
            prepared = subprocess.run(
                [sys.executable, __file__, "--prepare", str(runs_root), "--seed-runs",
                 str(args.seed_runs), "--pace", str(args.pace), "--epochs", str(args.epochs),
                 "--live", args.live],
                env=env, capture_output=True, text=True, timeout=180, check=True)
            run_id = (prepared.stdout.strip().splitlines() or [""])[-1]
            if args.live == "synthetic":
                feeder = subprocess.Popen(
                    [sys.executable, __file__, "--feed", str(runs_root), "--pace",
                     str(args.pace), "--budget", str(args.budget)],
                    env=env, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
                    start_new_session=True)
                run_id = feeder.stdout.readline().strip()
            for mode in modes:
                left = args.budget - (time.monotonic() - began)
                results[mode] = serve_and_bench(mode, workspace, Path(tmp), counts, args, left)
                status = run_status(runs_root, run_id)
                print(f"live run: {status.get('state')} at step {status.get('step')}")
                print_pages(results[mode][0])
        except (asyncio.TimeoutError, TimeoutError):
            print(f"bench exceeded its budget of {args.budget:.0f} s", file=sys.stderr)
            return 1
        except subprocess.CalledProcessError as exc:
            print(f"preparing the workspace failed:\n{exc.stderr[-3000:]}", file=sys.stderr)
            return 1
        finally:
            if run_id:
                status = run_status(runs_root, run_id)
                if status.get("state") in ("failed", "interrupted"):
                    print(f"live run {status['state']}: {status.get('message')}", file=sys.stderr)
                stop_worker(runs_root, run_id)
            if feeder is not None:
                feeder.wait(timeout=30)
    if len(results) > 1:
        print_side_by_side(results)
    return 0


def serve_and_bench(mode: str, workspace: Path, tmp: Path, counts: list[int],
                    args: argparse.Namespace, left: float) -> tuple[list[dict], dict, float]:
    """Start the server (``single``: one ``streamlit run``; ``class``: the class setup),
    run every N against it, stop it. Returns the rows, the first run of each page (the
    first visitor's wait after a start) and the seconds from the start command until the
    address answered (the class setup answers once its processes are warm)."""
    port = free_port()
    log = tmp / f"server-{mode}.log"
    began = time.monotonic()
    if mode == "class":
        server = start_class(workspace, port, args.processes, log)
    else:
        server = start_server(workspace, port, log)
    try:
        if mode == "single":
            wait_healthy(port, server)
        ready = time.monotonic() - began
        print(f"[{mode}] 127.0.0.1:{port}"
              + (f" ({args.processes} server processes behind HAProxy)" if mode == "class"
                 else " (one server process)")
              + f", {args.seed_runs} finished runs, sessions {counts}, "
                f"{args.duration:.0f} s each", flush=True)
        rows, warmup = asyncio.run(asyncio.wait_for(
            bench(f"ws://{HOST}:{port}/_stcore/stream", counts, args.duration, args.think,
                  args.timeout), left))
        return rows, warmup, ready
    finally:
        stop_server(server)
        text = log.read_text(errors="replace")
        # A client that closes its socket makes Streamlit log WebSocketDisconnected.
        if text.count("Traceback") > text.count("WebSocketDisconnected"):
            print("server log (tail):\n" + text[-3000:], file=sys.stderr)


def print_side_by_side(results: dict[str, tuple[list[dict], dict, float]]) -> None:
    """One table: each N's figures per way of serving, measured in this run."""
    print("\nside by side (same workspace, same live run, one after the other):")
    print(f"{'serve':>7} {'N':>4} {'page runs':>10} {'errors':>7} {'p50 s':>7} {'p95 s':>7} "
          f"{'max stall s':>12} {'first page s':>13} {'answers after s':>16}")
    for mode, (rows, warmup, ready) in results.items():
        for r in rows:
            print(f"{mode:>7} {r['n']:>4} {r['runs']:>10} {r['errors']:>7} {r['p50']:>7.2f} "
                  f"{r['p95']:>7.2f} {r['stall']:>12.2f} {warmup[PAGES[0]]:>13.2f} "
                  f"{ready:>16.1f}")


if __name__ == "__main__":
    sys.exit(main())
