"""Hostile inputs (issue 28) through the command line, each in a fresh child: prints the
table for the closing note: input class, peak MB, seconds, message.

    .venv/bin/python bench/bench_hostile.py            # specs, runs, metrics, uploads
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "unit"))

import fixtures_hostile as fx  # noqa: E402


def _row(kind: str, name: str, found: fx.Measured) -> None:
    print(f"| {kind} | {name} | {found.peak_mb:,.0f} | {found.seconds:.1f} | "
          f"{found.message.replace('|', '/')} |", flush=True)


def main() -> int:
    base = fx.measure([fx.PYTHON, "-c", "import tensorflow, keras"])
    print(f"baseline (a child importing TensorFlow): {base.peak_mb:,.0f} MB\n")
    print("| input class | case | peak MB | seconds | message |\n|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for name, (kind, _) in fx.SPECS.items():
            _row(kind, name, fx.measure(fx.cli("spec", "check", str(fx.spec_file(folder, name)))))
        template = fx.train_template(folder / "template")
        for target, how, command in [("index", "fifo", ("ckpt", "list")),
                                     ("index", "fifo", ("ckpt", "eval")),
                                     ("metrics", "fifo", ("runs", "show")),
                                     ("status", "fifo", ("runs", "list"))]:
            work = folder / f"{target}-{how}-{command[1]}"
            run = fx.copy_run(template, work)
            fx.damage_run(run, target, how)
            argv = fx.cli(*command, *([run.name] if command != ("runs", "list") else []),
                          "--workspace", str(work))
            _row(f"{how} in place of {target}", " ".join(command), fx.measure(argv, timeout=60))
        for command in ("show", "list"):
            work = folder / f"metrics-{command}"
            run = fx.copy_run(template, work)
            fx.big_metrics(run, 200)
            argv = fx.cli("runs", command, *([run.name] if command == "show" else []),
                          "--workspace", str(work))
            _row("200 MB metrics.jsonl", f"runs {command}", fx.measure(argv))
        path = fx.wide_csv(folder, 1_000_000)
        _row("wide CSV", "1,000,000 columns", fx.measure(fx.cli(
            "data", "show", f"upload:csv:{path.name}", "--workspace", str(folder))))
        fx.image_zip(folder, 19_000)
        _row("image zip", "19,000 images", fx.measure(fx.cli(
            "data", "show", "upload:images:many19000.zip", "--workspace", str(folder))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
