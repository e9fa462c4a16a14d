"""``timing``: eager vs tf.function vs XLA (vs Keras fit's step) on one model, as JSON.

Examples::

    python -m tfcore timing --preset mlp --batch-size 50 --steps 50 --modes eager,graph,xla
    python -m tfcore timing --preset mlp --sweep batch --values 10,50,500 --modes eager,graph

Device settings (``--device cpu`` or ``gpu:N``) are applied before TensorFlow starts.
With ``--progress``, progress lines (``{"progress": f, "message": ...}``) go to stderr.
"""

from __future__ import annotations

import argparse
import json
import sys

from tfcore.cli import print_json
from tfcore.cli.inputs import int_range, path_arg, read_spec_file
from tfcore.cli.vocabulary import add_flag, command
from tfcore.errors import TimingError


def parse_device(text: str):
    """``cpu`` or ``gpu:N`` (``gpu`` = ``gpu:0``) -> DeviceConfig."""
    from tfcore.training import DeviceConfig

    text = (text or "cpu").strip().lower()
    if text == "cpu":
        return DeviceConfig(kind="cpu")
    if text == "gpu" or text.startswith("gpu:"):
        index = text.partition(":")[2] or "0"
        if index.isdigit():
            return DeviceConfig(kind="gpu", gpus=(int(index),))
    raise TimingError(key="cli.err.timing_device", params={"device": text})


def _spec(args: argparse.Namespace):
    from tfcore.model import get_preset

    if args.spec:
        return read_spec_file(args.spec)
    return get_preset(args.preset)


def _progress(enabled: bool):
    if not enabled:
        return None

    def report(fraction: float, message: str) -> None:
        print(json.dumps({"progress": round(fraction, 4), "message": message}),
              file=sys.stderr, flush=True)

    return report


def _timing(args: argparse.Namespace) -> int:
    from tfcore.timing import TimingRequest

    request = TimingRequest(
        spec=_spec(args), batch_size=args.batch_size, steps=args.steps,
        modes=tuple(m.strip() for m in args.modes.split(",") if m.strip()),
        workload=args.workload, warmup=args.warmup, rounds=args.rounds, seed=args.seed,
        data=args.dataset, clock=args.clock)
    request.check()  # refuse bad values before TensorFlow starts
    device = parse_device(args.device)
    from tfcore.timing import apply_threads, run_timing
    from tfcore.training import apply_device_config

    apply_threads(args.threads, args.threads)  # before the devices start the runtime
    applied = apply_device_config(device)
    progress = _progress(args.progress)
    if args.sweep:
        from tfcore.timing import SweepRequest, parse_values, run_sweep

        sweep = SweepRequest(request, args.sweep, parse_values(args.values or ""))
        result = run_sweep(sweep, progress).to_dict()
    else:
        result = run_timing(request, progress, measure_peak_flops=not args.no_peak).to_dict()
    result["applied_devices"] = {"visible_gpus": list(applied.visible_gpus),
                                 "logical": list(applied.logical)}
    if args.preset and not args.spec:
        result["preset"] = args.preset
    print_json(result)
    return 0


def _tracing(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from tfcore.timing import G2_TEXT, parse_sequence, run_tracing

    args_text = args.args if args.args is not None else G2_TEXT
    result = run_tracing(args.function, parse_sequence(args_text)
                         if args.function == "print_twice" else [], args.calls,
                         args.input_signature, args.reduce_retracing)
    print_json(asdict(result))
    return 0


def _autograph(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from tfcore.timing import run_example

    print_json(asdict(run_example(args.example, args.x)))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = command(sub, "timing", "time eager vs tf.function vs XLA on a model (JSON)",
                [("python -m tfcore timing --preset mlp --batch-size 50 --steps 50 "
                  "--modes eager,graph,xla"),
                 ("python -m tfcore timing --preset mlp --sweep batch --values 10,50,500 "
                  "--modes eager,graph")])
    src = p.add_mutually_exclusive_group()
    add_flag(src, "preset", default="mlp", help="preset model name (default: mlp)")
    add_flag(src, "spec", help="path of a model spec JSON file instead of a preset")
    add_flag(p, "batch_size", type=int, default=50, help="examples per batch (50)")
    add_flag(p, "steps", type=int, default=20, help="timed steps per mode (20)")
    p.add_argument("--modes", default="eager,graph,xla",
                   help="comma-separated: eager, graph, xla, fit")
    p.add_argument("--workload", default="step", choices=["step", "forward"])
    add_flag(p, "device", default="cpu", help="cpu or gpu:N")
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--rounds", type=int, default=4)
    add_flag(p, "seed", type=int, default=0, help="random seed (0)")
    add_flag(p, "dataset", default="synthetic",
             help="synthetic (default) or a dataset name, e.g. digits28")
    p.add_argument("--clock", default="wall", choices=["wall", "cpu"],
                   help="wall (elapsed) or cpu (process CPU time; steadier on a shared machine)")
    p.add_argument("--threads", type=int_range(0, 1024), default=0, metavar="N",
                   help="TensorFlow intra- and inter-op threads (0: TensorFlow chooses)")
    p.add_argument("--sweep", choices=["batch", "width"],
                   help="repeat over batch sizes or hidden widths given by --values")
    p.add_argument("--values", help="comma-separated sweep values")
    p.add_argument("--no-peak", action="store_true", help="skip the matmul peak measurement")
    p.add_argument("--progress", action="store_true", help="JSON progress lines on stderr")
    add_flag(p, "workspace", type=path_arg)
    p.set_defaults(func=_timing)

    p = command(sub, "tracing", "tracing lab: call a tf.function, see each trace (JSON)",
                ["python -m tfcore tracing",
                 "python -m tfcore tracing --function variable_counter --calls 3"])
    p.add_argument("--function", default="print_twice",
                   help="print_twice (G2), variable_counter (G3) or tensor_array (G5)")
    p.add_argument("--args", help="argument tokens for print_twice, e.g. "
                                  "'tf.int32:1 np.int32:2 1 0.1' (default: the G2 sequence)")
    p.add_argument("--calls", type=int, default=3, help="calls of a function with no argument")
    p.add_argument("--input-signature", help="fix one tensor input of this dtype")
    p.add_argument("--reduce-retracing", action="store_true")
    p.set_defaults(func=_tracing)
    p = command(sub, "autograph", "AutoGraph: converted source and results (JSON)",
                ["python -m tfcore autograph --example collatz_steps --x 27"])
    p.add_argument("--example", default="square_if_positive",
                   help="square_if_positive, collatz_steps, sum_of_squares, squares_array")
    p.add_argument("--x", type=int, help="the input (default: the example's)")
    p.set_defaults(func=_autograph)
