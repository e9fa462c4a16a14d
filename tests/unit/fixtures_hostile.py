"""Hostile inputs for the bounded-memory tests and ``bench/bench_hostile.py`` (issue 28):
each case writes its files under a folder and names the CLI command that reads them;
:func:`run_batch` runs the commands one after the other in a child (``hostile_child.py``)
that measures each one's own peak resident size and time.

Cases share one trained tiny run (``template``), copied and damaged per case.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable
LIMIT_MB = 500          # a case's own peak above what its process held before it
LIMIT_S = 30.0          # a case's own time (interpreter and TensorFlow start excluded)


@dataclass(frozen=True)
class Measured:
    rc: int
    peak_mb: float
    seconds: float
    out: str
    err: str
    tf: bool = False          # TensorFlow was imported by the end of the case

    @property
    def message(self) -> str:
        """The refusal (stderr ``error:`` line and the first detail), else the first
        located problem a listing printed."""
        lines = [ln.strip() for ln in self.err.splitlines() if ln.startswith(("error", "  - "))]
        if not lines:
            lines = [ln.strip().strip('",') for ln in self.out.splitlines()
                     if any(w in ln for w in ("not a regular file", "leads out",
                                              "metrics.jsonl"))]
        return " ".join(lines[:2])[:160]


CHILD = Path(__file__).with_name("hostile_child.py")


def _env(env: dict | None = None) -> dict:
    return {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", **(env or {})}


@dataclass(frozen=True)
class Batch:
    """What one child reported: its resident size before the cases (``baseline_mb``: with
    TensorFlow imported when ``warm``), the import's seconds, and each case."""

    baseline_mb: float
    import_s: float
    results: dict[str, Measured]


def run_batch(cases: dict[str, list[str]], warm: bool, limit_s: float = LIMIT_S) -> Batch:
    """Run the CLI ``cases`` (id -> arguments after ``python -m tfcore``) one after the
    other in one child (``hostile_child.py``); each case's peak is measured from the RSS it
    started at and its time from its own start, an alarm stops one past ``limit_s``.
    A case the child never reported (it died) comes back with rc -1 and the child's
    stderr."""
    with tempfile.TemporaryDirectory() as tmp:
        spec, results = Path(tmp) / "cases.json", Path(tmp) / "results.jsonl"
        spec.write_text(json.dumps({"warm": warm, "limit_s": limit_s,
                                    "cases": [[k, v] for k, v in cases.items()]}))
        proc = subprocess.run([PYTHON, str(CHILD), str(spec), str(results)], cwd=ROOT,
                              env=_env(), capture_output=True, text=True,
                              timeout=300 + len(cases) * (limit_s + 5))
        rows = [json.loads(line) for line in results.read_text().splitlines()] \
            if results.exists() else []
    head = rows[0] if rows else {}
    found = {r["id"]: Measured(r["rc"], r["peak_mb"], r["seconds"], r["out"], r["err"],
                               r["tf"]) for r in rows[1:]}
    for key in cases:
        found.setdefault(key, Measured(-1, 0.0, 0.0, proc.stdout[-3000:],
                                       proc.stderr[-3000:]))
    return Batch(head.get("baseline_mb", 0.0), head.get("import_s", 0.0), found)


def cli(*args: str) -> list[str]:
    return [PYTHON, "-m", "tfcore", *args]


# ------------------------------------------------------------------------ specs ---------

def seq(shape: list, layers: list[tuple[str, dict]], name: str = "hostile") -> dict:
    return {"format": 1, "name": name, "kind": "sequential",
            "inputs": [{"name": "x", "shape": shape, "dtype": "float32"}],
            "layers": [{"name": f"l{i}", "type": t, "config": c}
                       for i, (t, c) in enumerate(layers)], "outputs": []}


