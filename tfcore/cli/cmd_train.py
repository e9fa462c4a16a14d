"""``train``: train a preset or a spec file on a dataset in a worker process; print
progress, then one JSON summary line."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from tfcore.cli.device_flags import add_device_flags, device_config
from tfcore.cli.inputs import (
    dataset_option,
    fraction_arg,
    path_arg,
    read_spec_file,
    run_id_arg,
)
from tfcore.cli.inputs import runs_root as runs_root_of
from tfcore.cli.vocabulary import add_flag, command
from tfcore.training import LOOP_KINDS, OPTIMIZERS, SCHEDULES, SETTINGS, TrainConfig

LOOPS = tuple(LOOP_KINDS)


def _ranged(text: str, name: str) -> dict:
    """``type``, ``default`` and ``help`` of a flag for ``SETTINGS[name]``; the range is
    checked by ``TrainConfig`` (its error names the setting)."""
    setting = SETTINGS[name]
    default = "none" if setting.default is None else f"{setting.default:g}"
    return {"type": setting.kind, "default": setting.default,
            "help": f"{text} (default {default}; {setting.describe()})"}


def _choices(text: str, names: Any, default: str) -> dict:
    return {"choices": list(names), "default": default,
            "help": f"{text}: {' | '.join(names)} (default {default})"}


def _hosts(text: str) -> tuple[str, ...]:
    """argparse type: ``host:port`` addresses separated by commas."""
    return tuple(h.strip() for h in text.split(",") if h.strip())


def _spec(args: argparse.Namespace) -> dict:
    from tfcore.model import get_preset

    if args.spec:
        return read_spec_file(args.spec).to_dict()
    return get_preset(args.preset or "mlp").to_dict()


def _dataset(args: argparse.Namespace) -> dict:
    """The run's dataset request: name, ``-o`` options, split fractions and seed."""
    from tfcore.data import DatasetRequest

    return DatasetRequest(name=args.dataset, options=dict(args.option or []),
                          val_fraction=args.val, test_fraction=args.test,
                          seed=args.seed).to_dict()


def build_request(args: argparse.Namespace) -> dict:
    """The run.json body (spec, dataset, training, device) that `train` args ask for."""
    training: dict[str, Any] = {"epochs": args.epochs, "batch_size": args.batch_size,
                                "optimizer": args.optimizer, "learning_rate": args.lr,
                                "momentum": args.momentum, "schedule": args.schedule,
                                "loop": args.loop, "eager": args.eager, "seed": args.seed,
                                "ckpt_every": args.ckpt_every, "keep": args.keep,
                                "steps": args.steps, "mixed_precision": args.mixed_precision,
                                "validate_every": args.validate_every,
                                "steps_per_second": args.steps_per_second,
                                "ckpt_prefix": args.ckpt_prefix, "insight": args.insight,
                                "insight_every": args.insight_every}
    # refuse bad numbers and names before any data is loaded
    TrainConfig.from_dict({**training, **({"loss": args.loss} if args.loss else {})})
    spec, device, dataset = _spec(args), _device(args), _dataset(args)
    from tfcore.data import DatasetRequest, load_dataset
    from tfcore.training import default_loss_and_metrics

    # Loading checks every -o option as `data show` does (unknown name or bad value:
    # DatasetError, exit 2) before a run exists; it also gives the task's defaults.
    info = load_dataset(DatasetRequest.from_dict(dataset)).info
    if not args.loss or args.metrics is None:
        training["loss"], training["metrics"] = default_loss_and_metrics(info.task,
                                                                         info.num_classes)
    if args.loss:
        training["loss"] = args.loss
    if args.metrics is not None:
        training["metrics"] = [m for m in args.metrics.split(",") if m]
    request = {"spec": spec, "dataset": dataset, "training": training, "device": device}
    if args.name:
        request["name"] = args.name
    if device.get("kind") == "cluster":
        request["cluster"] = _cluster(args)
    return request


def _device(args: argparse.Namespace) -> dict:
    """``--device cluster`` (MultiWorkerMirroredStrategy), else the shared device flags."""
    from tfcore.errors import RunError

    if (args.device or "").strip().lower() != "cluster":
        if args.hosts or args.workers is not None:
            raise RunError(key="cluster.err.flags_need_cluster")
        return device_config(args)
    if args.logical_devices or args.gpus or args.memory_limit:
        raise RunError(key="cluster.err.flags_device")
    return {"kind": "cluster"}


