"""``runs insight RUN [--step N] [--json]``: what a run recorded of its insides while it
trained (``insight/`` in its folder): the meta, each snapshot's gradient norms and dead-ReLU
shares, and with ``--step`` the statistics of that step's plane grid.

Damaged lines and files are reported located (on stderr, or in the JSON's ``problems``)
and everything else is still shown.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Callable

import numpy as np

from tfcore.cli import print_json
from tfcore.cli.inputs import int_range
from tfcore.cli.vocabulary import command


def _num(value: Any, digits: int = 4) -> Any:
    return None if value is None else float(f"{float(value):.{digits}g}")


def meta_dict(meta: Any, lang: str) -> dict:
    """The JSON view of an :class:`~tfcore.rundir.InsightMeta`."""
    from tfcore.messages import render

    plane = meta.plane
    reason = meta.neurons_reason
    return {
        "every": meta.every, "probe": meta.probe,
        "layers": [{"name": item.name, "kind": item.kind, "units": item.units,
                    "activation": item.activation, "params": item.params,
                    "variables": list(item.variables)} for item in meta.layers],
        "plane": None if plane is None else {
            "lo": list(plane.lo), "hi": list(plane.hi), "size": plane.size,
            "neuron_size": plane.neuron_size, "points": int(len(plane.points)),
            "output": plane.output, "class_names": list(plane.class_names),
            "class_texts": [dict(text, text=render(text["key"], text["params"], lang)
                                 or name)
                            for text, name in zip(plane.class_texts, plane.class_names)]},
        "neurons": list(meta.neurons),
        "neurons_reason": None if reason is None else dict(
            reason, text=render(reason["key"], reason.get("params", {}), lang)
            or reason["key"])}


def snapshot_dict(record: dict) -> dict:
    """One snapshot's line in the listing (histograms left out: see the JSON file)."""
    return {"step": record["step"], "epoch": record.get("epoch"),
            "grid": bool(record.get("grid")), "cost": record.get("cost"),
            "grad_norm": {k: _num(v) for k, v in record.get("grad_norm", {}).items()},
            "dead": {k: _num(v, 3) for k, v in record.get("dead", {}).items()},
            "variables": len(record.get("hist", {}))}


def grid_dict(grid: Any, meta: Any) -> dict:
    """Statistics of one plane grid: the prediction's range, each class's share of the
    plane, each drawn layer's output range and kernel size."""
    conf = grid.conf
    out: dict[str, Any] = {"step": grid.step, "size": int(conf.shape[0]),
                           "conf": {"min": _num(conf.min()), "mean": _num(conf.mean()),
                                    "max": _num(conf.max())}}
    if grid.cls is not None:
        names = meta.plane.class_names
        counts = np.bincount(grid.cls.ravel().clip(min=0))
        out["class_share"] = {(names[i] if i < len(names) else str(i)): _num(c / conf.size, 3)
                              for i, c in enumerate(counts) if c}
    out["neurons"] = [{"layer": name, "units": int(values.shape[0]),
                       "min": _num(values.min()) if values.size else None,
                       "max": _num(values.max()) if values.size else None,
                       "kernel": list(grid.kernels[name].shape) if name in grid.kernels
                       else None,
                       "kernel_abs_max": _num(np.abs(grid.kernels[name]).max())
                       if name in grid.kernels and grid.kernels[name].size else None}
                      for name, values in grid.neurons.items()]
    return out


def _table(snapshots: list[dict], names: list[str], key: str) -> list[str]:
    head = f"{'step':>8} {'epoch':>5}  " + "  ".join(f"{n[:12]:>12}" for n in names)
    rows = [head]
    for item in snapshots:
        values = item[key]
        cells = ("-" if values.get(n) is None else f"{values[n]:.4g}" for n in names)
        rows.append(f"{item['step']:>8} {item['epoch'] or 0:>5}  "
                    + "  ".join(f"{c:>12}" for c in cells))
    return rows