SPECS: dict[str, tuple[str, dict]] = {
    # name: (input class, spec)
    "up3d_x12_dense": ("upsampling", seq([48, 48, 48, 1], [
        ("UpSampling3D", {"size": [12, 12, 12]}), ("Flatten", {}), ("Dense", {"units": 10})])),
    "up3d_x4": ("upsampling", seq([72, 72, 72, 1], [("UpSampling3D", {"size": 4})])),
    "up2d_x64": ("upsampling", seq([64, 64, 3], [
        ("UpSampling2D", {"size": [64, 64]}), ("Conv2D", {"filters": 8, "kernel_size": 3})])),
    "up2d_chain": ("upsampling", seq([32, 32, 3], [("UpSampling2D", {"size": 4})] * 4)),
    "up1d_x1e6": ("upsampling", seq([100, 64], [("UpSampling1D", {"size": 1_000_000})])),
    "pad2d_huge": ("upsampling", seq([8, 8, 3], [("ZeroPadding2D", {"padding": 5000})])),
    "convT_stride": ("upsampling", seq([64, 64, 16], [
        ("Conv2DTranspose", {"filters": 64, "kernel_size": 3, "strides": 64})])),
    "resize_8000": ("upsampling", seq([32, 32, 3], [
        ("Resizing", {"height": 8000, "width": 8000})])),
    "repeat_1e9": ("upsampling", seq([64], [("RepeatVector", {"n": 1_000_000_000})])),
    "dense_1e11": ("huge weights", seq([100_000], [("Dense", {"units": 1_000_000})])),
    "conv3d_filters": ("huge weights", seq([16, 16, 16, 4096], [
        ("Conv3D", {"filters": 4096, "kernel_size": 5, "padding": "same"})])),
    "conv2d_kernel": ("huge weights", seq([512, 512, 512], [
        ("Conv2D", {"filters": 4096, "kernel_size": 31, "padding": "same"})])),
    "einsum_4e9": ("huge weights", seq([4096], [
        ("EinsumDense", {"equation": "ab,bc->ac", "output_shape": [1_000_000]})])),
    "lstm_units": ("huge weights", seq([10, 64], [("LSTM", {"units": 100_000})])),
    "embedding_out": ("huge weights", seq([4], [
        ("Embedding", {"input_dim": 1_000_000, "output_dim": 100_000})])),
    "sepconv_mult": ("huge weights", seq([32, 32, 4096], [
        ("SeparableConv2D", {"filters": 65536, "kernel_size": 3, "depth_multiplier": 64})])),
    "flatten_dense_img": ("dense after flatten", seq([1024, 1024, 3], [
        ("Flatten", {}), ("Dense", {"units": 4096})])),
    "flatten_dense_conv": ("dense after flatten", seq([256, 256, 3], [
        ("Conv2D", {"filters": 64, "kernel_size": 3, "padding": "same"}), ("Flatten", {}),
        ("Dense", {"units": 1024})])),
    "flatten_dense_up": ("dense after flatten", seq([48, 48, 48, 1], [
        ("UpSampling3D", {"size": 2}), ("Flatten", {}), ("Dense", {"units": 64})])),
    "many_wide_layers": ("deep/huge spec", seq([4096], [("Dense", {"units": 4096})] * 60)),
    "bytes_many_outputs": ("deep/huge spec", seq([4000, 4000], [("Activation",
                                                                {"activation": "relu"})] * 40)),
    "input_1e11": ("deep/huge spec", seq([100_000, 1_000_000], [("Dense", {"units": 2})])),
    "layers_5000": ("deep/huge spec", seq([4], [("Dense", {"units": 4})] * 5000)),
}


def deep_json(folder: Path) -> Path:
    path = folder / "deep.json"
    path.write_text('{"layers": ' + "[" * 200_000 + "]" * 200_000 + "}")
    return path


def spec_file(folder: Path, name: str) -> Path:
    path = folder / f"{name}.json"
    path.write_text(json.dumps(SPECS[name][1]))
    return path


# ------------------------------------------------------------------------- runs ---------

def tiny_spec() -> dict:
    return seq([8, 8, 1], [("Flatten", {}), ("Dense", {"units": 16, "activation": "relu"}),
                           ("Dense", {"units": 10}), ("Softmax", {})], name="tiny")


def train_template(workspace: Path) -> Path:
    """One real run of the tiny model (4 steps, a checkpoint every 2): its folder."""
    workspace.mkdir(parents=True, exist_ok=True)
    spec = workspace / "tiny.json"
    spec.write_text(json.dumps(tiny_spec()))
    result = subprocess.run(cli("train", "--spec", str(spec), "--dataset", "digits8",
                                "--steps", "4", "--ckpt-every", "2", "--keep", "1",
                                "--workspace", str(workspace), "--no-insight", "--quiet"),
                            capture_output=True, text=True, cwd=ROOT, timeout=600,
                            env=_env())
    runs = sorted((workspace / "runs").glob("tiny-*"))
    assert runs, result.stdout + result.stderr
    return runs[-1]


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
# Case ids -> (input class, CLI arguments). ``cold_cases`` must all answer without
# TensorFlow; ``warm_cases`` legitimately need it (a child that imported it runs them).

