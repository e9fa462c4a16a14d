"""``runs list|show|delete|rename|tag|insight`` and ``ckpt list|vars|stats|diff|eval|conv|export``."""

from __future__ import annotations

import argparse
import json
import unicodedata
from pathlib import Path

from tfcore.cli import print_json
from tfcore.cli.inputs import int_range, path_arg, run_id_arg, runs_root, shown
from tfcore.cli.runs_insight import add_insight_command
from tfcore.cli.vocabulary import add_flag, command

RUN_FILES = ("run.json", "status.json", "ckpt")   # what makes a folder a run folder


def _runs_root(args: argparse.Namespace) -> Path:
    return runs_root(args, must_exist=True)


def _run_dir(args: argparse.Namespace, run: str) -> Path:
    """A run given by id (inside the runs root) or by folder path."""
    from tfcore.errors import RunError
    from tfcore.rundir import RunStore

    path = Path(run)
    if "/" in run:
        if path.is_dir() and any((path / name).exists() for name in RUN_FILES):
            return path
        raise RunError(key="cli.err.no_run_folder", params={"path": shown(run)})
    root = _runs_root(args)
    paths = RunStore(root).paths(run)
    if not paths.root.is_dir():
        raise RunError(key="errors.run_missing", params={"run": run, "root": str(root)})
    return paths.root


def _summary_dict(summary) -> dict:
    out = summary.to_dict()
    out.pop("group", None)
    return out


def _runs_list(args: argparse.Namespace) -> int:
    from tfcore.runs import list_runs

    print_json([_summary_dict(s) for s in list_runs(_runs_root(args))])
    return 0


def _runs_show(args: argparse.Namespace) -> int:
    from tfcore.jsonio import read_json
    from tfcore.rundir import RunStore
    from tfcore.runs import list_checkpoints, summarize

    run_dir = _run_dir(args, args.run)
    record = RunStore(run_dir.parent).get(run_dir.name)
    out = {"summary": _summary_dict(summarize(record)),
           "request": read_json(record.paths.run_json),
           "status": read_json(record.paths.status_json)}
    out["checkpoints"] = (list_checkpoints(run_dir).to_dict()
                          if record.paths.ckpt_dir.is_dir() else None)
    print_json(out)
    return 0


def _runs_delete(args: argparse.Namespace) -> int:
    from tfcore.runs import delete_old_checkpoints, delete_run

    root = _runs_root(args)
    if args.old_checkpoints:
        result = delete_old_checkpoints(root, args.run, keep=args.keep)
    else:
        result = delete_run(root, args.run)
    print_json({"run": result.run_id, "removed": list(result.removed),
                "freed_bytes": result.freed_bytes})
    return 0


def _runs_rename(args: argparse.Namespace) -> int:
    from tfcore.runs import rename_run

    print_json(rename_run(_runs_root(args), args.run, args.name))
    return 0


def _runs_tag(args: argparse.Namespace) -> int:
    from tfcore.runs import set_tags

    print_json(set_tags(_runs_root(args), args.run, args.tags))
    return 0


def _ckpt_list(args: argparse.Namespace) -> int:
    from tfcore.runs import list_checkpoints

    print_json(list_checkpoints(_run_dir(args, args.run)).to_dict())
    return 0


def _ckpt_vars(args: argparse.Namespace) -> int:
    from tfcore.runs import list_variables

    result = list_variables(_ckpt_path(args, args.path), args.ckpt)
    print_json({"prefix": str(result.prefix), "problems": [str(p) for p in result.problems],
                "variables": [{"key": v.key, "label": v.label, "shape": list(v.shape),
                               "dtype": v.dtype, "size": v.size} for v in result.variables]})
    return 0 if not result.problems else 2


def _ckpt_path(args: argparse.Namespace, text: str) -> Path:
    """A checkpoint given by run id, run or checkpoint folder, or prefix."""
    from tfcore.errors import CheckpointError

    path = Path(text)
    if path.exists() or Path(text + ".index").exists():
        return path
    if "/" in text or path.suffix:
        raise CheckpointError(key="cli.err.no_checkpoint_path", params={"path": shown(text)})
    return _run_dir(args, text)


