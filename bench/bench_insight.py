"""The cost of recording insight (issue 25), side by side in one run: the MLP and the CNN
preset trained on ``digits28`` through the worker's own lifecycle in this process
(``tfcore.training.worker.train_run``: every listener on, as a real run), with insight off
and with the default (auto: snapshots while they cost <= 3 % of the training time, and at the
start and the end), trials interleaved (off, auto, off, auto ...).

Each number is the run's training time (``status.json``'s ``elapsed``: the loop with its
listeners, not loading, building or the final evaluation); the ratio is the best auto trial
over the best off trial (other load only adds time; the medians' ratio is printed too), and
the snapshots' own measured cost (the ``cost`` of each ``insight/stats.jsonl`` line) as a
share of the auto run's time: the overhead without the machine's noise.

    .venv/bin/python bench/bench_insight.py [--mlp-epochs 30] [--cnn-epochs 10] [--repeat 5]
        [--batch-size 50] [--loop fit]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
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
    with tempfile.TemporaryDirectory() as tmp:
        writer = RunWriter.create(Path(tmp), body)
        fields = train_run(writer.paths, writer, RunRequest.from_dict(body), 1)
        if fields["state"] != "finished":
            raise SystemExit(f"{preset}: the run {fields['state']}")
        forget_insight()
        records = read_insight(writer.paths.root).records
        return {"seconds": float(fields["elapsed"]), "snapshots": len(records),
                "cost": sum(float(r.get("cost") or 0.0) for r in records),
                "steps": [r["step"] for r in records]}


def bench(preset: str, epochs: int, args: argparse.Namespace) -> float:
    """Interleaved trials of one model; prints them and returns auto / off."""
    trials: dict[bool, list[dict]] = {False: [], True: []}
    train_once(preset, 1, args.batch_size, args.loop, True)          # warm the process
    for trial in range(args.repeat):
        for insight in (False, True):
            result = train_once(preset, epochs, args.batch_size, args.loop, insight)
            trials[insight].append(result)
            extra = (f", {result['snapshots']} snapshots at steps {result['steps']}, "
                     f"their cost {result['cost']:.2f} s") if insight else ""
            print(f"  {preset} trial {trial + 1} insight {'auto' if insight else 'off '}: "
                  f"{result['seconds']:.2f} s{extra}", flush=True)
    off = min(r["seconds"] for r in trials[False])
    auto = min(r["seconds"] for r in trials[True])
    medians = [statistics.median(r["seconds"] for r in trials[mode]) for mode in (False, True)]
    share = statistics.median(r["cost"] / r["seconds"] for r in trials[True])
    ratio = auto / off
    print(f"{preset}: training best {off:.2f} s off, {auto:.2f} s auto: ratio {ratio:.3f} "
          f"({'within' if ratio <= TARGET else 'above'} the {TARGET:.2f} target; medians "
          f"{medians[0]:.2f} / {medians[1]:.2f} s: {medians[1] / medians[0]:.3f}); "
          f"the snapshots' own measured cost {share:.1%} of the auto run", flush=True)
    return ratio


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mlp-epochs", type=int, default=30)
    parser.add_argument("--cnn-epochs", type=int, default=10)
    parser.add_argument("--batch-size", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--loop", default="fit", choices=("fit", "custom"))
    args = parser.parse_args()
    from tfcore.tfenv import quiet_tensorflow

    quiet_tensorflow()
    ratios = {preset: bench(preset, epochs, args)
              for preset, epochs in (("mlp", args.mlp_epochs), ("cnn", args.cnn_epochs))}
    print("overhead ratio (insight auto / off): "
          + ", ".join(f"{k} {v:.3f}" for k, v in ratios.items()))


if __name__ == "__main__":
    main()