def _cluster(args: argparse.Namespace) -> dict:
    """The ``cluster`` section from ``--workers`` / ``--hosts`` / ``--backup-every``."""
    from tfcore.training import ClusterConfig

    if args.hosts and args.workers is not None:
        from tfcore.errors import RunError

        raise RunError(key="cluster.err.flags_both")
    config = ClusterConfig.from_dict({"workers": args.workers or SETTINGS["workers"].default,
                                      "hosts": args.hosts or (),
                                      "backup_every": args.backup_every})
    return config.to_dict()


def _fmt(record: dict) -> str:
    skip = {"step", "epoch", "time", "elapsed", "split", "samples_per_sec"}
    values = " ".join(f"{k}={v:.4g}" for k, v in record.items()
                      if k not in skip and isinstance(v, (int, float)))
    return f"[{record.get('split')}] epoch {record.get('epoch')} step {record.get('step')} {values}"


def follow(runs_root: Path, run_id: str, quiet: bool = False, every: float = 1.0) -> str:
    """Print progress of a run until it ends; Ctrl-C asks it to stop. Returns the state."""
    from tfcore.rundir import FINAL_STATES, RunStore
    from tfcore.training import reconcile, stop_run

    store = RunStore(runs_root)
    offset, last_print, last_state = 0, 0.0, None
    while True:
        try:
            record = store.get(run_id)
            state = record.status.state
            if state != last_state and not quiet:
                print(f"{run_id}: {state}", file=sys.stderr, flush=True)
                last_state = state
            chunk = store.metrics(run_id, offset)
            offset = chunk.offset
            for item in chunk.records:
                due = time.time() - last_print >= every
                if not quiet and (item.get("split") != "train" or due):
                    print(_fmt(item), file=sys.stderr, flush=True)
                    last_print = time.time()
            if state in FINAL_STATES:
                return state
            reconcile(runs_root)
            time.sleep(0.25)
        except KeyboardInterrupt:
            print("stopping after the current batch ...", file=sys.stderr, flush=True)
            stop_run(runs_root, run_id)


def summary(runs_root: Path, run_id: str) -> dict:
    """The one-line JSON summary of a run."""
    from tfcore.rundir import RunStore

    record = RunStore(runs_root).get(run_id)
    extra = record.status.extra
    return {"run_id": run_id, "name": record.name, "run_dir": str(record.paths.root),
            "state": record.status.state,
            "epochs": record.status.epoch, "steps": record.status.step,
            "train": extra.get("last") or {}, "val": extra.get("last_val") or {},
            "test": extra.get("test_metrics") or {},
            "samples_per_sec": extra.get("samples_per_sec"),
            "wall_seconds": extra.get("wall_seconds"), "replicas": extra.get("replicas"),
            "events": extra.get("events") or [],
            "devices": extra.get("devices"),
            "parameters": extra.get("parameters"),
            "message": record.status.message}


def _print_join_commands(runs_root: Path, run_id: str) -> None:
    """For a hosts list: the command to run on every other host."""
    from tfcore.jsonio import read_json
    from tfcore.training import join_command

    request = read_json(Path(runs_root) / run_id / "run.json", {}) or {}
    hosts = (request.get("cluster") or {}).get("hosts") or []
    file = Path(runs_root) / run_id / "cluster.json"
    for index, host in enumerate(hosts[1:], start=1):
        print(f"on {host.rsplit(':', 1)[0]}: copy {file} there, then run: "
              f"{join_command('cluster.json', index)}", file=sys.stderr, flush=True)


def _settled(request: dict) -> dict:
    """The request with the loss the run will use, said in one line when it is not the one
    asked for; raise the refusal (a located RunError) when no loss reads the last layer's
    output. (``start_run`` settles the same way and records it in run.json.)"""
    from tfcore.training import settle_loss

    settled, choice = settle_loss(request)
    if choice.verdict == "switch":
        print(choice.message(), file=sys.stderr, flush=True)
    return settled


def _run_name(runs_root: Path, run_id: str) -> str:
    from tfcore.rundir import RunStore

    return RunStore(runs_root).get(run_id).name


def _train(args: argparse.Namespace) -> int:
    from tfcore.training import resume_run, start_run
    from tfcore.workspace import default_workspace

    runs_root = runs_root_of(args) if args.runs_root else default_workspace().ensure().runs
    if args.resume:
        run_id = resume_run(runs_root, args.resume)
    else:
        from tfcore.training import check_request_fits

        request = build_request(args)
        settled = _settled(request)         # the loss the last layer's output needs
        check_request_fits(settled)         # the worker's refusal, before a run exists
        run_id = start_run(runs_root, request)
        if not args.quiet:
            print(f"run {run_id}: {_run_name(runs_root, run_id)!r}", file=sys.stderr,
                  flush=True)
    _print_join_commands(runs_root, run_id)
    state = follow(runs_root, run_id, quiet=args.quiet)
    print(json.dumps(summary(runs_root, run_id), ensure_ascii=False, default=str), flush=True)
    return 0 if state in ("finished", "stopped") else 1


