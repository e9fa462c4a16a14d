"""``presets`` and ``spec``: list and show the tutorials' models; check a spec, emit its
code, import a ``.keras`` model as a spec, list the layer types; list, rename and delete
the models saved in the workspace (a saved model's own weights follow it)."""

from __future__ import annotations

import argparse

from tfcore.cli.inputs import int_range, path_arg, path_problem, read_spec_file, shown
from tfcore.cli.vocabulary import add_flag, command
from tfcore.errors import SpecError
from tfcore.messages import names


def _presets(args: argparse.Namespace) -> int:
    from tfcore.model import get_preset, preset_names

    if args.action == "show":
        if not args.name:
            raise SpecError(key="cli.err.preset_name")
        print(get_preset(args.name).to_json())
        return 0
    for name in preset_names():
        print(name)
    return 0


def format_summary(summary) -> str:
    """The summary as a text table, like ``model.summary()``."""
    rows = [("Layer (type)", "Output shape", "Param #")]
    for row in summary.rows:
        shared = f" -> shares {row.shares}" if row.shares else ""
        rows.append((f"{row.name} ({row.type}){shared}", row.output_shape,
                     "?" if row.params is None else f"{row.params:,}"))
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    lines = ["  ".join(cell.ljust(widths[i]) for i, cell in enumerate(r)) for r in rows]
    lines.insert(1, "-" * len(lines[0]))
    lines += ["-" * len(lines[0]), f"Total params: {summary.total:,}",
              f"Trainable params: {summary.trainable:,}",
              f"Non-trainable params: {summary.non_trainable:,}"]
    if summary.deferred:
        lines.append("No input shape: the model has no weights until it is first called.")
    return "\n".join(lines)


def _check(args: argparse.Namespace) -> int:
    from tfcore.model import summarize

    spec = read_spec_file(args.file)
    summary = summarize(spec, args.param_limit)
    if summary.problems:
        raise SpecError(key="cli.err.spec_problems",
                        params={"path": args.file, "count": len(summary.problems)},
                        details=list(summary.problems))
    print(format_summary(summary))
    _say_weights(spec)
    return 0


def _say_weights(spec) -> None:
    """Whether a spec's initial weights can be used: a line on stdout, or why not (located,
    on stderr) and that the model then starts as an architecture only."""
    import sys

    from tfcore import settings
    from tfcore.messages import render
    from tfcore.model import weights_problem
    from tfcore.workspace import default_workspace

    if not spec.weights:
        return
    lang = settings.cli_lang()
    problem = weights_problem(spec, default_workspace())
    if problem is None:
        print(render("cli.spec.weights_ok", {"path": spec.weights}, lang))
        return
    print(render("spec.weights_dropped", {"problem": problem.text(lang)}, lang),
          file=sys.stderr)


def _code(args: argparse.Namespace) -> int:
    from tfcore.model import generate

    print(generate(read_spec_file(args.file), args.style))
    return 0


def _import(args: argparse.Namespace) -> int:
    """A .keras model (safe mode) as spec JSON, printed or written to ``--out``; its weights
    are kept in the workspace as the spec's initial weights (``--no-weights``: not)."""
    import sys
    from pathlib import Path

    from tfcore import settings
    from tfcore.messages import render
    from tfcore.model import import_keras_weights
    from tfcore.workspace import default_workspace

    source = Path(args.file)
    if source.is_dir() or not source.is_file():
        raise SpecError(key="cli.err.no_keras_file", params={"path": shown(args.file)})
    out = Path(args.out) if args.out else None
    problem = path_problem(args.out) if args.out else None
    if problem:
        raise SpecError(key="cli.err.path", params={"problem": problem})
    if out is not None and out.is_dir():
        raise SpecError(key="cli.err.out_folder", params={"path": shown(args.out)})
    result = import_keras_weights(source, default_workspace().ensure(), shown=source.name,
                                  stem=source.stem, keep_weights=not args.no_weights)
    spec, lang = result.spec, settings.cli_lang()
    said = {"name": source.name, "layers": result.layers, "kind": spec.kind,
            "params": f"{result.params:,}", "out": args.out or "-",
            "weights": render("cli.spec.weights_kept", {"path": result.weights}, lang)
            if result.weights else render("cli.spec.weights_skipped" if args.no_weights
                                          else "cli.spec.weights_none", {}, lang)}
    text = spec.to_json()
    if out is None:
        print(text)
        print(render("cli.spec.imported", said, lang), file=sys.stderr)  # JSON stays clean
        return 0
    try:
        out.write_text(text + "\n", encoding="utf-8")
    except OSError as exc:
        raise SpecError(key="cli.err.write", params={"path": shown(args.out),
                                                    "reason": exc.strerror or str(exc)}) from None
    print(render("cli.spec.imported", said, lang))
    return 0


def _saved(args: argparse.Namespace) -> int:
    """The workspace's saved models, one a line: name, kind, layers, and whether it has
    initial weights. A file that does not read is listed with its located problem."""
    from tfcore import settings
    from tfcore.messages import render
    from tfcore.model import list_specs
    from tfcore.workspace import default_workspace

    ws, lang = default_workspace(), settings.cli_lang()
    names_ = list_specs(ws)
    if not names_:
        print(render("cli.spec.saved_none", {"path": ws.models}, lang))
        return 0
    width = max(map(len, names_))
    for name in names_:
        print(f"{name:<{width}}  {_saved_line(ws, name, lang)}")
    return 0


