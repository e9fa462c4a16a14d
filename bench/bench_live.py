"""Start -> first metrics line, cold worker vs warm worker, side by side in one run.

Each trial starts the default run of the Train page (the ``mlp`` preset on ``digits28``,
default training settings, CPU) with ``tfcore.training.jobs.start_run`` and times until
the first complete line appears in its ``metrics.jsonl`` (what the live panel draws as the
first point). Cold: ``TFLAB_WARM_WORKER=0`` semantics (no warm worker armed). Warm: the
pool is armed and the warm worker has finished warming up before Start is pressed.
Trials alternate cold, warm, cold, warm, ... so load drifts hit both; each run is stopped
right after its first line. Prints every trial and the medians.

    .venv/bin/python bench/bench_live.py [--trials 3] [--loop fit|custom]
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--loop", default="fit", choices=("fit", "custom"))
    args = parser.parse_args()
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


if __name__ == "__main__":
    main()