def _print_text(run: str, out: dict) -> None:
    meta = out["meta"]
    every = meta["every"] or "auto"
    print(f"run {run}: insight every {every}, probe {meta['probe']} examples, "
          f"{len(out['snapshots'])} snapshots")
    for item in meta["layers"]:
        units = "" if item["units"] is None else f" {item['units']}"
        act = f" {item['activation']}" if item["activation"] else ""
        print(f"  layer {item['name']}: {item['kind']}{units}{act}, {item['params']} params")
    plane = meta["plane"]
    if plane:
        print(f"plane: x {plane['lo'][0]:.3g}..{plane['hi'][0]:.3g}, "
              f"y {plane['lo'][1]:.3g}..{plane['hi'][1]:.3g}, grid {plane['size']}, "
              f"{plane['points']} test points, output {plane['output']}")
    print("neurons: " + (", ".join(meta["neurons"]) if meta["neurons"]
                         else (meta["neurons_reason"] or {}).get("text", "-")))
    snaps = out["snapshots"]
    grads = [n for n in dict.fromkeys(k for s in snaps for k in s["grad_norm"])]
    if grads:
        print("gradient norm per layer:")
        print("\n".join(_table(snaps, grads, "grad_norm")))
    dead = [n for n in dict.fromkeys(k for s in snaps for k in s["dead"])]
    if dead:
        print("dead ReLU share per layer:")
        print("\n".join(_table(snaps, dead, "dead")))
    grid = out.get("grid")
    if grid:
        conf = grid["conf"]
        print(f"grid at step {grid['step']}: {grid['size']}x{grid['size']}, prediction "
              f"{conf['min']:.4g}..{conf['max']:.4g} (mean {conf['mean']:.4g})")
        for name, share in grid.get("class_share", {}).items():
            print(f"  class {name}: {share:.1%} of the plane")
        for item in grid["neurons"]:
            print(f"  layer {item['layer']}: {item['units']} units, output "
                  f"{item['min']}..{item['max']}, kernel {item['kernel']}")


def run_insight(args: argparse.Namespace, run_dir: Callable[[argparse.Namespace, str], Path]
                ) -> int:
    """Print a run's insight; exit 2 when nothing was recorded or ``--step`` has no grid."""
    from tfcore.errors import RunError
    from tfcore.rundir import read_grid, read_insight
    from tfcore.settings import cli_lang

    folder = run_dir(args, args.run)
    insight = read_insight(folder)
    lang = cli_lang()
    problems = [p.text(lang) for p in insight.problems]
    if insight.meta is None:
        raise RunError(key="cli.err.no_insight", params={"run": args.run},
                       details=problems or None)
    out: dict[str, Any] = {"run": args.run, "meta": meta_dict(insight.meta, lang),
                           "snapshots": [snapshot_dict(r) for r in insight.records],
                           "skipped": insight.skipped}
    if args.step is not None:
        steps = insight.grid_steps
        if args.step not in steps:
            shown = ", ".join(map(str, steps[:20])) + (" ..." if len(steps) > 20 else "")
            raise RunError(key="cli.err.no_insight_step",
                           params={"run": args.run, "step": args.step,
                                   "steps": shown or "-"}, details=problems or None)
        grid, problem = read_grid(folder, args.step, insight.meta)
        if problem is not None:
            raise RunError(key="cli.err.insight_grid", params={"problem": problem.text(lang)},
                           details=problems or None)
        out["grid"] = grid_dict(grid, insight.meta)
    out["problems"] = problems
    if args.json:
        print_json(out)
    else:
        _print_text(args.run, out)
        for text in problems:
            print(f"problem: {text}", file=sys.stderr)
    return 0


def add_insight_command(rsub: argparse._SubParsersAction, add_run: Callable,
                        add_common: Callable, run_dir: Callable) -> None:
    """``runs insight`` (``add_run``/``add_common``/``run_dir``: the ``runs`` family's)."""
    p = command(rsub, "insight", "what a run recorded of its insides: layers, gradient "
                "norms and dead ReLUs per snapshot, a step's decision-boundary grid",
                ["python -m tfcore runs insight RUN_ID",
                 "python -m tfcore runs insight RUN_ID --step 200 --json"])
    add_run(p)
    p.add_argument("--step", type=int_range(0), default=None, metavar="N",
                   help="also the plane grid of snapshot step N (2-D data sets)")
    p.add_argument("--json", action="store_true", help="one JSON document")
    add_common(p)
    p.set_defaults(func=lambda args: run_insight(args, run_dir))
