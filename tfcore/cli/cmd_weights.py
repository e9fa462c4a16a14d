"""``weights FILE``: the variable table of a spec JSON, a ``.keras`` model or a run, as JSON."""

from __future__ import annotations

import argparse
from pathlib import Path

from tfcore.cli import print_json


def _weights(args: argparse.Namespace) -> int:
    from tfcore.weights import (
        build_for_input,
        is_deferred,
        load_model_file,
        parse_shape,
        variable_table,
    )

    if Path(args.file).is_dir():
        from tfcore.weights import model_from_run

        model = model_from_run(Path(args.file)).model
    else:
        model = load_model_file(args.file)
    if args.input_shape:
        table = build_for_input(model, parse_shape(args.input_shape))
    else:
        table = variable_table(model)
    document = table.to_dict()
    document["deferred"] = is_deferred(model)
    if not args.stats:
        for variable in document["variables"]:
            variable.pop("stats")
    print_json(document)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("weights", help="variable table of a spec, a .keras model or a run (JSON)")
    p.add_argument("file", help="a model spec (.json), a saved model (.keras) or a run directory "
                                "(latest checkpoint)")
    p.add_argument("--input-shape", default="",
                   help="build a deferred model first for this input, e.g. '2,20'")
    p.add_argument("--no-stats", dest="stats", action="store_false",
                   help="leave out mean/std/min/max per variable")
    p.set_defaults(func=_weights)
