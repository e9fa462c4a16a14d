"""tf.data throughput with and without cache and prefetch, side by side, as ratios.

The four variants of the pipeline lab run one after another on the same label-sorted
digits, with a simulated slow map step per element (what cache saves from the second epoch
on) and a simulated training step per batch (what prefetch overlaps with input).

Run: ``.venv/bin/python bench/bench_foundations_pipeline.py [epochs] [map_ms] [work_ms]``
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main() -> None:
    from tfcore.labs.pipeline import PipelineSpec, throughput

    epochs = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    map_ms = float(sys.argv[2]) if len(sys.argv) > 2 else 0.5
    work_ms = float(sys.argv[3]) if len(sys.argv) > 3 else 5.0
    spec = PipelineSpec(shuffle_buffer=256, batch_size=32)
    rows = throughput(spec, epochs=epochs, work_ms=work_ms, slow_map_ms=map_ms)
    base = rows[0].per_second
    print(f"epochs={epochs} map_ms={map_ms} work_ms={work_ms}")
    for row in rows:
        print(f"{row.variant:15s} {row.elements:6d} elements {row.seconds:7.3f} s "
              f"{row.per_second:10.0f}/s  x{row.per_second / base:.2f} vs plain")


if __name__ == "__main__":
    main()
