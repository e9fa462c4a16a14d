"""Runs several command-line cases in one process and measures each on its own (issue 28).

    python tests/unit/hostile_child.py CASES.json RESULTS.jsonl

``CASES.json``: ``{"warm": bool, "limit_s": float, "cases": [[id, [cli args...]], ...]}``.
With ``warm`` the child imports TensorFlow and Keras first (what any command that needs
them costs once per process), so no case is charged for that import. Before each case the
peak resident size is reset (``/proc/self/clear_refs``: 5 sets VmHWM to the current RSS);
after it the case's peak is VmHWM minus the RSS it started from, its time is its own
(interpreter and TensorFlow start excluded), and ``tf`` says whether TensorFlow was
imported by then. A case that runs past ``limit_s`` is stopped by an alarm (rc 124), so one
hang cannot hold up the others. One JSON line per case is appended to ``RESULTS.jsonl``.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import signal
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


class CaseTimeout(BaseException):
    """Raised by the alarm; a BaseException so the CLI's own error handler lets it pass."""


def _status_mb(field: str) -> float:
    text = Path("/proc/self/status").read_text()
    return int(re.search(rf"^{field}:\s+(\d+) kB", text, re.M).group(1)) / 1024


def _reset_peak() -> None:
    """VmHWM back to the current RSS; where that is refused the peak so far stays, so a
    case's peak can only be overstated, never understated."""
    try:
        with open("/proc/self/clear_refs", "w") as handle:
            handle.write("5")
    except OSError:
        pass


def _alarm(signum, frame):  # noqa: ANN001 - signal handler signature
    raise CaseTimeout


def run_case(argv: list[str], limit_s: float) -> dict:
    from tfcore.cli import main

    out, err = io.StringIO(), io.StringIO()
    _reset_peak()
    start_mb = _status_mb("VmRSS")
    start = time.monotonic()
    signal.setitimer(signal.ITIMER_REAL, limit_s)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = int(main(argv) or 0)
            except SystemExit as exc:                      # argparse
                rc = exc.code if isinstance(exc.code, int) else 2
    except CaseTimeout:
        rc = 124
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    seconds = time.monotonic() - start
    peak = _status_mb("VmHWM") - start_mb
    return {"rc": rc, "peak_mb": round(peak, 1), "seconds": round(seconds, 3),
            "out": out.getvalue()[-20000:], "err": err.getvalue()[-20000:],
            "tf": "tensorflow" in sys.modules}


def main() -> int:
    spec = json.loads(Path(sys.argv[1]).read_text())
    results = Path(sys.argv[2])
    sys.path.insert(0, str(ROOT))
    os.chdir(ROOT)
    signal.signal(signal.SIGALRM, _alarm)
    base = {"before_mb": round(_status_mb("VmRSS"), 1)}
    if spec.get("warm"):
        start = time.monotonic()
        import keras  # noqa: F401
        import tensorflow  # noqa: F401

        base["import_s"] = round(time.monotonic() - start, 2)
    base["baseline_mb"] = round(_status_mb("VmRSS"), 1)
    with open(results, "a") as handle:
        handle.write(json.dumps({"id": "", **base}) + "\n")
        for case_id, argv in spec["cases"]:
            found = run_case(list(argv), float(spec["limit_s"]))
            handle.write(json.dumps({"id": case_id, **found}) + "\n")
            handle.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
