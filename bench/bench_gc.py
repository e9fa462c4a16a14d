"""How long Streamlit's post-script garbage collection takes with TensorFlow loaded.

Streamlit runs ``gc.collect()`` after every script and fragment run when
``runner.postScriptGC`` is on (its default). A live panel that redraws once a second pays
it every second. This measures a full collection before and after importing TensorFlow and
building the MLP preset, side by side, and prints the ratio.

Run: ``.venv/bin/python bench/bench_gc.py``
"""

from __future__ import annotations

import gc
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def median_collect_ms(rounds: int = 15) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        gc.collect()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    import pandas  # noqa: F401 - the dashboard imports it anyway
    import streamlit  # noqa: F401

    before = median_collect_ms()
    from tfcore.model.build import build_model
    from tfcore.model.presets import get_preset

    model = build_model(get_preset("mlp"))
    after = median_collect_ms()
    print(f"gc.collect() without TensorFlow: {before:7.1f} ms")
    print(f"gc.collect() with TF + a model:  {after:7.1f} ms  ({model.count_params()} params)")
    print(f"ratio: {after / max(before, 1e-6):.1f}x; at one redraw per second the GC alone "
          f"takes {after / 10:.1f}% of a core")


if __name__ == "__main__":
    main()
