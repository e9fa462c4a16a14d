"""``data list`` and ``data show NAME``: the datasets TF Lab offers and what one contains."""

from __future__ import annotations

import argparse

from tfcore.cli import print_json
from tfcore.cli.inputs import dataset_option, fraction_arg, path_arg
from tfcore.cli.vocabulary import add_flag, command


def _list(args: argparse.Namespace) -> int:
    from tfcore.data import (
        DEFAULT_DATASET,
        SOURCES,
        SUGGESTED,
        dataset_prefixes,
        list_uploads,
        on_disk,
    )

    print_json({
        "default": DEFAULT_DATASET,
        "builtin": [{"name": s.name, "title": dict(s.title), "kind": s.kind, "task": s.task,
                     "options": list(s.options)} for s in SOURCES.values()],
        "prefixes": dataset_prefixes(),
        "tfds_suggested": list(SUGGESTED),
        "tfds_on_disk": on_disk(),
        "uploads": {kind: list_uploads(kind) for kind in ("csv", "npz", "images")},
    })
    return 0


def _show(args: argparse.Namespace) -> int:
    from tfcore.data import DatasetRequest, load_dataset

    request = DatasetRequest(args.name, dict(args.option or []), val_fraction=args.val,
                             test_fraction=args.test, seed=args.seed)
    bundle = load_dataset(request)
    counts = {split: bundle.class_counts(split) for split in ("train", "val", "test")}
    print_json({"request": request.to_dict(), "info": bundle.info.to_dict(),
                "class_counts": counts if bundle.info.task == "classification" else None,
                "x_dtype": str(bundle.x_train.dtype), "y_dtype": str(bundle.y_train.dtype),
                "y_shape": list(bundle.y_train.shape[1:])})
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = command(sub, "data", "datasets: list them, show one (JSON)",
                ["python -m tfcore data list",
                 "python -m tfcore data show circles -o noise=0.2"])
    data_sub = p.add_subparsers(dest="data_command", metavar="ACTION", required=True)
    q = command(data_sub, "list", "offline datasets, TFDS on disk, uploads",
                ["python -m tfcore data list"])
    add_flag(q, "workspace", type=path_arg)
    q.set_defaults(func=_list)
    q = command(data_sub, "show", "load a dataset and print its info as JSON",
                ["python -m tfcore data show digits28",
                 "python -m tfcore data show house_prices -o target=price --val 0.2"])
    q.add_argument("name", help="digits28, circles, tfds:mnist, upload:csv:FILE ...")
    add_flag(q, "option", action="append", type=dataset_option,
             help="dataset option, repeatable: -o noise=0.2 -o download=true")
    add_flag(q, "val", type=fraction_arg, default=0.1, help="validation fraction (0.1)")
    add_flag(q, "test", type=fraction_arg, default=0.2, help="test fraction (0.2)")
    add_flag(q, "seed", type=int, default=0, help="split seed (0)")
    add_flag(q, "workspace", type=path_arg)
    q.set_defaults(func=_show)
