"""``bench/bench_sessions.py --follow N``: N sessions follow the teacher through the
handbook lesson (issue 26); the lead moves every ``--every`` seconds, and each session's time
from the move to its step bar showing the new step is recorded. Through one server process
(``--serve single``) or the class setup (``--serve class``)."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

from session_client import Session
from sessions_setup import (HOST, free_port, percentile, start_class, start_server,
                            stop_server, wait_healthy)

FOLLOW_LESSON, FOLLOW_PAGE = "handbook", "tensors"        # its step 1 is on the Tensors page


async def follow_bench(url: str, workspace: Path, n: int, duration: float, every: float,
                       timeout: float) -> dict:
    """N following sessions; the lead moves every ``every`` s; latency of each move."""
    from tfcore.lessons import read_lesson, set_lead
    from tfcore.lessons.store import SHIPPED_DIR
    from tfcore.workspace import Workspace

    ws, teacher = Workspace(workspace), "bench-teacher-0001"
    last = len(read_lesson(SHIPPED_DIR / f"{FOLLOW_LESSON}.json").lesson.steps)
    set_lead(ws, FOLLOW_LESSON, 1, leader=teacher, teacher=True)
    warm = Session(url, "warm", query=f"lesson={FOLLOW_LESSON}&step=1&lang=en")
    await warm.open()
    for page in ("tensors", "builder", "train", "runs", "timing"):   # first runs: cold
        await warm.page_run(page, 180.0)
    await warm.close()
    sessions = [Session(url, f"f{i}", query=f"lesson={FOLLOW_LESSON}&step=1&follow=1&lang=en")
                for i in range(n)]
    await asyncio.gather(*(s.open() for s in sessions))
    moves: dict[int, float] = {}
    try:
        await asyncio.gather(*(s.page_run(FOLLOW_PAGE, timeout) for s in sessions))
        start, step = time.monotonic(), 1
        while step < last and time.monotonic() - start + every <= duration:
            await asyncio.sleep(every)            # the teacher's pace, not a wait for a state
            step += 1
            moves[step] = time.monotonic()
            await asyncio.to_thread(set_lead, ws, FOLLOW_LESSON, step, leader=teacher,
                                    teacher=True)
        settle_until = time.monotonic() + min(every, timeout)
        while time.monotonic() < settle_until and not all(
                step in s.steps_seen for s in sessions):
            await asyncio.sleep(0.2)              # the last move reaches every session
    finally:
        await asyncio.gather(*(s.close() for s in sessions), return_exceptions=True)
    times = [s.steps_seen[k] - t for s in sessions for k, t in moves.items()
             if k in s.steps_seen and s.steps_seen[k] >= t]
    missed = sum(1 for s in sessions for k in moves if k not in s.steps_seen)
    return {"n": n, "moves": len(moves), "shown": len(times), "missed": missed,
            "errors": sum(s.errors for s in sessions), "p50": percentile(times, 0.5),
            "p95": percentile(times, 0.95), "max": max(times, default=float("nan")),
            "per_move": {k: percentile([s.steps_seen[k] - t for s in sessions
                                        if k in s.steps_seen], 0.95)
                         for k, t in moves.items()}}


def follow_main(args: argparse.Namespace) -> int:
    if not 1 <= args.follow <= 200:
        raise SystemExit("--follow: N must be in 1..200")
    if args.serve not in ("single", "class"):
        raise SystemExit("--follow: --serve single or --serve class, one at a time")
    began = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="tflab-bench-follow-") as tmp:
        workspace = Path(tmp) / "ws"
        workspace.mkdir()
        port = free_port()
        if args.serve == "class":
            server = start_class(workspace, port, args.processes, Path(tmp) / "server.log")
        else:
            server = start_server(workspace, port, Path(tmp) / "server.log")
        try:
            if args.serve != "class":
                wait_healthy(port, server)
            load = os.getloadavg()
            print(f"[{args.serve}] 127.0.0.1:{port}, {args.follow} following sessions, "
                  f"a move every "
                  f"{args.every:.0f} s for {args.duration:.0f} s; load average "
                  f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}", flush=True)
            left = args.budget - (time.monotonic() - began)
            r = asyncio.run(asyncio.wait_for(follow_bench(
                f"ws://{HOST}:{port}/_stcore/stream", workspace, args.follow, args.duration,
                args.every, args.timeout), left))
        except (asyncio.TimeoutError, TimeoutError):
            print(f"bench exceeded its budget of {args.budget:.0f} s", file=sys.stderr)
            return 1
        finally:
            stop_server(server)
            log = (Path(tmp) / "server.log").read_text(errors="replace")
            if log.count("Traceback") > log.count("WebSocketDisconnected"):
                print("server log (tail):\n" + log[-3000:], file=sys.stderr)
        load = os.getloadavg()
        print(f"{'N':>4} {'moves':>6} {'shown':>6} {'missed':>7} {'errors':>7} {'p50 s':>7} "
              f"{'p95 s':>7} {'max s':>7}")
        print(f"{r['n']:>4} {r['moves']:>6} {r['shown']:>6} {r['missed']:>7} {r['errors']:>7} "
              f"{r['p50']:>7.2f} {r['p95']:>7.2f} {r['max']:>7.2f}")
        print("p95 per move (step: s): " + ", ".join(
            f"{k}: {v:.2f}" for k, v in r["per_move"].items()))
        print(f"load average after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    return 0
