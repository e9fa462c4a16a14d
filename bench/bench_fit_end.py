"""What tf.data's model-based autotuning costs the fit loop, side by side in one run: the
CNN (or MLP) preset trained on ``digits28`` through the worker's lifecycle in this process
(``tfcore.training.worker.train_run``), with the fit pipeline's options as shipped
(``tfcore.training.loops.shard_options``: autotuning off) and with autotuning on
(TensorFlow's default), trials interleaved in pairs whose order alternates.

Printed per trial: how long ``model.fit`` took to return after the listeners heard its
last step (the pipeline's iterator is torn down then; with autotuning on, the teardown
waits for the tuning thread's pass in progress), the time from the first to the last
reported step (the training's own pace), and the run's training time (``status.json``'s
``elapsed``). Then per mode the median and the highest return lag and how many were over
0.5 s, and the ratios shipped / autotuned of the medians of both times.

    .venv/bin/python bench/bench_fit_end.py [--preset cnn] [--epochs 10] [--repeat 5]
        [--validate-every 0]
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="cnn")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--batch-size", type=int, default=50)
    parser.add_argument("--validate-every", type=int, default=0,
                        help="epochs between validations (0: once, at the end)")
    args = parser.parse_args()

    from tfcore.tfenv import quiet_tensorflow

    quiet_tensorflow()
    import keras

    from tfcore.model.presets import get_preset
    from tfcore.rundir import RunWriter
    from tfcore.training import RunRequest, callbacks, loops
    from tfcore.training.worker import train_run

    shipped = loops.shard_options

    def autotuned():
        options = shipped()
        options.autotune.enabled = True
        return options

    seen: dict[str, float] = {}
    lags: list[float] = []
    fit, heard = keras.Model.fit, callbacks.Listeners.on_batch_end

    def timed_fit(self, *a, **k):
        result = fit(self, *a, **k)
        lags.append(time.perf_counter() - seen["last"])
        return result

    def timed_batch_end(self, state, logs):
        heard(self, state, logs)
        seen.setdefault("first", time.perf_counter())
        seen["last"] = time.perf_counter()

    keras.Model.fit, callbacks.Listeners.on_batch_end = timed_fit, timed_batch_end
    body = {"spec": get_preset(args.preset).to_dict(), "dataset": {"name": "digits28"},
            "training": {"epochs": args.epochs, "batch_size": args.batch_size, "loop": "fit",
                         "ckpt_every": 100_000,
                         "validate_every": args.validate_every or args.epochs,
                         "insight": False},
            "device": {"kind": "cpu"}}

    def once(tuned: bool) -> dict:
        loops.shard_options = autotuned if tuned else shipped
        seen.clear()
        lags.clear()
        with tempfile.TemporaryDirectory() as tmp:
            writer = RunWriter.create(Path(tmp), body)
            fields = train_run(writer.paths, writer, RunRequest.from_dict(body), 1)
        if fields["state"] != "finished":
            raise SystemExit(f"the run {fields['state']}")
        return {"lag": sum(lags), "worst": max(lags), "calls": len(lags),
                "steps": seen["last"] - seen["first"], "elapsed": float(fields["elapsed"])}

    once(False)                                    # warm the process
    trials: dict[bool, list[dict]] = {False: [], True: []}
    for pair in range(args.repeat):
        for tuned in ((False, True) if pair % 2 == 0 else (True, False)):
            r = once(tuned)
            trials[tuned].append(r)
            print(f"  pair {pair + 1} {'autotuned' if tuned else 'shipped  '}: fit returned "
                  f"{r['lag']:.2f} s after its last step ({r['calls']} calls, worst "
                  f"{r['worst']:.2f} s), steps {r['steps']:.2f} s, training {r['elapsed']:.2f} s",
                  flush=True)
    med = {t: {k: statistics.median(r[k] for r in trials[t]) for k in ("lag", "steps", "elapsed")}
           for t in trials}
    for tuned in (False, True):
        worst = [r["worst"] for r in trials[tuned]]
        print(f"{'autotuned' if tuned else 'shipped'}: fit's return lags, all calls of a run, "
              f"median {med[tuned]['lag']:.2f} s; the longest return {max(worst):.2f} s; runs "
              f"with a return over 0.5 s: {sum(w > 0.5 for w in worst)} of {len(worst)}; steps "
              f"{med[tuned]['steps']:.2f} s; training {med[tuned]['elapsed']:.2f} s")
    print(f"ratio shipped / autotuned of the medians: steps "
          f"{med[False]['steps'] / med[True]['steps']:.3f}, training "
          f"{med[False]['elapsed'] / med[True]['elapsed']:.3f}")


if __name__ == "__main__":
    main()
