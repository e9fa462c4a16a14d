"""Repeatability of the timing lab: the same timing twice in one process.

Checks (exit code 1 if either fails):
- the speedups of the two runs are within 15% of each other (every non-eager mode);
- graph mode beats eager for the MLP training step at batch 50.

Defaults: one TensorFlow thread and the process CPU clock, one step per mode per round.
On a shared machine (other processes competing for the cores) wall-clock times of short
steps depend on the others' load; the CPU clock counts only this process's work. On an
idle machine ``--clock wall --threads 0`` measures what a person waits for.

Run: ``.venv/bin/python bench/bench_timing.py [--steps 100] [--clock wall] [--threads 0]``
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

TOLERANCE = 0.15


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="mlp")
    parser.add_argument("--batch-size", type=int, default=50)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=100,
                        help="interleaved rounds (default: one step per mode per round)")
    parser.add_argument("--modes", default="eager,graph,xla")
    parser.add_argument("--threads", type=int, default=1,
                        help="intra- and inter-op threads (0: TensorFlow chooses)")
    parser.add_argument("--clock", default="cpu", choices=["wall", "cpu"],
                        help="wall: elapsed time; cpu: this process's CPU time")
    args = parser.parse_args()

    from tfcore.tfenv import quiet_tensorflow
    from tfcore.timing.flops import apply_threads

    quiet_tensorflow()
    apply_threads(args.threads, args.threads)
    from tfcore.model.presets import get_preset
    from tfcore.timing.measure import TimingRequest, run_timing

    request = TimingRequest(get_preset(args.preset), batch_size=args.batch_size,
                            steps=args.steps, modes=tuple(args.modes.split(",")),
                            warmup=5, rounds=args.rounds, clock=args.clock)
    runs = [run_timing(request), run_timing(request)]
    print(f"{args.preset}, training step, batch {args.batch_size}, {args.steps} steps x "
          f"{len(request.modes)} modes, {runs[0].device['model']}, clock={args.clock}, "
          f"threads={args.threads or 'auto'}, load average {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} CPUs")
    for index, result in enumerate(runs, 1):
        cells = ", ".join(f"{m.mode} {m.median_s * 1e3:.2f} ms" for m in result.modes if m.ok)
        walls = ", ".join(f"{m.mode} {m.wall_median_s * 1e3:.2f} ms" for m in result.modes
                          if m.ok)
        print(f"run {index}: medians ({args.clock} clock) {cells}; wall clock {walls}")
    ok = True
    for speed in runs[0].speedups:
        if speed.baseline != "eager":
            continue
        again = runs[1].speedup(speed.mode, "eager")
        drift = abs(again.ratio - speed.ratio) / ((again.ratio + speed.ratio) / 2)
        good = drift <= TOLERANCE
        ok &= good
        print(f"{speed.mode}/eager speedup: run 1 {speed.ratio:.2f}x "
              f"[{speed.low:.2f}-{speed.high:.2f}], run 2 {again.ratio:.2f}x "
              f"[{again.low:.2f}-{again.high:.2f}], drift {100 * drift:.1f}% "
              f"(limit {100 * TOLERANCE:.0f}%) {'OK' if good else 'FAIL'}")
    for index, result in enumerate(runs, 1):
        speed = result.speedup("graph", "eager")
        beats = speed is not None and speed.ratio > 1.0
        ok &= beats
        print(f"run {index}: graph beats eager: {'OK' if beats else 'FAIL'} "
              f"({speed.ratio if speed else float('nan'):.2f}x)")
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
