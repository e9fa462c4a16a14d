"""Builder responsiveness: time to validate + build + summarize a 30-layer model after one
edit, and the cached re-run. Prints seconds and the cached/uncached ratio.

    .venv/bin/python bench/builder_bench.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tfcore.model import spec_ops  # noqa: E402
from tfcore.model.summary import summarize  # noqa: E402
from tfcore.model.validate import validate  # noqa: E402


def main() -> None:
    spec = spec_ops.scratch_spec(shape=(64,))
    for n in range(30):
        spec = spec_ops.add_layer(spec, "Dense" if n % 3 else "Dropout")
    summarize(spec)  # warm up TensorFlow
    rows = []
    for units in range(11, 16):
        edited = spec_ops.set_layer(spec, 1, config={"units": units})
        start = time.perf_counter()
        validate(edited)
        mid = time.perf_counter()
        summarize(edited)
        end = time.perf_counter()
        summarize(edited)
        cached = time.perf_counter() - end
        rows.append((mid - start, end - start, cached))
    for check, full, cached in rows:
        print(f"validate {check * 1000:7.1f} ms   validate+build+summary {full * 1000:7.1f} ms"
              f"   cached {cached * 1000:6.2f} ms   ratio {full / max(cached, 1e-9):8.0f}x")


if __name__ == "__main__":
    main()
