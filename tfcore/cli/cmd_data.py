"""``data list`` and ``data show NAME``: the datasets TF Lab offers and what one contains."""

from __future__ import annotations

import argparse
import json

from tfcore.cli import print_json


def _option(text: str) -> tuple[str, object]:
    """``key=value``; the value is read as JSON when it parses (numbers, true, lists)."""
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value


def _list(args: argparse.Namespace) -> int:
    from tfcore.data import SOURCES, SUGGESTED, list_uploads, on_disk
    from tfcore.data import loader as data

    print_json({
        "default": data.DEFAULT_DATASET,
        "builtin": [{"name": s.name, "title": dict(s.title), "kind": s.kind, "task": s.task,
                     "options": list(s.options)} for s in SOURCES.values()],
        "prefixes": data.prefixes(),
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
    p = sub.add_parser("data", help="datasets: list them, show one (JSON)")
    data_sub = p.add_subparsers(dest="data_command", metavar="ACTION")
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])
    q = data_sub.add_parser("list", help="offline datasets, TFDS on disk, uploads")
    q.set_defaults(func=_list)
    q = data_sub.add_parser("show", help="load a dataset and print its info as JSON")
    q.add_argument("name", help="digits28, circles, tfds:mnist, upload:csv:FILE ...")
    q.add_argument("--option", "-o", action="append", type=_option, metavar="KEY=VALUE",
                   help="dataset option, e.g. -o noise=0.2 -o download=true")
    q.add_argument("--val", type=float, default=0.1, help="validation fraction (0.1)")
    q.add_argument("--test", type=float, default=0.2, help="test fraction (0.2)")
    q.add_argument("--seed", type=int, default=0, help="split seed (0)")
    q.set_defaults(func=_show)
