"""``runs list|show|delete|rename|tag`` and ``ckpt list|vars|stats|diff|eval|export``."""

from __future__ import annotations

import argparse
from pathlib import Path

from tfcore.cli import print_json


def _runs_root(args: argparse.Namespace) -> Path:
    from tfcore.workspace import default_workspace

    return Path(args.runs_root) if args.runs_root else default_workspace().runs


def _run_dir(args: argparse.Namespace, run: str) -> Path:
    """A run given by id (inside the runs root) or by folder path."""
    from tfcore.errors import RunError
    from tfcore.rundir import RunStore

    path = Path(run)
    if "/" in run and path.is_dir():
        return path
    paths = RunStore(_runs_root(args)).paths(run)
    if not paths.root.is_dir():
        raise RunError(f"Run {run!r} does not exist in {_runs_root(args)}.",
                       key="errors.run_missing", params={"run": run})
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
    print_json({"prefix": str(result.prefix), "problems": list(result.problems),
                "variables": [{"key": v.key, "label": v.label, "shape": list(v.shape),
                               "dtype": v.dtype, "size": v.size} for v in result.variables]})
    return 0 if not result.problems else 2


def _ckpt_path(args: argparse.Namespace, text: str) -> Path:
    path = Path(text)
    if path.exists() or Path(text + ".index").exists():
        return path
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


def _ckpt_export(args: argparse.Namespace) -> int:
    from tfcore.runs import export_checkpoint, export_run_zip
    from tfcore.workspace import default_workspace

    run_dir = _run_dir(args, args.run)
    exports = Path(args.out) if args.out else default_workspace().ensure().exports
    result = (export_run_zip(run_dir, exports) if args.format == "zip"
              else export_checkpoint(run_dir, exports, args.format, args.ckpt))
    print_json({"path": str(result.path), "format": result.fmt, "size": result.size})
    return 0


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--runs-root", help="runs folder (default: <workspace>/runs)")


def register(sub: argparse._SubParsersAction) -> None:
    runs = sub.add_parser("runs", help="list, show, rename, tag and delete training runs")
    rsub = runs.add_subparsers(dest="runs_command", metavar="ACTION", required=True)
    p = rsub.add_parser("list", help="every run with model, dataset, state, final metrics")
    _common(p)
    p.set_defaults(func=_runs_list)
    p = rsub.add_parser("show", help="one run: summary, run.json, status, checkpoints")
    p.add_argument("run")
    _common(p)
    p.set_defaults(func=_runs_show)
    p = rsub.add_parser("delete", help="delete a whole run, or only its old checkpoints")
    p.add_argument("run")
    p.add_argument("--old-checkpoints", action="store_true",
                   help="keep the run; delete all but the newest --keep checkpoints")
    p.add_argument("--keep", type=int, default=1)
    _common(p)
    p.set_defaults(func=_runs_delete)
    p = rsub.add_parser("rename", help="set a run's display name (meta.json)")
    p.add_argument("run")
    p.add_argument("name")
    _common(p)
    p.set_defaults(func=_runs_rename)
    p = rsub.add_parser("tag", help="replace a run's tags (meta.json)")
    p.add_argument("run")
    p.add_argument("tags", nargs="*")
    _common(p)
    p.set_defaults(func=_runs_tag)

    ckpt = sub.add_parser("ckpt", help="look inside, compare, evaluate and export checkpoints")
    csub = ckpt.add_subparsers(dest="ckpt_command", metavar="ACTION", required=True)
    p = csub.add_parser("list", help="checkpoints of a run: number, time, size, files")
    p.add_argument("run")
    _common(p)
    p.set_defaults(func=_ckpt_list)
    p = csub.add_parser("vars", help="variables of a checkpoint (run, folder or prefix)")
    p.add_argument("path")
    p.add_argument("--ckpt", type=int, default=None, help="checkpoint number (default latest)")
    _common(p)
    p.set_defaults(func=_ckpt_vars)
    p = csub.add_parser("stats", help="statistics and histogram of one variable")
    p.add_argument("path")
    p.add_argument("key")
    p.add_argument("--ckpt", type=int, default=None)
    p.add_argument("--bins", type=int, default=30)
    _common(p)
    p.set_defaults(func=_ckpt_stats)
    p = csub.add_parser("diff", help="per-variable change between two checkpoint prefixes")
    p.add_argument("a")
    p.add_argument("b")
    _common(p)
    p.set_defaults(func=_ckpt_diff)
    p = csub.add_parser("eval", help="restore a run's checkpoint, evaluate on its test split")
    p.add_argument("run")
    p.add_argument("--ckpt", type=int, default=None)
    p.add_argument("--split", default="test", choices=("train", "val", "test"))
    _common(p)
    p.set_defaults(func=_ckpt_eval)
    p = csub.add_parser("export", help="export a checkpoint (keras, savedmodel, weights_h5) "
                        "or the whole run (zip)")
    p.add_argument("run")
    p.add_argument("--format", default="keras",
                   choices=("keras", "savedmodel", "weights_h5", "zip"))
    p.add_argument("--ckpt", type=int, default=None)
    p.add_argument("--out", help="folder for the export (default: <workspace>/exports)")
    _common(p)
    p.set_defaults(func=_ckpt_export)
