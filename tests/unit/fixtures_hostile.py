"""Hostile inputs for the bounded-memory tests and ``bench/bench_hostile.py`` (issue 28):
each case writes its files under a folder and names the CLI command that reads them;
:func:`run_batch` runs the commands one after the other in a child (``hostile_child.py``)
that measures each one's own peak resident size and time.

This module holds the hostile specs (oversized models, a deeply nested JSON), the tiny
template run, the measurement and the assembly of the cases; the hostile files (damaged
run directories, oversized metrics, uploads) and their case tables are in
``fixtures_hostile_files.py``.

Cases share one trained tiny run (``template``), copied and damaged per case.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from fixtures_hostile_files import (  # tests/unit is on sys.path (the importers put it)
    METRICS_CASES, RUN_CASES, UPLOAD_SPECIALS, big_metrics, copy_run, damage_run,
    image_zip, long_csv, long_line_metrics, special_upload, upload_kind, wide_csv)

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


# ----------------------------------------------------------------- template run ---------

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


# ------------------------------------------------------------------------ cases ---------
# Case ids -> (input class, CLI arguments). ``cold_cases`` must all answer without
# TensorFlow; ``warm_cases`` legitimately need it (a child that imported it runs them).

SPEC_NAMES = list(SPECS)
WEIGHTS_NAMES = ["up3d_x12_dense", "dense_1e11", "einsum_4e9", "resize_8000",
                 "flatten_dense_up"]

Cases = dict[str, tuple[str, list[str]]]


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
