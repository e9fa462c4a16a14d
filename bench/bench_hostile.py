"""Hostile inputs (issue 28) through the command line: prints the table for the closing
note: input class, case, peak MB, seconds, TensorFlow imported, message.

The cases are those of ``tests/unit/test_hostile_inputs_bounded.py``, measured the same
way: two children (one that never imports TensorFlow first, one that imported it before
its cases), each case's peak resident size above what its process held before it
(VmHWM reset per case) and its own seconds.

    .venv/bin/python bench/bench_hostile.py
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "unit"))

import fixtures_hostile as fx  # noqa: E402


def _table(title: str, cases: fx.Cases, batch: fx.Batch) -> None:
    print(f"\n{title}: the child held {batch.baseline_mb:,.0f} MB before its cases"
          + (f" (TensorFlow imported in {batch.import_s:.1f} s)" if batch.import_s else ""))
    print("| input class | case | peak MB | seconds | TF | message |\n|---|---|---|---|---|---|")
    for cid, (kind, _) in cases.items():
        found = batch.results[cid]
        message = found.message.replace("|", "/") if found.rc else f"ok (rc 0) {found.message}"
        print(f"| {kind} | {cid} | {found.peak_mb:,.1f} | {found.seconds:.2f} | "
              f"{'yes' if found.tf else 'no'} | {message[:150]} |", flush=True)


def main() -> int:
    folder = Path(tempfile.mkdtemp(prefix="h28-", dir="/tmp"))   # short: socket paths
    try:
        template = fx.train_template(folder / "template")
        words: dict[str, tuple[str, ...]] = {}
        cold = fx.cold_cases(folder, template, words)
        cold_batch = fx.run_batch({k: a for k, (_, a) in cold.items()}, warm=False)
        _table("Without TensorFlow", cold, cold_batch)
        warm = fx.warm_cases(folder, template, words)
        warm_batch = fx.run_batch({k: a for k, (_, a) in warm.items()}, warm=True)
        _table("With TensorFlow imported first", warm, warm_batch)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
