"""Training throughput side by side in one run, on the same model, data and steps.

Part 1 (``digits28``, 1,437 training rows: mostly per-epoch overhead):
1. through TF Lab's worker (``tfcore.training.jobs`` -> ``python -m tfcore.training.worker``), fit loop and
   GradientTape loop, with metrics, TensorBoard, checkpoints and heartbeat all on;
2. a plain ``model.fit`` script;
3. a plain ``tf.function`` GradientTape loop over ``tf.data``.

Part 2 (``--rows``, default 40,000 synthetic 28x28 rows: training itself), in this process:
the engine's two loops with the worker's listeners (checkpoints, heartbeat, stop poller)
with logging on (every step to metrics.jsonl and TensorBoard) and off, against
the plain ``model.fit`` (``steps_per_execution=1``) and plain ``tf.function`` loop, bare
and with the engine's recording (every step's values read and written, a checkpoint of
model and optimizer every 100 steps: the fair baselines of the two goal ratios, engine fit
loop / plain fit >= 1.0 and engine tape loop / plain tf.function loop >= 1.2). Each
number is the best of ``--repeat`` runs, the runs alternating, in samples/s over the whole
training call. ``--only-goals`` runs just the four rows of the goal ratios.

Part 3 (same synthetic rows; `bench_reporting.py`): the fit loop with and without its per-batch reporting
(``report_batch_values``), logging off, interleaved; prints the per-step cost ratio.

Each row's training code is in ``training_runs.py``; this file runs the rows and prints them.

    .venv/bin/python bench/bench_training.py [--epochs 10] [--batch-size 50] [--preset mlp]
        [--rows 40000] [--synthetic-epochs 2] [--repeat 2] [--skip-worker] [--only-reporting]
        [--only-goals]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from training_runs import (  # noqa: E402 - bench/ is on the path of a script
    LOGGER_SHARE,
    engine_loop,
    plain_fit,
    plain_fit_on,
    plain_tf_function,
    synthetic,
    through_worker,
)


def part2(args) -> None:
    x, y = synthetic(args.rows)
    runs = {
        "engine tape loop, logging on": lambda: engine_loop(args.preset, x, y,
                                                            args.synthetic_epochs,
                                                            args.batch_size, "custom", True),
        "engine tape loop, logging off": lambda: engine_loop(args.preset, x, y,
                                                             args.synthetic_epochs,
                                                             args.batch_size, "custom", False),
        "engine fit loop, logging on": lambda: engine_loop(args.preset, x, y,
                                                           args.synthetic_epochs,
                                                           args.batch_size, "fit", True),
        "engine fit loop, logging off": lambda: engine_loop(args.preset, x, y,
                                                            args.synthetic_epochs,
                                                            args.batch_size, "fit", False),
        "plain model.fit": lambda: plain_fit_on(args.preset, x, y, args.synthetic_epochs,
                                                args.batch_size),
        "plain tf.function loop": lambda: plain_tf_function(args.preset, args.synthetic_epochs,
                                                            args.batch_size, (x, y)),
        **goal_runs(args, x, y),
    }
    if args.only_goals:
        runs = {name: fn for name, fn in runs.items() if name in GOAL_ROWS}
    best = {name: 0.0 for name in runs}
    for _ in range(max(1, args.repeat)):          # interleaved, so load drifts hit all rows
        for name, fn in runs.items():
            best[name] = max(best[name], fn())
    print(f"\npreset={args.preset} synthetic rows={args.rows} epochs={args.synthetic_epochs} "
          f"batch={args.batch_size} best of {args.repeat} alternating runs (samples/s)")
    for name, rate in best.items():
        print(f"  {name:44s} {rate:10.1f}")
    for engine, plain, goal in GOALS:
        if engine in best and plain in best:
            print(f"goal ratio {engine} / {plain}: {best[engine] / best[plain]:.3f} "
                  f"(goal >= {goal})")
    if args.only_goals:
        return
    ratios = [
        ("engine tape loop (logging on) / plain tf.function loop",
         best["engine tape loop, logging on"] / best["plain tf.function loop"]),
        ("engine fit loop (logging on) / plain model.fit",
         best["engine fit loop, logging on"] / best["plain model.fit"]),
        ("tape loop: logging cost (1 - on/off)",
         1 - best["engine tape loop, logging on"] / best["engine tape loop, logging off"]),
        ("fit loop: logging cost (1 - on/off)",
         1 - best["engine fit loop, logging on"] / best["engine fit loop, logging off"]),
    ]
    for name, value in ratios:
        print(f"ratio {name}: {value:.3f}")
    for loop, shares in LOGGER_SHARE.items():
        print(f"{loop} loop: time inside the MetricsLogger / rest of the same run: "
              f"{min(shares):.3%} (best) {max(shares):.3%} (worst)")


# The goals: each engine loop (logging on: every step recorded, checkpoints every
# 100 steps) against a plain script that records every step and checkpoints as often.
PLAIN_FIT_REC = "plain model.fit, recording + ckpt"
PLAIN_TF_REC = "plain tf.function loop, recording + ckpt"
GOALS = (("engine fit loop, logging on", PLAIN_FIT_REC, 1.0),
         ("engine tape loop, logging on", PLAIN_TF_REC, 1.2))
GOAL_ROWS = {name for engine, plain, _ in GOALS for name in (engine, plain)}


def goal_runs(args, x, y) -> dict:
    epochs, batch = args.synthetic_epochs, args.batch_size
    return {PLAIN_FIT_REC: lambda: plain_fit_on(args.preset, x, y, epochs, batch, True),
            PLAIN_TF_REC: lambda: plain_tf_function(args.preset, epochs, batch, (x, y), True)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="mlp")
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--batch-size", type=int, default=50)
    parser.add_argument("--rows", type=int, default=40_000)
    parser.add_argument("--synthetic-epochs", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--skip-worker", action="store_true", help="only parts 2 and 3")
    parser.add_argument("--only-reporting", action="store_true",
                        help="only part 3: the fit loop with and without per-batch reporting")
    parser.add_argument("--only-goals", action="store_true",
                        help="only the goal rows of part 2: each engine loop against a plain "
                             "script with the same recording and checkpoints")
    args = parser.parse_args()
    from tfcore.training.devices import DeviceConfig, apply_device_config

    apply_device_config(DeviceConfig())
    from bench_reporting import part3                  # bench/ is on the path of a script

    if args.only_reporting:
        part3(args)
        return
    if args.only_goals:
        part2(args)
        return
    if not args.skip_worker:
        part1(args)
    part2(args)
    part3(args)


def part1(args) -> None:
    rows = {
        "worker (fit loop)": through_worker(args.preset, args.epochs, args.batch_size, "fit"),
        "worker (tf.function loop)": through_worker(args.preset, args.epochs,
                                                    args.batch_size, "custom"),
        "plain model.fit": plain_fit(args.preset, args.epochs, args.batch_size),
        "plain tf.function loop": plain_tf_function(args.preset, args.epochs, args.batch_size),
    }
    print(f"preset={args.preset} dataset=digits28 epochs={args.epochs} "
          f"batch={args.batch_size} (samples/s, higher is better)")
    for name, rate in rows.items():
        print(f"  {name:28s} {rate:10.1f}")
    best_plain = max(rows["plain model.fit"], rows["plain tf.function loop"])
    for name in ("worker (fit loop)", "worker (tf.function loop)"):
        print(f"ratio {name} / faster plain script: {rows[name] / best_plain:.2f}")
    print(f"ratio plain tf.function / plain fit: "
          f"{rows['plain tf.function loop'] / rows['plain model.fit']:.2f}")


if __name__ == "__main__":
    main()