def register(sub: argparse._SubParsersAction) -> None:
    p = command(sub, "train", "train a model in a worker; ends with one JSON line",
                ["python -m tfcore train --preset mlp --dataset digits28 --epochs 3",
                 "python -m tfcore train --spec my.json --dataset house_prices -o target=price"])
    source = p.add_mutually_exclusive_group()
    add_flag(source, "preset", help="preset model name (default mlp; see: presets)")
    add_flag(source, "spec", help="model spec JSON file")
    p.add_argument("--name", default=None, help="the run's name (default: the model's; "
                                                 "'lesson_net 2' when taken)")
    add_flag(p, "dataset", default="digits28", help="dataset name (default digits28; "
                                                    "see: data list)")
    add_flag(p, "option", action="append", type=dataset_option,
             help="dataset option, repeatable: -o image_size=224 -o target=price")
    add_flag(p, "val", type=fraction_arg, default=0.1, help="validation fraction (0.1)")
    add_flag(p, "test", type=fraction_arg, default=0.2, help="test fraction (0.2)")
    add_flag(p, "epochs", **_ranged("passes over the training split", "epochs"))
    add_flag(p, "steps", **_ranged("total steps, 0: use --epochs", "steps"))
    add_flag(p, "batch_size", **_ranged("examples per batch", "batch_size"))
    p.add_argument("--validate-every", metavar="N",
                   **_ranged("validate every N epochs", "validate_every"))
    add_flag(p, "optimizer", **_choices("optimizer", OPTIMIZERS, TrainConfig.optimizer))
    add_flag(p, "lr", **_ranged("learning rate", "learning_rate"))
    p.add_argument("--momentum", metavar="M", **_ranged("momentum of the optimizers that take it: "
                                           + ", ".join(n for n, o in OPTIMIZERS.items()
                                                       if "momentum" in o.options),
                                           "momentum"))
    p.add_argument("--schedule", metavar="NAME", **_choices("learning-rate schedule", SCHEDULES,
                                                  TrainConfig.schedule))
    p.add_argument("--loss", default=None, help="loss name (default by preset/task)")
    p.add_argument("--metrics", default=None, help="comma-separated metric names")
    p.add_argument("--loop", **_choices("training loop", LOOP_KINDS, TrainConfig.loop))
    p.add_argument("--eager", action="store_true", help="custom loop without tf.function")
    p.add_argument("--mixed-precision", action="store_true")
    add_flag(p, "steps_per_second", **_ranged(
        "at most this many training steps a second (demo pacing)", "steps_per_second"))
    add_flag(p, "seed", **_ranged("random seed", "seed"))
    add_device_flags(p, device_default="cpu")
    workers = SETTINGS["workers"]
    p.add_argument("--workers", type=int, default=None, metavar="N",
                   help=f"--device cluster: N worker processes on this machine "
                        f"(default {workers.default}; {workers.describe()})")
    p.add_argument("--hosts", type=_hosts, default=None, metavar="HOST:PORT,...",
                   help="--device cluster: every worker's address, the chief (this "
                        "machine) first")
    p.add_argument("--backup-every", metavar="N", **_ranged(
        "--device cluster: fault-tolerance backup every N steps", "backup_every"))
    add_flag(p, "runs_root", type=path_arg)
    add_flag(p, "workspace", type=path_arg)
    p.add_argument("--ckpt-every", metavar="N", **_ranged("checkpoint every N steps",
                                                          "ckpt_every"))
    add_flag(p, "keep", **_ranged("checkpoints to keep", "keep"))
    p.add_argument("--insight", action=argparse.BooleanOptionalAction, default=True,
                   help="record the model's insides while it trains: weight histograms, "
                        "gradient norms, dead ReLUs, the decision boundary and neuron "
                        "pictures of 2-D data (insight/ in the run; see: runs insight)")
    p.add_argument("--insight-every", metavar="N", **_ranged(
        "insight snapshot every N steps, 0: auto (as often as they cost <= 3 %% of the "
        "training time, and at the start and the end)", "insight_every"))
    add_flag(p, "ckpt_prefix", default="ckpt")
    p.add_argument("--resume", default=None, type=run_id_arg, metavar="RUN_ID",
                   help="continue a stopped run from its latest checkpoint")
    p.add_argument("--quiet", action="store_true", help="only the JSON summary line")
    p.set_defaults(func=_train)
