"""No command prints a traceback for a user error.

Every (command, bad input) pair below exits 2 with exactly one readable ``error: ...`` line
on stderr that names what was wrong (the file, the flag or the value), and no traceback.
Most run in-process through ``tfcore.cli.main``; a few through ``python -m tfcore``.
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.unit.fixtures_runs import make_run, tiny_spec
from tfcore.cli import main

ROOT = Path(__file__).resolve().parents[2]
ERROR_LINE = re.compile(r"^(python -m tfcore[\w -]*: )?error: ")
LONG = "x" * 4986 + "_too_long.json"     # a 5,000-character name
F, RUN, ROOTDIR = "{file}", "{run}", "{root}"

# kind -> text expected in the error line (the file name, escaped as the message shows it)
FILE_KINDS = {
    "missing": "missing_spec.json", "folder": "a_folder.json", "empty": "empty.json",
    "binary": "random_bytes.json", "keras": "model.keras", "list": "a_list.json",
    "deep": "deep.json", "long": "_too_long.json", "nul": "nul\\x00byte",
}
FILE_COMMANDS = {   # command -> (argv with {file}, kinds that are not bad for it)
    "spec check": (["spec", "check", F], ()),
    "spec code": (["spec", "code", F, "--style", "sequential"], ()),
    "train --spec": (["train", "--spec", F, "--quiet"], ()),
    "timing --spec": (["timing", "--spec", F, "--steps", "1"], ()),
    "weights": (["weights", F], ("keras",)),
    "ckpt vars": (["ckpt", "vars", F], ()),
    "ckpt stats": (["ckpt", "stats", F, "dense/kernel"], ()),
    "ckpt diff": (["ckpt", "diff", F, F], ()),
    "runs show": (["runs", "show", F], ()),
    "ckpt list": (["ckpt", "list", F], ()),
    "ckpt eval": (["ckpt", "eval", F], ()),
    "ckpt export": (["ckpt", "export", F], ()),
    "runs list --runs-root": (["runs", "list", "--runs-root", F], ("folder",)),
    "runs list --workspace": (["runs", "list", "--workspace", F], ("missing", "folder")),
    "train --runs-root": (["train", "--runs-root", F, "--epochs", "0"], ("missing", "folder")),
    "ckpt export --out": (["ckpt", "export", RUN, "--runs-root", ROOTDIR, "--out", F],
                          ("missing", "folder")),
}
FILE_CASES = [pytest.param(argv, kind, id=f"{name} <{kind}>")
              for name, (argv, fine) in FILE_COMMANDS.items()
              for kind in FILE_KINDS if kind not in fine]

R = ["--runs-root", ROOTDIR]
VALUE_CASES = [   # (argv, text expected in the error line)
    (["presets", "show", "nope"], "nope"),
    (["presets", "show"], "preset"),
    (["presets", "nope"], "invalid choice"),
    (["train", "--preset", "nope"], "nope"),
    (["timing", "--preset", "nope"], "nope"),
    (["train", "--preset", "mlp", "--spec", "x.json"], "not allowed with"),
    (["train", "--dataset", "nope"], "nope"),
    (["timing", "--dataset", "nope"], "nope"),
    (["data", "show", "nope"], "nope"),
    (["data", "show", "upload:csv:" + "y" * 5000], "5,000"),
    (["data", "show", "upload:csv:missing.csv"], "missing.csv"),
    (["data", "show", "upload:csv:../../etc/passwd"], "passwd"),
    (["data", "show", "upload:npz:" + "z\x00.npz"], "path"),
    (["data", "show", "circles", "-o", "noise=7"], "noise"),
    (["data", "show", "circles", "-o", "oops"], "KEY=VALUE"),
    (["data", "show", "circles", "--val", "1.5"], "--val"),
    (["data", "show", "circles", "--test", "nan"], "--test"),
    (["data"], "ACTION"),
    (["train", "-o", "oops"], "KEY=VALUE"),
    (["train", "--dataset", "circles", "-o", "noise=7"], "noise"),
    (["train", "--epochs", "0"], "epochs"),
    (["train", "--epochs", "-1"], "epochs"),
    (["train", "--epochs", "99999999999999"], "epochs"),
    (["train", "--epochs", "three"], "--epochs"),
    (["train", "--batch-size", "0"], "batch_size"),
    (["train", "--batch-size", "-5"], "batch_size"),
    (["train", "--batch-size", "10000000000"], "batch_size"),
    (["train", "--steps", "-1"], "steps"),
    (["train", "--lr", "0"], "learning_rate"),
    (["train", "--lr", "nan"], "learning_rate"),
    (["train", "--lr", "inf"], "learning_rate"),
    (["train", "--steps-per-second", "0"], "steps_per_second"),
    (["train", "--steps-per-second", "-2"], "steps_per_second"),
    (["train", "--steps-per-second", "nan"], "steps_per_second"),
    (["train", "--steps-per-second", "1e12"], "steps_per_second"),
    (["train", "--ckpt-every", "0"], "ckpt_every"),
    (["train", "--keep", "0"], "keep"),
    (["train", "--validate-every", "0"], "validate_every"),
    (["train", "--val", "2"], "--val"),
    (["train", "--logical-devices", "-1"], "--logical-devices"),
    (["train", "--logical-devices", "1000"], "--logical-devices"),
    (["train", "--device", "tpu"], "tpu"),
    (["train", "--device", "gpu:x"], "gpu:x"),
    (["train", "--optimizer", "nope"], "nope"),
    (["train", "--loss", "nope"], "nope"),
    (["train", "--schedule", "nope"], "nope"),
    (["train", "--loop", "nope"], "--loop"),
    (["train", "--metrics", "nope", "--loss", "mse"], "nope"),
    (["train", "--momentum", "1.5"], "momentum"),
    (["timing", "--batch-size", "0"], "batch_size"),
    (["timing", "--batch-size", "-1"], "batch_size"),
    (["timing", "--batch-size", "9999999999"], "batch_size"),
    (["timing", "--steps", "0"], "steps"),
    (["timing", "--steps", "-1"], "steps"),
    (["timing", "--steps", "9999999999"], "steps"),
    (["timing", "--rounds", "0"], "rounds"),
    (["timing", "--warmup", "-1"], "warmup"),
    (["timing", "--threads", "-1"], "--threads"),
    (["timing", "--device", "tpu"], "tpu"),
    (["timing", "--modes", "nope"], "nope"),
    (["timing", "--workload", "nope"], "--workload"),
    (["pipeline", "--batch-size", "0"], "batch_size"),
    (["pipeline", "--batch-size", "-1"], "batch_size"),
    (["pipeline", "--batch-size", "99999999999"], "batch_size"),
    (["pipeline", "--buffer", "-1"], "shuffle_buffer"),
    (["pipeline", "--buffer", "99999999999"], "shuffle_buffer"),
    (["pipeline", "--batches", "0"], "--batches"),
    (["pipeline", "--batches", "99999999999"], "--batches"),
    (["regress", "m1", "--steps", "-1"], "steps"),
    (["regress", "m1", "--steps", "99999999999"], "steps"),
    (["regress", "m1", "--lr", "-1"], "learning_rate"),
    (["regress", "m1", "--optimizer", "nope"], "nope"),
    (["regress", "m3"], "invalid choice"),
    (["tracing", "--function", "variable_counter", "--calls", "-1"], "-1"),
    (["tracing", "--function", "variable_counter", "--calls", "99999999999"], "99999999999"),
    (["tracing", "--function", "nope"], "nope"),
    (["tracing", "--args", "xx:1"], "xx"),
    (["autograph", "--example", "nope"], "nope"),
    (["autograph", "--x", "99999999999999999999"], "99999999999999999999"),
    (["grad", "nope"], "nope"),
    (["grad", "t2", "--set", "x=abc"], "x=abc"),
    (["tensor", "nope", "1 2"], "nope"),
    (["tensor", "add", "x y"], "'x'"),
    (["tensor", "matmul", "1 2 3; 4 5 6", "1 2; 3 4"], "matmul"),
    (["placement", "--device", "/TPU:9"], "/TPU:9"),
    (["spec"], "ACTION"),
    (["runs"], "ACTION"),
    (["spec", "check", "{good}", "--param-limit", "0"], "--param-limit"),
    (["spec", "check", "{good}", "--param-limit", "10"], "good.json"),
    (["weights", "{good}", "--input-shape", "a,b"], "a,b"),
    (["runs", "show", "no-such-run", *R], "no-such-run"),
    (["runs", "delete", "no-such-run", *R], "no-such-run"),
    (["runs", "rename", "no-such-run", "x", *R], "no-such-run"),
    (["runs", "tag", "no-such-run", "a", *R], "no-such-run"),
    (["ckpt", "list", "no-such-run", *R], "no-such-run"),
    (["ckpt", "vars", "no-such-run", *R], "no-such-run"),
    (["ckpt", "eval", "no-such-run", *R], "no-such-run"),
    (["ckpt", "export", "no-such-run", *R], "no-such-run"),
    (["train", "--resume", "no-such-run", *R], "no-such-run"),
    (["runs", "show", "-1", *R], "run ids never start with '-'"),
    (["runs", "delete", *R, "--", "-x"], "run ids never start with '-'"),
    (["ckpt", "eval", *R, "--", "--x"], "run ids never start with '-'"),
    (["train", "--resume=-x"], "run ids never start with '-'"),
    (["ckpt", "vars", RUN, "--ckpt", "999", *R], "999"),
    (["ckpt", "stats", RUN, "dense/kernel", "--ckpt", "999", *R], "999"),
    (["ckpt", "eval", RUN, "--ckpt", "999", *R], "999"),
    (["ckpt", "export", RUN, "--ckpt", "999", *R], "999"),
    (["ckpt", "vars", RUN, "--ckpt", "-1", *R], "--ckpt"),
    (["ckpt", "stats", RUN, "no/such/variable", *R], "no/such/variable"),
    (["ckpt", "stats", RUN, "dense/kernel", "--bins", "0", *R], "--bins"),
    (["ckpt", "eval", RUN, "--split", "nope", *R], "--split"),
    (["ckpt", "export", RUN, "--format", "nope", *R], "--format"),
    (["runs", "delete", RUN, "--old-checkpoints", "--keep", "0", *R], "--keep"),
    (["runs", "list", "--runs-root", "{good}"], "is a file"),
    (["runs", "list", "--runs-root", "/no/such/runs/root"], "/no/such/runs/root"),
]


@pytest.fixture(scope="module")
def bad(tmp_path_factory) -> dict[str, str]:
    """The bad files, the good spec, a real run and its runs root, as strings."""
    import keras

    folder = tmp_path_factory.mktemp("bad_inputs")
    (folder / "a_folder.json").mkdir()
    (folder / "empty.json").write_bytes(b"")
    (folder / "random_bytes.json").write_bytes(random.Random(7).randbytes(4096))
    (folder / "a_list.json").write_text("[1, 2, 3]")
    (folder / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    model.save(folder / "model.keras")
    (folder / "good.json").write_text(json.dumps(tiny_spec()))
    runs = folder / "runs"
    runs.mkdir()
    run_id = make_run(runs, name="bad_inputs", steps=6, ckpt_every=2)
    paths = {kind: str(folder / name) for kind, name in FILE_KINDS.items()}
    paths.update(missing=str(folder / "missing_spec.json"), long=str(folder / LONG),
                 nul=str(folder / "nul\x00byte.json"))
    return {**paths, "good": str(folder / "good.json"), "run": run_id, "root": str(runs)}


def _argv(template: list[str], bad: dict[str, str], file: str = "") -> list[str]:
    values = {F: file, RUN: bad["run"], ROOTDIR: bad["root"], "{good}": bad["good"]}
    return [values.get(arg, arg) for arg in template]


def run_cli(argv: list[str], capsys) -> tuple[int, str]:
    try:
        code = main(argv)
    except SystemExit as exc:     # argparse refused the arguments
        code = exc.code
    return code, capsys.readouterr().err


def assert_user_error(code, err: str, located: str) -> None:
    """Exit 2, no traceback, one readable error line that names what was wrong."""
    assert "Traceback" not in err, err
    assert code == 2, err
    lines = [line for line in err.splitlines() if ERROR_LINE.match(line)]
    assert len(lines) == 1, err
    line = lines[0]
    assert line.isprintable() and len(line) <= 420, line
    assert located.lower() in line.lower(), f"{located!r} not in {line!r}"


@pytest.mark.parametrize("template,kind", FILE_CASES)
def test_a_bad_file_is_a_user_error(template, kind, bad, capsys) -> None:
    argv = _argv(template, bad, bad[kind])
    code, err = run_cli(argv, capsys)
    assert_user_error(code, err, FILE_KINDS[kind])


@pytest.mark.parametrize("template,located", VALUE_CASES,
                         ids=[" ".join(a)[:60] for a, _ in VALUE_CASES])
def test_a_bad_value_is_a_user_error(template, located, bad, capsys) -> None:
    code, err = run_cli(_argv(template, bad), capsys)
    assert_user_error(code, err, located)


def test_enough_cases_are_tried() -> None:
    assert len(FILE_CASES) + len(VALUE_CASES) >= 200


def test_an_unexpected_error_says_bug_and_debug_shows_the_traceback(monkeypatch,
                                                                    capsys) -> None:
    from tfcore.cli import cmd_system

    def broken(args):
        raise KeyError("tfcore_version")

    monkeypatch.setattr(cmd_system, "_version", broken)
    code, err = run_cli(["version"], capsys)
    assert code == 1 and "Traceback" not in err
    assert err.splitlines()[0] == "error: unexpected KeyError: 'tfcore_version'"
    assert "--debug" in err
    for argv in (["--debug", "version"], ["version", "--debug"]):
        code, err = run_cli(argv, capsys)
        assert code == 1
        assert "Traceback (most recent call last)" in err and "in broken" in err
        assert "error: unexpected KeyError" in err


def test_an_os_error_on_a_named_file_is_a_user_error(monkeypatch, capsys) -> None:
    from tfcore.cli import cmd_system

    def denied(args):
        raise PermissionError(13, "Permission denied", "/srv/exports/model.keras")

    monkeypatch.setattr(cmd_system, "_devices", denied)
    code, err = run_cli(["devices"], capsys)
    assert_user_error(code, err, "/srv/exports/model.keras")
    assert "Permission denied" in err


SUBPROCESS_CASES = [
    (["spec", "check", "{keras}"], "model.keras"),
    (["spec", "check", "{deep}"], "deep.json"),
    (["train", "--spec", "{binary}"], "random_bytes.json"),
    (["runs", "show", "--", "-x"], "run ids never start with '-'"),
    (["data", "show", "upload:csv:" + "y" * 5000], "5,000"),
]


@pytest.mark.parametrize("template,located", SUBPROCESS_CASES,
                         ids=[" ".join(a)[:40] for a, _ in SUBPROCESS_CASES])
def test_python_m_tfcore_exits_2_without_a_traceback(template, located, bad) -> None:
    argv = [bad.get(arg[1:-1], arg) if arg.startswith("{") else arg for arg in template]
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-m", "tfcore", *argv], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    assert proc.stdout == ""
    assert_user_error(proc.returncode, proc.stderr, located)
