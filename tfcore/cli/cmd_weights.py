"""``weights FILE``: the variable table of a spec JSON, a ``.keras`` model or a run, as JSON."""

from __future__ import annotations

import argparse
from pathlib import Path

from tfcore.cli import print_json
from tfcore.cli.inputs import path_problem, read_spec_file
from tfcore.cli.vocabulary import command
from tfcore.errors import WeightsError


def _model(path: str):
    """The model behind ``weights FILE``: a run folder, a spec JSON or a ``.keras`` file."""
    from tfcore.weights import load_model_file, model_from_run

    problem = path_problem(path)
    if problem:
        raise WeightsError(key="cli.err.path", params={"problem": problem})
    file = Path(path)
    if file.is_dir():
        return model_from_run(file).model
    if file.suffix == ".json" and file.exists():
        from tfcore.model import build_model

        return build_model(read_spec_file(path))
    return load_model_file(path)


def _weights(args: argparse.Namespace) -> int:
    from tfcore.weights import build_for_input, is_deferred, parse_shape, variable_table

    model = _model(args.file)
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
    p = command(sub, "weights", "variable table of a spec, a .keras model or a run (JSON)",
                ["python -m tfcore weights cnn.json --no-stats",
                 "python -m tfcore weights workspace/runs/RUN_ID"])
    p.add_argument("file", help="a model spec (.json), a saved model (.keras) or a run directory "
                                "(latest checkpoint)")
    p.add_argument("--input-shape", default="",
                   help="build a deferred model first for this input, e.g. '2,20'")
    p.add_argument("--no-stats", dest="stats", action="store_false",
                   help="leave out mean/std/min/max per variable")
    p.set_defaults(func=_weights)