def _saved_line(ws, name: str, lang: str) -> str:
    """What ``spec saved`` says of one saved model: kind and layers, or why it did not read."""
    from tfcore.errors import TFLabError
    from tfcore.messages import render
    from tfcore.model import load_spec

    path = f"models/{name}.json"
    try:
        spec = load_spec(ws, name)
    except TFLabError as exc:
        return exc.text(lang)
    except UnicodeDecodeError as exc:                       # not UTF-8 text
        return render("cli.err.spec_binary", {"path": path, "offset": exc.start}, lang)
    except OSError as exc:                                  # unreadable
        return render("cli.err.read", {"path": path, "reason": exc.strerror or str(exc)}, lang)
    weights = render("cli.spec.saved_weights", {}, lang) if spec.weights else ""
    return render("cli.spec.saved_row", {"kind": spec.kind, "layers": len(spec.layers)},
                  lang) + weights


def _rename(args: argparse.Namespace) -> int:
    from tfcore import settings
    from tfcore.messages import render
    from tfcore.model import rename_spec
    from tfcore.workspace import default_workspace

    rename_spec(default_workspace(), args.name, args.new)
    print(render("cli.spec.renamed", {"name": args.name, "new": args.new},
                 settings.cli_lang()))
    return 0


def _delete(args: argparse.Namespace) -> int:
    from tfcore import settings
    from tfcore.messages import render
    from tfcore.model import delete_spec
    from tfcore.workspace import default_workspace

    delete_spec(default_workspace(), args.name)
    print(render("cli.spec.deleted", {"name": args.name}, settings.cli_lang()))
    return 0


def _types(args: argparse.Namespace) -> int:
    """Catalog types by family, one a line: ``family  Type  label``."""
    from tfcore.model import CATEGORIES, layer_types

    if args.family and args.family not in CATEGORIES:
        raise SpecError(key="cli.err.family",
                        params={"family": shown(args.family), "choices": names(CATEGORIES)})
    for family in CATEGORIES:
        if args.family and family != args.family:
            continue
        for name, kind in layer_types().items():
            if kind.category == family:
                print(f"{family:<15}{name:<46}{kind.title['en']}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = command(sub, "presets", "the tutorials' models: list names, or show one as JSON",
                ["python -m tfcore presets",
                 "python -m tfcore presets show cnn > cnn.json"])
    p.add_argument("action", nargs="?", choices=["list", "show"], default="list")
    p.add_argument("name", nargs="?", help="preset name (for show)")
    p.set_defaults(func=_presets)

    spec = command(sub, "spec", "check a model spec file, generate its Keras code, import a "
                                "Keras model, list layer types, list, rename and delete "
                                "saved models",
                   ["python -m tfcore spec check cnn.json",
                    "python -m tfcore spec import model.keras --out model.json"])
    actions = spec.add_subparsers(dest="spec_command", metavar="ACTION", required=True)
    check = command(actions, "check", "validate and print the summary table "
                                      "(exit 2 with located problems)",
                    ["python -m tfcore spec check cnn.json",
                     "python -m tfcore spec check cnn.json --param-limit 100000"])
    check.add_argument("file", help="model spec JSON file")
    check.add_argument("--param-limit", type=int_range(1), default=None, metavar="N",
                       help="refuse models with more parameters (default 50,000,000)")
    check.set_defaults(func=_check)
    code = command(actions, "code", "print runnable Keras 3 code for the spec",
                   ["python -m tfcore spec code cnn.json",
                    "python -m tfcore spec code cnn.json --style subclass > model.py"])
    code.add_argument("file", help="model spec JSON file")
    code.add_argument("--style", choices=["sequential", "functional", "subclass", "container"],
                      default="functional")
    code.set_defaults(func=_code)
    imp = command(actions, "import", "turn a .keras model file into spec JSON and keep its "
                                     "weights (safe mode: no code from the file runs)",
                  ["python -m tfcore spec import model.keras --out model.json",
                   "python -m tfcore spec import model.keras --no-weights > arch.json"])
    imp.add_argument("file", type=path_arg, help=".keras model file")
    add_flag(imp, "out", default=None, metavar="FILE",
             help="write the spec JSON to this file (default: print it)")
    imp.add_argument("--no-weights", action="store_true",
                     help="the architecture only: do not keep the file's weights (default: "
                          "kept in <workspace>/models/imported as the spec's initial weights)")
    imp.set_defaults(func=_import)
    saved = command(actions, "saved", "list the models saved in the workspace (the model "
                                      "builder's Save to the workspace)",
                    ["python -m tfcore spec saved"])
    add_flag(saved, "workspace", type=path_arg)
    saved.set_defaults(func=_saved)
    rename = command(actions, "rename", "rename a saved model; its own initial weights move "
                                        "with it", ["python -m tfcore spec rename mlp lesson_net"])
    rename.add_argument("name", help="the saved model's name")
    rename.add_argument("new", help="its new name (not taken)")
    add_flag(rename, "workspace", type=path_arg)
    rename.set_defaults(func=_rename)
    delete = command(actions, "delete", "delete a saved model and the initial weights only it "
                                        "uses",
                     ["python -m tfcore spec delete lesson_net"])
    delete.add_argument("name", help="the saved model's name")
    add_flag(delete, "workspace", type=path_arg)
    delete.set_defaults(func=_delete)
    types = command(actions, "types", "list the layer types of the catalog by family",
                    ["python -m tfcore spec types",
                     "python -m tfcore spec types --family attention"])
    types.add_argument("--family", default=None, metavar="FAMILY",
                       help="only this family (core, conv, pool, attention, image ...)")
    types.set_defaults(func=_types)
