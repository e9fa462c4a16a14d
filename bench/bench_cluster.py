"""Samples/s of one process vs a 2-process MultiWorkerMirroredStrategy cluster, side by side.

Each trial trains the MLP on digits28 for the same steps, global batch and seed, first as
one worker process (the default strategy on the CPU), then as a local 2-worker cluster
(loopback, each process pinned to its share of the cores), through
``tfcore.training.jobs`` exactly as the Train page does. The rate is measured inside the
runs from their own ``metrics.jsonl`` (samples between the first and the last train record
/ the time between them), so process start-up and cluster connection are not counted.
Trials alternate so load drifts hit both. On a 2-core machine expect no speed-up (two
processes share two cores and add an all-reduce per step); the figure is for the record
and for hosts with more cores or GPUs.

    .venv/bin/python bench/bench_cluster.py [--steps 200] [--batch 64] [--trials 1]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def request(device: str, steps: int, batch: int, loop: str) -> dict:
    from tfcore.model.presets import get_preset

    body = {"spec": get_preset("mlp").to_dict(), "dataset": {"name": "digits28"},
            "training": {"steps": steps, "batch_size": batch, "seed": 1, "loop": loop,
                         "ckpt_every": 10_000_000},
            "device": {"kind": device}}
    if device == "cluster":
        body["cluster"] = {"workers": 2, "backup_every": 1_000_000}
    return body


def rate(root: Path, body: dict) -> tuple[float, int]:
    """(samples/s while training, replicas) of one finished run."""
    from tfcore.rundir import RunStore
    from tfcore.training import jobs

    run_id = jobs.start_run(root, body)
    state = jobs.wait_for(root, run_id, timeout=1800)
    record = RunStore(root).get(run_id)
    if state != "finished":
        raise SystemExit(f"{run_id} ended {state}: {record.status.message}")
    train = [r for r in RunStore(root).metrics(run_id).records if r["split"] == "train"]
    first, last = train[0], train[-1]
    seconds = last["time"] - first["time"]
    samples = (last["step"] - first["step"]) * body["training"]["batch_size"]
    return samples / seconds if seconds > 0 else float("nan"), \
        int(record.status.extra.get("replicas") or 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--trials", type=int, default=1)
    parser.add_argument("--loop", choices=("fit", "custom"), default="fit")
    args = parser.parse_args()
    single, cluster = [], []
    with tempfile.TemporaryDirectory(prefix="bench_cluster_") as tmp:
        root = Path(tmp)
        for trial in range(1, args.trials + 1):
            one, _ = rate(root, request("cpu", args.steps, args.batch, args.loop))
            two, replicas = rate(root, request("cluster", args.steps, args.batch, args.loop))
            single.append(one)
            cluster.append(two)
            print(f"trial {trial}: 1 process {one:,.0f} samples/s | 2-process cluster "
                  f"({replicas} replicas) {two:,.0f} samples/s | cluster/1 process "
                  f"{two / one:.2f}", flush=True)
    one, two = statistics.median(single), statistics.median(cluster)
    print(f"\nmedian, {args.steps} steps of global batch {args.batch} ({args.loop} loop):")
    print(f"{'':24}{'samples/s':>12}")
    print(f"{'1 process':24}{one:>12,.0f}")
    print(f"{'2-process cluster':24}{two:>12,.0f}")
    print(f"{'ratio cluster / 1':24}{two / one:>12.2f}")


if __name__ == "__main__":
    main()
