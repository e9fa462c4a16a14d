"""Hostile files for the bounded-memory tests and ``bench/bench_hostile.py`` (issue 28):
run directories with a FIFO, a device, a socket or a link leaving the run in place of one
of their files, oversized ``metrics.jsonl`` files, and uploads (wide and long CSVs, image
zips, special files), with the tables of those cases. ``fixtures_hostile.py`` holds the
hostile specs, trains the template run these copy, and measures the cases.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import stat
import zipfile
from pathlib import Path


# ------------------------------------------------------------------------- runs ---------

def copy_run(template: Path, workspace: Path) -> Path:
    """A fresh workspace holding a copy of the template run: the copy's folder."""
    target = workspace / "runs" / template.name
    shutil.copytree(template, target, symlinks=True)
    return target


def _replace_with(path: Path, how: str, outside: Path) -> str:
    """Put ``how`` in place of ``path``; returns what was made (``device-link`` where a
    device node could not be made: a link to ``/dev/zero`` instead)."""
    path.unlink(missing_ok=True)
    if how == "fifo":
        os.mkfifo(path)
    elif how == "device":
        try:                                      # /dev/zero's numbers: needs CAP_MKNOD
            os.mknod(path, stat.S_IFCHR | 0o600, os.makedev(1, 5))
        except OSError:
            os.symlink("/dev/zero", path)
            return "device-link"
    elif how == "outside":
        outside.write_bytes(b"x" * 64)
        os.symlink(outside, path)
    elif how == "socket":
        import socket

        sock = socket.socket(socket.AF_UNIX)
        sock.bind(str(path))
        sock.close()
    return how


def damage_run(run: Path, target: str, how: str) -> str:
    """Put a FIFO, a device, a socket or a link leaving the run in place of ``target``:
    ``index``, ``data``, ``state`` (ckpt/checkpoint), ``metrics``, ``status``, ``run_json``,
    ``events``."""
    ckpt = run / "ckpt"
    if target in ("index", "data"):
        suffix = ".index" if target == "index" else ".data-00000-of-00001"
        for item in sorted(ckpt.glob(f"*{suffix}")):
            made = _replace_with(item, how, run.parent.parent / f"outside{suffix}")
        return made
    if target == "events":
        item = next((run / "tb" / "train").glob("events.out.tfevents.*"))
        return _replace_with(item, how, run.parent.parent / "outside.events")
    path = {"state": ckpt / "checkpoint", "metrics": run / "metrics.jsonl",
            "status": run / "status.json", "run_json": run / "run.json"}[target]
    return _replace_with(path, how, run.parent.parent / f"outside-{path.name}")