def _ckpt_stats(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from tfcore.runs import resolve_prefix, variable_stats

    prefix = resolve_prefix(_ckpt_path(args, args.path), args.ckpt)
    print_json(asdict(variable_stats(prefix, args.key, bins=args.bins)))
    return 0


def _ckpt_diff(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from tfcore.runs import diff_checkpoints, resolve_prefix

    a = resolve_prefix(_ckpt_path(args, args.a))
    b = resolve_prefix(_ckpt_path(args, args.b))
    diff = diff_checkpoints(a, b)
    print_json({"a": str(diff.a), "b": str(diff.b), "problems": list(diff.problems),
                "rows": [asdict(r) for r in diff.rows]})
    return 0


def _ckpt_eval(args: argparse.Namespace) -> int:
    from tfcore.runs import evaluate_run

    result = evaluate_run(_run_dir(args, args.run), args.ckpt, split=args.split)
    print_json(result.to_dict())
    return 0 if result.report.complete else 2


def _ckpt_conv(args: argparse.Namespace) -> int:
    from tfcore import settings
    from tfcore.runs import conv_view

    view = conv_view(_run_dir(args, args.run), args.ckpt, args.image, args.layer)
    if args.json:     # one line: the value arrays would take a line per number indented
        print(json.dumps(view.to_dict(values=True), ensure_ascii=False))
    else:
        print(conv_text(view.to_dict(), settings.cli_lang()))
    return 0


def conv_text(view: dict, lang: str) -> str:
    """A CNN run's filters and feature maps at one checkpoint (``ConvView.to_dict()``) as
    lines of text: what was read, then a small table of each."""
    from tfcore.messages import render

    filters, image, maps = view["filters"], view["image"], view["maps"]
    growth = ", ".join(f"{n}: {v:.4g}" for n, v in filters["growth"])
    lines = [render("cli.conv.head", {**view, "conv_layers": ", ".join(view["conv_layers"])},
                    lang),
             render("cli.conv.filters", {**filters, "shape": tuple(filters["shape"]),
                                         "shown": filters["shape"][-1], "growth": growth},
                    lang)]
    lines += _table(render("cli.conv.col.filter", None, lang), ("min", "max"),
                    [filters["min"], filters["max"]])
    lines.append(render("cli.conv.image", {**image, "shape": tuple(image["shape"])}, lang))
    lines.append(render("cli.conv.maps", {**maps, "shape": tuple(maps["shape"]),
                                          "shown": maps["shape"][-1]}, lang))
    lines += _table(render("cli.conv.col.map", None, lang), ("min", "max", "mean"),
                    [maps["min"], maps["max"], maps["mean"]])
    return "\n".join(lines)


def _table(first: str, names: tuple[str, ...], columns: list[list[float]]) -> list[str]:
    rows = [(first, *names)] + [(str(i), *(f"{c[i]:.4f}" for c in columns))
                                for i in range(len(columns[0]))]
    widths = [max(_width(r[j]) for r in rows) for j in range(len(rows[0]))]
    return ["  " + "  ".join(" " * (widths[j] - _width(cell)) + cell
                             for j, cell in enumerate(r)) for r in rows]


def _width(text: str) -> int:
    """Columns a text takes in a terminal (a Chinese character takes two)."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _ckpt_export(args: argparse.Namespace) -> int:
    from tfcore.errors import WorkspaceError
    from tfcore.runs import export_checkpoint, export_run_zip
    from tfcore.workspace import default_workspace

    run_dir = _run_dir(args, args.run)
    if args.out and Path(args.out).exists() and not Path(args.out).is_dir():
        raise WorkspaceError(key="cli.err.out_file", params={"path": shown(args.out)})
    exports = Path(args.out) if args.out else default_workspace().ensure().exports
    result = (export_run_zip(run_dir, exports) if args.format == "zip"
              else export_checkpoint(run_dir, exports, args.format, args.ckpt))
    print_json({"path": str(result.path), "format": result.fmt, "size": result.size})
    return 0


def _common(p: argparse.ArgumentParser) -> None:
    add_flag(p, "runs_root", type=path_arg)
    add_flag(p, "workspace", type=path_arg)


def _run(p: argparse.ArgumentParser, name: str = "run", what: str = "") -> None:
    p.add_argument(name, type=run_id_arg,
                   help=what or "run id (see: runs list) or a run's folder")


def _ckpt(p: argparse.ArgumentParser) -> None:
    add_flag(p, "ckpt", type=int_range(0), default=None)


def register(sub: argparse._SubParsersAction) -> None:
    runs = command(sub, "runs", "list, show, rename, tag and delete training runs",
                   ["python -m tfcore runs list",
                    "python -m tfcore runs show RUN_ID --runs-root /data/runs"])
    rsub = runs.add_subparsers(dest="runs_command", metavar="ACTION", required=True)
    p = command(rsub, "list", "every run with model, dataset, state, final metrics",
                ["python -m tfcore runs list",
                 "python -m tfcore runs list --runs-root /data/runs"])
    _common(p)
    p.set_defaults(func=_runs_list)
    p = command(rsub, "show", "one run: summary, run.json, status, checkpoints",
                ["python -m tfcore runs show RUN_ID"])
    _run(p)
    _common(p)
    p.set_defaults(func=_runs_show)
    p = command(rsub, "delete", "delete a whole run, or only its old checkpoints",
                ["python -m tfcore runs delete RUN_ID",
                 "python -m tfcore runs delete RUN_ID --old-checkpoints --keep 2"])
    _run(p, what="run id (see: runs list)")
    p.add_argument("--old-checkpoints", action="store_true",
                   help="keep the run; delete all but the newest --keep checkpoints")
    add_flag(p, "keep", type=int_range(1), default=1,
             help="checkpoints to keep with --old-checkpoints (1)")
    _common(p)
    p.set_defaults(func=_runs_delete)
    p = command(rsub, "rename", "set a run's display name (meta.json)",
                ["python -m tfcore runs rename RUN_ID 'wider layers'"])
    _run(p, what="run id (see: runs list)")
    p.add_argument("name")
    _common(p)
    p.set_defaults(func=_runs_rename)
    p = command(rsub, "tag", "replace a run's tags (meta.json)",
                ["python -m tfcore runs tag RUN_ID baseline lesson3"])
    _run(p, what="run id (see: runs list)")
    p.add_argument("tags", nargs="*")
    _common(p)
    p.set_defaults(func=_runs_tag)
    add_insight_command(rsub, _run, _common, _run_dir)

    ckpt = command(sub, "ckpt", "look inside, compare, evaluate and export checkpoints",
                   ["python -m tfcore ckpt list RUN_ID",
                    "python -m tfcore ckpt diff RUN_A RUN_B"])
    csub = ckpt.add_subparsers(dest="ckpt_command", metavar="ACTION", required=True)
    p = command(csub, "list", "checkpoints of a run: number, time, size, files",
                ["python -m tfcore ckpt list RUN_ID"])
    _run(p)
    _common(p)
    p.set_defaults(func=_ckpt_list)
    p = command(csub, "vars", "variables of a checkpoint (run, folder or prefix)",
                ["python -m tfcore ckpt vars RUN_ID",
                 "python -m tfcore ckpt vars RUN_ID --ckpt 200"])
    _run(p, "path", "run id, run or checkpoint folder, or checkpoint prefix")
    _ckpt(p)
    _common(p)
    p.set_defaults(func=_ckpt_vars)
    p = command(csub, "stats", "statistics and histogram of one variable",
                ["python -m tfcore ckpt stats RUN_ID dense/kernel --bins 20"])
    _run(p, "path", "run id, run or checkpoint folder, or checkpoint prefix")
    p.add_argument("key", help="variable key or label (see: ckpt vars)")
    _ckpt(p)
    p.add_argument("--bins", type=int_range(1, 1000), default=30, help="histogram bins (30)")
    _common(p)
    p.set_defaults(func=_ckpt_stats)
    p = command(csub, "diff", "per-variable change between two checkpoint prefixes",
                ["python -m tfcore ckpt diff RUN_A RUN_B",
                 "python -m tfcore ckpt diff runs/RUN_ID/ckpt/ckpt-100 runs/RUN_ID/ckpt/ckpt-200"])
    _run(p, "a", "run id, run or checkpoint folder, or checkpoint prefix")
    _run(p, "b", "the same, for the other checkpoint")
    _common(p)
    p.set_defaults(func=_ckpt_diff)
    p = command(csub, "eval", "restore a run's checkpoint, evaluate on its test split",
                ["python -m tfcore ckpt eval RUN_ID",
                 "python -m tfcore ckpt eval RUN_ID --ckpt 100 --split val"])
    _run(p)
    _ckpt(p)
    p.add_argument("--split", default="test", choices=("train", "val", "test"))
    _common(p)
    p.set_defaults(func=_ckpt_eval)
    p = command(csub, "conv", "a CNN run's conv filters and the feature maps of one test "
                "image at a checkpoint",
                ["python -m tfcore ckpt conv RUN_ID",
                 "python -m tfcore ckpt conv RUN_ID --ckpt 100 --image 7 --layer conv2 --json"])
    _run(p)
    _ckpt(p)
    p.add_argument("--image", type=int_range(0), default=0, metavar="I",
                   help="number of the test image (0 = the first of the test split)")
    p.add_argument("--layer", default=None, metavar="NAME",
                   help="Conv2D layer name (default: the model's first Conv2D)")
    p.add_argument("--json", action="store_true",
                   help="print one JSON document with the values (rounded): filters "
                   "(kh, kw, in, out), the image, feature maps (h, w, out)")
    _common(p)
    p.set_defaults(func=_ckpt_conv)
    p = command(csub, "export", "export a checkpoint (keras, savedmodel, weights_h5) "
                "or the whole run (zip)",
                ["python -m tfcore ckpt export RUN_ID --format savedmodel",
                 "python -m tfcore ckpt export RUN_ID --format zip --out /tmp/exports"])
    _run(p)
    add_flag(p, "format", default="keras", choices=("keras", "savedmodel", "weights_h5", "zip"),
             help="keras (default), savedmodel, weights_h5 or zip")
    _ckpt(p)
    add_flag(p, "out", type=path_arg,
             help="folder for the export (default: <workspace>/exports)")
    _common(p)
    p.set_defaults(func=_ckpt_export)
