"""Part 3 of ``bench_training.py``: the fit loop with and without its per-batch reporting
(``report_batch_values``: each step's metrics set aside, reset and added back so a rate is
the batch's own), side by side, interleaved, logging off; the whole loop and the compiled
train function alone, with the per-step cost ratio.

    .venv/bin/python bench/bench_training.py --only-reporting [--rows 40000] [--repeat 2]
"""

from __future__ import annotations

import time

from training_runs import engine_loop, synthetic


def compiled_steps(preset: str, x, y, batch: int, batch_values: bool):
    """A compiled fit train function as the fit loop builds it (steps_per_execution 8, the
    StepRecorder), with or without the per-batch reporting; returns ``run(calls)`` that
    makes ``calls`` executions over a fixed batch and returns the seconds spent."""
    import keras
    import tensorflow as tf

    from tfcore.model.build import build_model
    from tfcore.model.presets import get_preset
    from tfcore.training.config import TrainConfig, make_optimizer
    from tfcore.training.loops import (
        FIT_STEPS_PER_EXECUTION as SPE,
        StepRecorder,
        compile_for_fit,
        report_batch_values,
    )

    config = TrainConfig(epochs=1, batch_size=batch, loop="fit")
    keras.utils.set_random_seed(0)
    model = build_model(get_preset(preset))
    compile_for_fit(model, make_optimizer(config, 1000, 100), config, SPE)
    sample = (x[:batch], y[:batch])
    if batch_values:
        report_batch_values(model, sample)
    else:
        model._symbolic_build(data_batch=tuple(tf.convert_to_tensor(a) for a in sample))
    model.optimizer.build(model.trainable_variables)
    recorder = StepRecorder(model, ("loss", "sparse_categorical_accuracy"), SPE)
    model.make_train_function()
    iterator = iter(tf.data.Dataset.from_tensors(sample).repeat())

    def run(calls: int) -> float:
        start = time.perf_counter()
        for _ in range(calls):
            model.train_function(iterator)
        recorder.take()                                 # the host read, once per block
        return time.perf_counter() - start
    run(3)                                              # trace and warm up
    return run


def part3(args) -> None:
    """The fit loop's per-batch reporting (``report_batch_values``: each step's metrics
    set aside, reset and added back so a rate is the batch's own) against the same loop
    without it, side by side, interleaved; logging off so only the step differs."""
    x, y = synthetic(args.rows)
    runs = {on: (lambda on=on: engine_loop(args.preset, x, y, args.synthetic_epochs,
                                           args.batch_size, "fit", False, batch_values=on))
            for on in (True, False)}
    rates: dict[bool, list[float]] = {True: [], False: []}
    for _ in range(max(1, args.repeat)):
        for on, fn in runs.items():
            rates[on].append(fn())
    steps = args.rows * args.synthetic_epochs / args.batch_size
    print(f"\npreset={args.preset} synthetic rows={args.rows} epochs={args.synthetic_epochs} "
          f"batch={args.batch_size} steps={steps:.0f}, {args.repeat} interleaved runs each")
    for on, label in ((True, "with per-batch reporting"), (False, "without (running means)")):
        best = max(rates[on])
        print(f"  fit loop {label:28s} best {best:10.1f} samples/s "
              f"= {1e3 * args.batch_size / best:.3f} ms/step; all: "
              + ", ".join(f"{r:.0f}" for r in rates[on]))
    cost = max(rates[False]) / max(rates[True]) - 1
    print(f"ratio per-batch reporting, whole fit loop: step time with / without = "
          f"{1 + cost:.3f} (best runs; load on the machine blurs a few per cent here)")
    from tfcore.training.loops import FIT_STEPS_PER_EXECUTION as SPE

    runs = {on: compiled_steps(args.preset, x, y, args.batch_size, on) for on in (True, False)}
    blocks, calls = 3 * max(1, args.repeat), 50
    best = {on: float("inf") for on in runs}
    for _ in range(blocks):                             # alternating blocks, best of each
        for on, run in runs.items():
            best[on] = min(best[on], run(calls) / (calls * SPE))
    print(f"compiled train function alone ({SPE} steps per call, one fixed batch), best of "
          f"{blocks} blocks of {calls * SPE} steps: with {1e3 * best[True]:.3f} ms/step, "
          f"without {1e3 * best[False]:.3f} ms/step")
    print(f"ratio per-batch reporting, train step alone: with / without = "
          f"{best[True] / best[False]:.3f}")