def big_metrics(run: Path, megabytes: int) -> None:
    """``metrics.jsonl`` grown to ``megabytes`` by repeating valid lines (fast)."""
    line = (json.dumps({"step": 1, "epoch": 1, "time": 1.0, "elapsed": 0.1, "split": "train",
                        "loss": 2.3, "sparse_categorical_accuracy": 0.1,
                        "samples_per_sec": 100.0}) + "\n").encode()
    block = line * (2**20 // len(line))
    with open(run / "metrics.jsonl", "wb") as handle:
        for _ in range(megabytes):
            handle.write(block)


def long_line_metrics(run: Path, megabytes: int) -> None:
    with open(run / "metrics.jsonl", "wb") as handle:
        handle.write(b'{"step": 1, "loss": "' + b"x" * (megabytes * 2**20) + b'"}\n')


# ---------------------------------------------------------------------- uploads ---------

def wide_csv(folder: Path, columns: int, rows: int = 3) -> Path:
    path = folder / "uploads" / f"wide{columns}.csv"
    path.parent.mkdir(parents=True, exist_ok=True)
    header = ",".join(f"c{i}" for i in range(columns))
    row = ",".join("1" for _ in range(columns - 1))
    with open(path, "w") as handle:
        handle.write(header + "\n")
        for i in range(rows):                     # the label (last column): two classes
            handle.write(f"{row},{i % 2}\n")
    return path


def long_csv(folder: Path, rows: int, columns: int) -> Path:
    path = folder / "uploads" / f"long{rows}.csv"
    path.parent.mkdir(parents=True, exist_ok=True)
    line = (",".join("1" for _ in range(columns)) + "\n").encode()
    with open(path, "wb") as handle:
        handle.write((",".join(f"c{i}" for i in range(columns)) + "\n").encode())
        chunk = line * 10_000
        for _ in range(rows // 10_000):
            handle.write(chunk)
    return path


def _tiny_png() -> bytes:
    import numpy as np
    from PIL import Image

    buffer = io.BytesIO()
    Image.fromarray(np.zeros((8, 8, 3), np.uint8)).save(buffer, format="PNG")
    return buffer.getvalue()


def image_zip(folder: Path, count: int, name: str = "many") -> Path:
    """A zip of ``count`` tiny PNGs in two class folders (stored, written fast)."""
    path = folder / "uploads" / f"{name}{count}.zip"
    path.parent.mkdir(parents=True, exist_ok=True)
    png = _tiny_png()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        for i in range(count):
            archive.writestr(f"{'ab'[i % 2]}/{i}.png", png)
    return path


def special_upload(folder: Path, name: str, how: str) -> Path:
    path = folder / "uploads" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    _replace_with(path, how, folder.parent / f"outside-{name}")
    return path


# ------------------------------------------------------------------------ cases ---------
# (case id, file replaced, by what, command, words the answer must hold, TensorFlow needed)
# "runs show" verifies the run's checkpoints with TensorFlow unless a checkpoint file is
# itself refused; "ckpt list" verifies them too unless one is refused.
RUN_CASES = [
    ("index-fifo-show", "index", "fifo", ("runs", "show"), "FIFO", False),
    ("index-fifo-ckpt-list", "index", "fifo", ("ckpt", "list"), "FIFO", False),
    ("index-fifo-ckpt-eval", "index", "fifo", ("ckpt", "eval"), "FIFO", False),
    ("index-device-ckpt-list", "index", "device", ("ckpt", "list"), "device", False),
    ("index-outside-ckpt-list", "index", "outside", ("ckpt", "list"), "leads out", False),
    ("index-socket-ckpt-list", "index", "socket", ("ckpt", "list"), "socket", False),
    ("data-fifo-show", "data", "fifo", ("runs", "show"), "FIFO", False),
    ("data-fifo-ckpt-list", "data", "fifo", ("ckpt", "list"), "FIFO", False),
    ("data-fifo-ckpt-eval", "data", "fifo", ("ckpt", "eval"), "FIFO", False),
    ("state-fifo-ckpt-list", "state", "fifo", ("ckpt", "list"), "FIFO", True),
    ("state-fifo-show", "state", "fifo", ("runs", "show"), "FIFO", True),
    ("metrics-fifo-show", "metrics", "fifo", ("runs", "show"), "FIFO", True),
    ("metrics-fifo-list", "metrics", "fifo", ("runs", "list"), "FIFO", False),
    ("metrics-device-show", "metrics", "device", ("runs", "show"), "device", True),
    ("metrics-outside-show", "metrics", "outside", ("runs", "show"), "leads out", True),
    ("metrics-socket-list", "metrics", "socket", ("runs", "list"), "socket", False),
    ("status-fifo-show", "status", "fifo", ("runs", "show"), "FIFO", True),
    ("status-fifo-list", "status", "fifo", ("runs", "list"), "FIFO", False),
    ("status-device-list", "status", "device", ("runs", "list"), "device", False),
    ("runjson-fifo-show", "run_json", "fifo", ("runs", "show"), "FIFO", True),
    ("runjson-fifo-list", "run_json", "fifo", ("runs", "list"), "FIFO", False),
    ("runjson-outside-show", "run_json", "outside", ("runs", "show"), "leads out", True),
    ("events-fifo-show", "events", "fifo", ("runs", "show"), "", True),
    ("events-fifo-list", "events", "fifo", ("runs", "list"), "", False),
]
UPLOAD_SPECIALS = [("bad.csv", "fifo", "FIFO"), ("dev.csv", "device", "device"),
                   ("pipe.zip", "fifo", "FIFO"), ("pipe.npz", "fifo", "FIFO")]
METRICS_CASES = [("metrics-200mb-show", 200, "show"), ("metrics-200mb-list", 200, "list"),
                 ("metrics-60mb-show", 60, "show")]


def upload_kind(name: str) -> str:
    return {"csv": "csv", "zip": "images", "npz": "npz"}[name.rsplit(".", 1)[1]]
