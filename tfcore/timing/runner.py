"""Run a timing in a fresh worker process (``python -m tfcore timing ...``).

The dashboard never times in its own process: the server's threads and TensorFlow
state would skew the numbers, and device settings can only be applied at process
start. The worker prints JSON progress lines on stderr and one JSON document on stdout.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, Optional, Sequence

from tfcore.errors import TimingError
from tfcore.model import ModelSpec

PROJECT_ROOT = Path(__file__).resolve().parents[2]


def timing_command(spec: ModelSpec, spec_path: str, *, batch_size: int, steps: int,
                   modes: Sequence[str], workload: str = "step", device: str = "cpu",
                   warmup: int = 2, rounds: int = 4, data: str = "synthetic",
                   clock: str = "wall", threads: int = 0, sweep: str | None = None,
                   values: Sequence[int] = ()) -> list[str]:
    """The argv of the worker for these settings (the spec is passed as a JSON file)."""
    argv = [sys.executable, "-m", "tfcore", "timing", "--spec", spec_path,
            "--batch-size", str(int(batch_size)), "--steps", str(int(steps)),
            "--modes", ",".join(modes), "--workload", workload, "--device", device,
            "--warmup", str(int(warmup)), "--rounds", str(int(rounds)), "--data", data,
            "--clock", clock, "--threads", str(int(threads)), "--progress"]
    if sweep:
        argv += ["--sweep", sweep, "--values", ",".join(str(int(v)) for v in values)]
    return argv


def run_in_worker(spec: ModelSpec, progress: Optional[Callable[[float, str], None]] = None,
                  timeout_s: float = 3600, **settings) -> dict:
    """Run the timing (or sweep) in a subprocess; return its JSON document.

    Raises:
        TimingError: the worker failed (its error message is kept), or timed out.
    """
    with tempfile.TemporaryDirectory(prefix="tflab-timing-") as tmp:
        spec_path = os.path.join(tmp, "spec.json")
        Path(spec_path).write_text(spec.to_json(), encoding="utf-8")
        argv = timing_command(spec, spec_path, **settings)
        env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", PYTHONUNBUFFERED="1")
        out_path = os.path.join(tmp, "out.json")
        with open(out_path, "w", encoding="utf-8") as out:
            proc = subprocess.Popen(argv, cwd=PROJECT_ROOT, env=env, stdout=out,
                                    stderr=subprocess.PIPE, text=True)
            try:
                code, tail = _follow(proc, progress, timeout_s)
            finally:
                if proc.poll() is None:  # the page was left, or the caller raised
                    proc.kill()
                    proc.wait()
        if code != 0:
            message = next((ln[len("error: "):] for ln in reversed(tail)
                            if ln.startswith("error: ")), "\n".join(tail[-5:]))
            raise TimingError(key="timing.error.worker", params={"code": code,
                                                                 "message": message})
        try:
            return json.loads(Path(out_path).read_text(encoding="utf-8"))
        except ValueError as exc:
            raise TimingError(key="timing.error.worker",
                              params={"code": code, "message": str(exc)}) from exc


def _follow(proc: subprocess.Popen, progress: Optional[Callable[[float, str], None]],
            timeout_s: float) -> tuple[int, list[str]]:
    """Relay the worker's progress lines until it exits; keep the last other lines."""
    tail: list[str] = []
    deadline = time.monotonic() + timeout_s
    assert proc.stderr is not None
    for line in proc.stderr:
        line = line.rstrip("\n")
        record = _progress_record(line)
        if record is not None:
            if progress:
                progress(float(record["progress"]), str(record.get("message", "")))
        elif line.strip():
            tail = (tail + [line])[-20:]
        if time.monotonic() > deadline:
            raise TimingError(key="timing.error.timeout",
                              params={"seconds": int(timeout_s)})
    return proc.wait(), tail


def _progress_record(line: str) -> dict | None:
    if not line.startswith('{"progress"'):
        return None
    try:
        record = json.loads(line)
    except ValueError:
        return None
    return record if isinstance(record, dict) and "progress" in record else None
