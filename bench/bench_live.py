"""Start -> first point, cold worker vs warm worker, side by side in one run.

Engine mode (default). Each trial starts the default run of the Train page (the ``mlp``
preset on ``digits28``, default training settings, CPU) with
``tfcore.training.jobs.start_run`` and times until the first complete line appears in its
``metrics.jsonl`` (what the live panel draws as the first point). Cold:
``TFLAB_WARM_WORKER=0`` semantics (no warm worker armed). Warm: the pool is armed and the
warm worker has finished warming up before Start is pressed. Trials alternate cold, warm,
cold, warm, ... so load drifts hit both; each run is stopped right after its first line.
Prints every trial and the medians.

Browser mode (``--browser``). What a person sees: a click on the Train page's "Train" button
-> the first point on the live chart, in headless chromium (``/usr/bin/chromium``, or
``CHROMIUM``). Two dashboards run side by side, each ``streamlit run app.py`` on
127.0.0.1 and a free port with its own fresh workspace: ``TFLAB_WARM_WORKER=0`` (cold) and
``=1`` (warm). A trial opens ``/train?lang=en`` in a new browser session, waits for the
button and for the app to be idle, clicks, and waits (polling every 50 ms; a mutation
observer stamps the moment) until the caption "N logged training steps" and a drawn live
chart (its canvas, or the SVG Streamlit 1.67 draws) show: the page draws an empty chart
before the first point, so the caption is the signal. The time is split with the run's
files: click -> ``queued_at`` (status.json) -> the first ``metrics.jsonl`` line's ``time``
-> visible (browser and files share the wall clock). Then (unless ``--no-resume``) the
trial clicks Stop, waits until the run is stopped (Resume enabled), waits for the warm
workers as before (not with ``--resume-at-once``: then it clicks at once, as a person
does, and a replacement warm worker may still be warming up), clicks Resume and times until the caption counts more steps than the
stopped run showed: Resume -> first new point, split the same way (the resume's
``queued_at``, the first line beyond the stopped step). The run trains ``--epochs`` (50)
epochs so that it is still running when Stop is clicked. After each trial the run is
stopped (``jobs.stop_run``) and deleted, so the next trial starts from an empty runs
folder. Prints the load average before and with every trial. Warm
readiness is not written to the workspace (the warm worker prints ``ready`` on a pipe to its
server, which reads it only when asked), so the bench looks at that pipe: a warm worker
(``python -m tfcore.training.warm``, a child of the server) is ready when its stdout pipe
holds the unread ``ready`` line (FIONREAD on ``/proc/PID/fd/1``). Before every trial, cold
or warm, the bench waits until no warm worker is still warming up (a replacement warms up a
few seconds after each warm start), at most ``--warm-wait`` seconds (then it goes on and
says so). Warm trials whose run did not start warm are flagged. The servers, their warm
workers and the runs' workers are stopped (their process groups killed) on every exit,
errors and Ctrl-C included. The browser half lives in ``bench/live_browser.py``.

    .venv/bin/python bench/bench_live.py [--trials 3] [--loop fit|custom]
    .venv/bin/python bench/bench_live.py --browser [--trials 3] [--loop fit|custom]
    .venv/bin/python tests/load/cpu_hog.py --cores 2 -- .venv/bin/python bench/bench_live.py --browser
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def request(loop: str) -> dict:
    from tfcore.model.presets import get_preset

    return {"spec": get_preset("mlp").to_dict(), "dataset": {"name": "digits28"},
            "training": {"loop": loop}, "device": {"kind": "cpu"}}


def first_line_seconds(root: Path, body: dict, timeout: float = 300.0) -> tuple[float, str]:
    """Seconds from start_run to the first metrics line, and the start path taken."""
    from tfcore.rundir import RunStore
    from tfcore.training import jobs

    began = time.perf_counter()
    run_id = jobs.start_run(root, body)
    metrics = root / run_id / "metrics.jsonl"
    while time.perf_counter() - began < timeout:
        try:
            if b"\n" in metrics.read_bytes():
                break
        except FileNotFoundError:
            pass
        time.sleep(0.005)
    spent = time.perf_counter() - began
    start = RunStore(root).get(run_id).status.extra.get("start", "?")
    first = RunStore(root).metrics(run_id).records[:1]
    assert first and first[0]["split"] == "train" and first[0]["step"] == 1, first
    jobs.stop_run(root, run_id)
    jobs.wait_for(root, run_id, timeout=timeout)
    return spent, start


def engine_bench(args: argparse.Namespace) -> None:
    """Start -> first metrics line through the engine, cold vs warm."""
    from tfcore.training import jobs

    results: dict[str, list[float]] = {"cold": [], "warm": []}
    body = request(args.loop)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for trial in range(args.trials):
            jobs.stop_warm()
            cold, path = first_line_seconds(root, body)
            assert path == "cold", path
            results["cold"].append(cold)
            jobs.prewarm()
            deadline = time.time() + 300
            while not jobs.warm_ready() and time.time() < deadline:
                time.sleep(0.05)
            warm, path = first_line_seconds(root, body)
            assert path == "warm", path
            results["warm"].append(warm)
            print(f"trial {trial + 1}: cold {cold:6.2f} s   warm {warm:6.2f} s", flush=True)
        jobs.stop_warm()
    cold, warm = (statistics.median(results[k]) for k in ("cold", "warm"))
    print(f"median Start -> first metrics line ({args.loop} loop, mlp on digits28): "
          f"cold {cold:.2f} s, warm {warm:.2f} s, warm/cold {warm / cold:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--loop", default="fit", choices=("fit", "custom"))
    parser.add_argument("--browser", action="store_true",
                        help="click Train -> first point visible, in headless chromium")
    parser.add_argument("--warm-wait", type=float, default=180.0,
                        help="browser mode: at most this long (s) for warm workers to warm up")
    parser.add_argument("--epochs", type=int, default=50,
                        help="browser mode: epochs of the run (long enough to stop it)")
    parser.add_argument("--no-resume", dest="resume", action="store_false",
                        help="browser mode: do not stop and resume each run")
    parser.add_argument("--resume-at-once", action="store_true",
                        help="browser mode: click Resume as soon as the run stopped, not "
                             "after the warm workers warmed up (as a person does)")
    parser.add_argument("--timeout", type=float, default=300.0,
                        help="browser mode: at most this long (s) for a page state or a run")
    args = parser.parse_args()
    if args.trials < 1:
        parser.error("--trials must be at least 1")
    if args.browser:
        from live_browser import browser_bench  # bench/ is on sys.path (the script's folder)

        browser_bench(args)
    else:
        engine_bench(args)


if __name__ == "__main__":
    main()
