"""Bounded memory and time for every input (issue 28): hostile specs, runs, checkpoints and
uploads through the command line, each in a fresh child process whose own peak RSS
(``os.wait4``) and wall time are measured. Each must end in a located refusal or a bounded
success: peak <= baseline + 500 MB (the baseline: a child that imports TensorFlow), wall
<= 30 s, no traceback, never TensorFlow's out-of-memory text.

``bench/bench_hostile.py`` prints the same cases as a table.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

import fixtures_hostile as fx  # noqa: E402

SPEC_NAMES = list(fx.SPECS)

# (case id, input class, what the case builds and runs, words the answer must hold)
RUN_CASES = [
    ("index-fifo-show", "index", "fifo", ("runs", "show"), "FIFO"),
    ("index-fifo-ckpt-list", "index", "fifo", ("ckpt", "list"), "FIFO"),
    ("index-fifo-ckpt-eval", "index", "fifo", ("ckpt", "eval"), "FIFO"),
    ("index-device-ckpt-list", "index", "device", ("ckpt", "list"), "device"),
    ("index-outside-ckpt-list", "index", "outside", ("ckpt", "list"), "leads out"),
    ("index-socket-ckpt-list", "index", "socket", ("ckpt", "list"), "socket"),
    ("data-fifo-show", "data", "fifo", ("runs", "show"), "FIFO"),
    ("data-fifo-ckpt-list", "data", "fifo", ("ckpt", "list"), "FIFO"),
    ("data-fifo-ckpt-eval", "data", "fifo", ("ckpt", "eval"), "FIFO"),
    ("state-fifo-ckpt-list", "state", "fifo", ("ckpt", "list"), "FIFO"),
    ("state-fifo-show", "state", "fifo", ("runs", "show"), "FIFO"),
    ("metrics-fifo-show", "metrics", "fifo", ("runs", "show"), "FIFO"),
    ("metrics-fifo-list", "metrics", "fifo", ("runs", "list"), "FIFO"),
    ("metrics-device-show", "metrics", "device", ("runs", "show"), "device"),
    ("metrics-outside-show", "metrics", "outside", ("runs", "show"), "leads out"),
    ("metrics-socket-list", "metrics", "socket", ("runs", "list"), "socket"),
    ("status-fifo-show", "status", "fifo", ("runs", "show"), "FIFO"),
    ("status-fifo-list", "status", "fifo", ("runs", "list"), "FIFO"),
    ("status-device-list", "status", "device", ("runs", "list"), "device"),
    ("runjson-fifo-show", "run_json", "fifo", ("runs", "show"), "FIFO"),
    ("runjson-fifo-list", "run_json", "fifo", ("runs", "list"), "FIFO"),
    ("runjson-outside-show", "run_json", "outside", ("runs", "show"), "leads out"),
    ("events-fifo-show", "events", "fifo", ("runs", "show"), ""),
    ("events-fifo-list", "events", "fifo", ("runs", "list"), ""),
]


@pytest.fixture(scope="module")
def baseline_mb() -> float:
    """Peak RSS of a child that imports TensorFlow and Keras: what any command may cost."""
    found = fx.measure([fx.PYTHON, "-c", "import tensorflow, keras"])
    assert found.rc == 0, found.err[-2000:]
    return found.peak_mb


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    return fx.train_template(tmp_path_factory.mktemp("template"))


def _bounded(found: fx.Measured, baseline: float) -> None:
    assert found.peak_mb <= baseline + fx.LIMIT_MB, (found.peak_mb, baseline)
    assert found.seconds <= fx.LIMIT_S, found.seconds
    both = found.out + found.err
    assert "Traceback" not in both, both[-3000:]
    assert "OOM when allocating" not in both


def _refused(found: fx.Measured, *words: str) -> None:
    assert found.rc != 0, found.out[-2000:]
    for word in words:
        assert word in found.err, found.err[-2000:]


@pytest.mark.parametrize("name", SPEC_NAMES)
def test_spec_check_refuses_oversized_models_fast(name, tmp_path, baseline_mb) -> None:
    path = fx.spec_file(tmp_path, name)
    found = fx.measure(fx.cli("spec", "check", str(path)))
    _bounded(found, baseline_mb)
    _refused(found, "l")
    assert any(w in found.err for w in ("limit", "larger than")), found.err[-1500:]
    # the problem names a layer and a field: "l<N>.<field>:" or "x.shape:"
    assert ".output:" in found.err or ".params:" in found.err or ".bytes:" in found.err \
        or ".shape:" in found.err or "layers:" in found.err or "_size:" in found.err \
        or ".padding:" in found.err, found.err[-1500:]


@pytest.mark.parametrize("name", ["up3d_x12_dense", "dense_1e11", "einsum_4e9",
                                  "resize_8000", "flatten_dense_up"])
def test_weights_table_never_builds_an_oversized_model(name, tmp_path, baseline_mb) -> None:
    path = fx.spec_file(tmp_path, name)
    found = fx.measure(fx.cli("weights", str(path), "--no-stats"))
    _bounded(found, baseline_mb)
    _refused(found)
    assert "limit" in found.err, found.err[-1500:]


def test_static_refusal_costs_no_tensorflow(tmp_path) -> None:
    """Shapes with a rule are refused in plain Python: well under a second, ~50 MB."""
    found = fx.measure(fx.cli("spec", "check", str(fx.spec_file(tmp_path, "up3d_x12_dense"))))
    assert found.rc == 2 and found.peak_mb < 200 and found.seconds < 10
    assert "l0.output: one example would hold 191,102,976 numbers" in found.err


def test_deep_json_spec_refused(tmp_path, baseline_mb) -> None:
    found = fx.measure(fx.cli("spec", "check", str(fx.deep_json(tmp_path))))
    _bounded(found, baseline_mb)
    _refused(found, "64")


@pytest.mark.parametrize("case", RUN_CASES, ids=[c[0] for c in RUN_CASES])
def test_special_files_in_a_run_are_refused_at_once(case, template, tmp_path,
                                                    baseline_mb) -> None:
    _, target, how, command, word = case
    run = fx.copy_run(template, tmp_path)
    fx.damage_run(run, target, how)
    argv = fx.cli(*command, *([run.name] if command != ("runs", "list") else []),
                  "--workspace", str(tmp_path))
    found = fx.measure(argv, timeout=60)
    _bounded(found, baseline_mb)
    assert found.rc in (0, 1, 2), found.err[-2000:]
    assert word in found.out + found.err, (found.out + found.err)[-2000:]


@pytest.mark.parametrize("megabytes,command", [(200, "show"), (200, "list"), (60, "show")])
def test_huge_metrics_file_is_read_with_a_cap(megabytes, command, template, tmp_path,
                                              baseline_mb) -> None:
    run = fx.copy_run(template, tmp_path)
    fx.big_metrics(run, megabytes)
    argv = fx.cli("runs", command, *([run.name] if command == "show" else []),
                  "--workspace", str(tmp_path))
    found = fx.measure(argv)
    _bounded(found, baseline_mb)
    assert found.rc == 0, found.err[-2000:]
    assert run.name in found.out


def test_one_endless_metrics_line_is_skipped(template, tmp_path, baseline_mb) -> None:
    run = fx.copy_run(template, tmp_path)
    fx.long_line_metrics(run, 50)
    found = fx.measure(fx.cli("runs", "show", run.name, "--workspace", str(tmp_path)))
    _bounded(found, baseline_mb)
    assert found.rc == 0 and run.name in found.out


@pytest.mark.parametrize("columns,words", [(1_000_000, "1,000,000 columns"),
                                           (5_000, "5,000 columns")])
def test_wide_csv_refused_from_its_first_line(columns, words, tmp_path, baseline_mb) -> None:
    path = fx.wide_csv(tmp_path, columns)
    found = fx.measure(fx.cli("data", "show", f"upload:csv:{path.name}",
                              "--workspace", str(tmp_path)))
    _bounded(found, baseline_mb)
    _refused(found, words, path.name, "2,000")


def test_csv_with_too_many_cells_refused_before_parsing(tmp_path, baseline_mb) -> None:
    path = fx.long_csv(tmp_path, 2_000_000, 12)
    found = fx.measure(fx.cli("data", "show", f"upload:csv:{path.name}",
                              "--workspace", str(tmp_path)))
    _bounded(found, baseline_mb)
    _refused(found, "2,000,001 rows", "20,000,000")


def test_moderately_wide_csv_still_loads(tmp_path, baseline_mb) -> None:
    path = fx.wide_csv(tmp_path, 1_000, rows=40)
    found = fx.measure(fx.cli("data", "show", f"upload:csv:{path.name}",
                              "--workspace", str(tmp_path)))
    _bounded(found, baseline_mb)
    assert found.rc == 0, found.err[-2000:]


@pytest.mark.parametrize("name,how,word", [("bad.csv", "fifo", "FIFO"),
                                           ("dev.csv", "device", "device"),
                                           ("pipe.zip", "fifo", "FIFO"),
                                           ("pipe.npz", "fifo", "FIFO")])
def test_special_upload_files_refused(name, how, word, tmp_path, baseline_mb) -> None:
    fx.special_upload(tmp_path, name, how)
    kind = {"csv": "csv", "zip": "images", "npz": "npz"}[name.rsplit(".", 1)[1]]
    found = fx.measure(fx.cli("data", "show", f"upload:{kind}:{name}",
                              "--workspace", str(tmp_path)), timeout=60)
    _bounded(found, baseline_mb)
    _refused(found, word, name)


@pytest.fixture(scope="module")
def many_images(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("images")
    fx.image_zip(folder, 19_000)
    return folder


def test_19000_image_zip_refused_from_its_directory(many_images, baseline_mb) -> None:
    found = fx.measure(fx.cli("data", "show", "upload:images:many19000.zip",
                              "--workspace", str(many_images)))
    _bounded(found, baseline_mb)
    _refused(found, "19,000 images", "384 MB")


def test_zip_with_too_many_members_refused(tmp_path, baseline_mb) -> None:
    fx.image_zip(tmp_path, 20_001)
    found = fx.measure(fx.cli("data", "show", "upload:images:many20001.zip",
                              "--workspace", str(tmp_path)))
    _bounded(found, baseline_mb)
    _refused(found, "20001", "20000")


@pytest.mark.slow
def test_19000_small_images_load_bounded(many_images, baseline_mb) -> None:
    """At 8x8 the same zip fits the limits: a bounded success."""
    found = fx.measure(fx.cli("data", "show", "upload:images:many19000.zip", "-o",
                              "image_size=8", "--workspace", str(many_images)))
    _bounded(found, baseline_mb)
    assert found.rc == 0, found.err[-2000:]
