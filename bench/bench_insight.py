"""The cost of recording insight (issue 25), side by side in one run: the MLP and the CNN
preset trained on ``digits28`` through the worker's own lifecycle in this process
(``tfcore.training.worker.train_run``: every listener on, as a real run), with insight off
and with the default (auto: snapshots while they cost <= 3 % of the training time, and at the
start and the end), trials interleaved in pairs whose order alternates (off auto, auto
off, off auto ...), so a drift of the machine's load falls on both sides alike.

Each number is the run's training time (``status.json``'s ``elapsed``: the loop with its
listeners, not loading, building or the final evaluation). Printed per model: each pair's
ratio auto / off side by side, their median with the spread (lowest, quartiles, highest),
the ratio of the best trials (other load only adds time) and of the medians, and the
snapshots' own measured cost (the ``cost`` of each ``insight/stats.jsonl`` line) as a share
of the auto run's time: the overhead without the machine's noise (a new run's start
snapshot is the probe's first pass, so its cost includes TensorFlow's first calls), and the
probe's one-off warm-up pass of its own (only when the start step is already recorded, a
resume: 0 here), and the two together as a share of the run. Each pair's ratio of the
process's CPU seconds over the whole run (loading and building included, the same in
both) is printed too: other processes' load inflates wall time much more than it does the
CPU time this process uses. The load average at the start and the end is printed: on a
shared machine the pairs' spread says how far the ratios can be trusted.

    .venv/bin/python bench/bench_insight.py [--mlp-epochs 30] [--cnn-epochs 10] [--repeat 5]
        [--batch-size 50] [--loop fit] [--models mlp,cnn]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TARGET = 1.03


def train_once(preset: str, epochs: int, batch: int, loop: str, insight: bool) -> dict:
    """One in-process run; returns its training seconds, snapshot count and their cost."""
    from tfcore.model.presets import get_preset
    from tfcore.rundir import RunWriter, forget_insight, read_insight
    from tfcore.training import RunRequest
    from tfcore.training.worker import train_run

    body = {"spec": get_preset(preset).to_dict(), "dataset": {"name": "digits28"},
            "training": {"epochs": epochs, "batch_size": batch, "loop": loop,
                         "ckpt_every": 100, "validate_every": epochs, "insight": insight,
                         "insight_every": 0},
            "device": {"kind": "cpu"}}
    from tfcore.training.insight import InsightRecorder

    warmups: list[float] = []
    warm_up = InsightRecorder.warm_up

    def timed(recorder: InsightRecorder) -> None:
        began = time.perf_counter()
        warm_up(recorder)
        warmups.append(time.perf_counter() - began)

    with tempfile.TemporaryDirectory() as tmp:
        writer = RunWriter.create(Path(tmp), body)
        InsightRecorder.warm_up = timed
        cpu = time.process_time()
        try:
            fields = train_run(writer.paths, writer, RunRequest.from_dict(body), 1)
        finally:
            cpu = time.process_time() - cpu
            InsightRecorder.warm_up = warm_up
        if fields["state"] != "finished":
            raise SystemExit(f"{preset}: the run {fields['state']}")
        forget_insight()
        records = read_insight(writer.paths.root).records
        return {"seconds": float(fields["elapsed"]), "snapshots": len(records),
                "cost": sum(float(r.get("cost") or 0.0) for r in records),
                "steps": [r["step"] for r in records], "cpu": cpu,
                "warmup": sum(warmups)}


def spread(values: list[float]) -> str:
    """``median [lowest, first quartile - third quartile, highest]`` of ``values``."""
    ordered = sorted(values)
    if len(ordered) >= 2:
        q1, _, q3 = statistics.quantiles(ordered, n=4, method="inclusive")
    else:
        q1 = q3 = ordered[0]
    return (f"{statistics.median(ordered):.3f} [{ordered[0]:.3f}, {q1:.3f}-{q3:.3f}, "
            f"{ordered[-1]:.3f}]")


def load() -> str:
    return " ".join(f"{v:.2f}" for v in os.getloadavg())


def bench(preset: str, epochs: int, args: argparse.Namespace) -> float:
    """Interleaved pairs of one model; prints them and returns the pairs' median ratio."""
    trials: dict[bool, list[dict]] = {False: [], True: []}
    train_once(preset, 1, args.batch_size, args.loop, True)          # warm the process
    ratios, cpu_ratios = [], []
    print(f"{preset}: load average {load()} (1, 5, 15 min)", flush=True)
    for pair in range(args.repeat):
        order = (False, True) if pair % 2 == 0 else (True, False)
        seconds, cpu = {}, {}
        for insight in order:
            result = train_once(preset, epochs, args.batch_size, args.loop, insight)
            trials[insight].append(result)
            seconds[insight], cpu[insight] = result["seconds"], result["cpu"]
            extra = (f", {result['snapshots']} snapshots at steps {result['steps']}, "
                     f"their cost {result['cost']:.2f} s, warm-up {result['warmup']:.2f} s"
                     if insight else "")
            print(f"  {preset} pair {pair + 1} insight {'auto' if insight else 'off '}: "
                  f"{result['seconds']:.2f} s (CPU {result['cpu']:.1f} s){extra}",
                  flush=True)
        ratios.append(seconds[True] / seconds[False])
        cpu_ratios.append(cpu[True] / cpu[False])
        print(f"  {preset} pair {pair + 1}: off {seconds[False]:.2f} s, auto "
              f"{seconds[True]:.2f} s, ratio {ratios[-1]:.3f} (CPU seconds "
              f"{cpu_ratios[-1]:.3f})", flush=True)
    off = min(r["seconds"] for r in trials[False])
    auto = min(r["seconds"] for r in trials[True])
    medians = [statistics.median(r["seconds"] for r in trials[mode]) for mode in (False, True)]
    shares = [r["cost"] / r["seconds"] for r in trials[True]]
    warmups = [r["warmup"] for r in trials[True]]
    totals = [(r["cost"] + r["warmup"]) / r["seconds"] for r in trials[True]]
    ratio = statistics.median(ratios)
    print(f"{preset}: ratio auto / off per pair (median [lowest, quartiles, highest]) "
          f"{spread(ratios)} ({'within' if ratio <= TARGET else 'above'} the {TARGET:.2f} "
          f"target); best trials {off:.2f} / {auto:.2f} s: {auto / off:.3f}; medians "
          f"{medians[0]:.2f} / {medians[1]:.2f} s: {medians[1] / medians[0]:.3f}; the "
          f"snapshots' own measured cost {statistics.median(shares):.1%} of the auto run "
          f"(highest {max(shares):.1%}), the probe's warm-up {statistics.median(warmups):.2f} s, "
          f"both {statistics.median(totals):.1%} (highest {max(totals):.1%}); CPU seconds "
          f"auto / off per pair {spread(cpu_ratios)}; "
          f"load average now {load()}", flush=True)
    return ratio


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mlp-epochs", type=int, default=30)
    parser.add_argument("--cnn-epochs", type=int, default=10)
    parser.add_argument("--batch-size", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--loop", default="fit", choices=("fit", "custom"))
    parser.add_argument("--models", default="mlp,cnn",
                        help="which presets, comma-separated (mlp, cnn)")
    args = parser.parse_args()
    from tfcore.tfenv import quiet_tensorflow

    quiet_tensorflow()
    chosen = [m.strip() for m in args.models.split(",") if m.strip()]
    ratios = {preset: bench(preset, epochs, args)
              for preset, epochs in (("mlp", args.mlp_epochs), ("cnn", args.cnn_epochs))
              if preset in chosen}
    print("overhead ratio (insight auto / off, the pairs' median): "
          + ", ".join(f"{k} {v:.3f}" for k, v in ratios.items()))


if __name__ == "__main__":
    main()