SPEC_NAMES = list(SPECS)
WEIGHTS_NAMES = ["up3d_x12_dense", "dense_1e11", "einsum_4e9", "resize_8000",
                 "flatten_dense_up"]

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
Cases = dict[str, tuple[str, list[str]]]


def upload_kind(name: str) -> str:
    return {"csv": "csv", "zip": "images", "npz": "npz"}[name.rsplit(".", 1)[1]]


def _run_case(case: tuple, template: Path, folder: Path,
              words: dict[str, tuple[str, ...]]) -> tuple[str, list[str]]:
    cid, target, how, command, word, _ = case
    work = folder / cid
    run = copy_run(template, work)
    made = damage_run(run, target, how)
    # a link to /dev/zero (no device node could be made): a checkpoint reader calls it a
    # link leading out of its folder, the run's JSON readers a device
    words[cid] = ("device", "leads out") if made == "device-link" else (word,)
    return (f"{how} in place of {target}",
            [*command, *([run.name] if command != ("runs", "list") else []),
             "--workspace", str(work)])


def _metrics_case(case: tuple, template: Path, folder: Path) -> tuple[str, list[str]]:
    cid, megabytes, command = case
    work = folder / cid
    run = copy_run(template, work)
    big_metrics(run, megabytes)
    return (f"{megabytes} MB metrics.jsonl",
            ["runs", command, *([run.name] if command == "show" else []),
             "--workspace", str(work)])


def cold_cases(folder: Path, template: Path, words: dict[str, tuple[str, ...]]) -> Cases:
    """Writes the files of every case that must answer without TensorFlow."""
    cases: Cases = {}
    specs = folder / "specs"
    specs.mkdir(exist_ok=True)
    for name in SPEC_NAMES:
        cases[f"spec-{name}"] = (SPECS[name][0],
                                 ["spec", "check", str(spec_file(specs, name))])
    for name in WEIGHTS_NAMES:
        cases[f"weights-{name}"] = (f"weights table: {SPECS[name][0]}",
                                    ["weights", str(specs / f"{name}.json"), "--no-stats"])
    cases["deep-json"] = ("deep/huge spec", ["spec", "check", str(deep_json(specs))])
    for case in RUN_CASES:
        if not case[5]:
            cases[case[0]] = _run_case(case, template, folder, words)
    for case in METRICS_CASES:
        if case[2] == "list":
            cases[case[0]] = _metrics_case(case, template, folder)
    uploads = folder / "uploads-cold"
    for columns in (1_000_000, 5_000, 1_000):
        path = wide_csv(uploads, columns, rows=40 if columns == 1_000 else 3)
        cases[f"csv-{columns}"] = ("wide CSV", ["data", "show", f"upload:csv:{path.name}",
                                                "--workspace", str(uploads)])
    path = long_csv(uploads, 2_000_000, 12)
    cases["csv-cells"] = ("long CSV", ["data", "show", f"upload:csv:{path.name}",
                                       "--workspace", str(uploads)])
    for name, how, _ in UPLOAD_SPECIALS:
        special_upload(uploads, name, how)
        cases[f"upload-{name}"] = (f"{how} as an upload",
                                   ["data", "show", f"upload:{upload_kind(name)}:{name}",
                                    "--workspace", str(uploads)])
    image_zip(uploads, 20_001)
    cases["zip-20001"] = ("image zip", ["data", "show", "upload:images:many20001.zip",
                                        "--workspace", str(uploads)])
    zips = folder / "images"
    image_zip(zips, 19_000)
    cases["zip-19000"] = ("image zip", ["data", "show", "upload:images:many19000.zip",
                                        "--workspace", str(zips)])
    return cases


def warm_cases(folder: Path, template: Path, words: dict[str, tuple[str, ...]]) -> Cases:
    """Writes the files of the cases that need TensorFlow (after :func:`cold_cases`: the
    19,000-image zip is shared)."""
    cases: Cases = {}
    for case in RUN_CASES:
        if case[5]:
            cases[case[0]] = _run_case(case, template, folder, words)
    for case in METRICS_CASES:
        if case[2] == "show":
            cases[case[0]] = _metrics_case(case, template, folder)
    work = folder / "long-line"
    run = copy_run(template, work)
    long_line_metrics(run, 50)
    cases["metrics-long-line"] = ("50 MB metrics line",
                                  ["runs", "show", run.name, "--workspace", str(work)])
    cases["zip-19000-small"] = ("image zip", ["data", "show", "upload:images:many19000.zip",
                                              "-o", "image_size=8", "--workspace",
                                              str(folder / "images")])
    return cases
