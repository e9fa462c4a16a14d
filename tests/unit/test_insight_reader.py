"""The ``insight/`` readers (``tfcore.rundir.insight_reader``) on real files: a torn last line
waits for its end, a damaged line is skipped and located by its line number, a FIFO is refused
unopened, a newer format and a grid of the wrong shape are located problems, only appended
bytes are parsed again, and a resumed run forgets the snapshots after its checkpoint."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import numpy as np
import pytest

from tfcore.rundir import InsightWriter, forget_insight, read_grid, read_insight
from tfcore.rundir import insight_format as contract
from tfcore.rundir.insight_reader import counters

PLANE = {"lo": [-1.0, -1.0], "hi": [1.0, 1.0], "size": 4, "neuron_size": 3,
         "points": [[0.0, 0.5], [0.5, 0.0]], "labels": [0, 1], "output": "classes",
         "class_names": ["a", "b"]}
META = {"every": 5, "probe": 8, "plane": PLANE, "neurons": ["h"],
        "layers": [{"name": "h", "kind": "Dense", "units": 2, "activation": "relu",
                    "params": 6, "variables": ["h/kernel", "h/bias"]}]}


def record(step: int) -> dict:
    return {"step": step, "epoch": 1, "time": 1.5, "grid": False,
            "hist": {"h/kernel": {"lo": -1.0, "hi": 1.0, "counts": [1, 2, 1]}},
            "grad_norm": {"h": 0.5}, "dead": {"h": 0.0}}


@pytest.fixture()
def run(tmp_path: Path):
    forget_insight()
    writer = InsightWriter(tmp_path)
    writer.write_meta(META)
    yield tmp_path, writer
    writer.close()
    forget_insight()


def stats_file(run_dir: Path) -> Path:
    return run_dir / "insight" / "stats.jsonl"


def test_a_torn_last_line_waits_for_its_end(run) -> None:
    run_dir, writer = run
    writer.append(record(0))
    line = json.dumps(record(5))
    with open(stats_file(run_dir), "a") as handle:
        handle.write(line[:20])
    insight = read_insight(run_dir)
    assert [r["step"] for r in insight.records] == [0] and not insight.problems
    with open(stats_file(run_dir), "a") as handle:
        handle.write(line[20:] + "\n")
    insight = read_insight(run_dir)
    assert [r["step"] for r in insight.records] == [0, 5] and not insight.problems


def test_a_damaged_line_is_skipped_and_located_by_its_line_number(run) -> None:
    run_dir, writer = run
    writer.append(record(0))
    with open(stats_file(run_dir), "a") as handle:
        handle.write('{"step": 5, "epoch": 1, "hist": {"h/kernel": {"lo": 0, "hi": 1, '
                     '"counts": [1, -2]}}}\n')
        handle.write("{not json\n")
    writer.append(record(10))
    insight = read_insight(run_dir)
    assert [r["step"] for r in insight.records] == [0, 10]
    assert insight.skipped == 2
    first, second = insight.problems
    assert (first.file, first.line, first.field) == ("insight/stats.jsonl", 2,
                                                     "hist.h/kernel.counts")
    assert (second.line, second.reason) == (3, "json_col")
    assert "insight/stats.jsonl:2" in first.text("en") and "insight/stats.jsonl:3" in str(second)


def test_a_fifo_is_refused_unopened(run) -> None:
    run_dir, _ = run
    stats_file(run_dir).unlink()
    os.mkfifo(stats_file(run_dir))
    done: list = []
    reader = threading.Thread(target=lambda: done.append(read_insight(run_dir)), daemon=True)
    reader.start()
    reader.join(30)
    assert done, "read_insight blocked on a FIFO"
    (problem,) = done[0].problems
    assert (problem.file, problem.reason, problem.limit) == ("insight/stats.jsonl",
                                                             "unreadable", "not a file")
    os.unlink(stats_file(run_dir))
    os.mkfifo(stats_file(run_dir))
    grid = run_dir / "insight" / contract.grid_name(5)
    os.mkfifo(grid)
    meta = read_insight(run_dir).meta
    got, problem = read_grid(run_dir, 5, meta)
    assert got is None and problem.limit == "not a file"


def test_a_newer_format_is_a_located_problem(run) -> None:
    run_dir, writer = run
    body = json.loads((run_dir / "insight" / "meta.json").read_text())
    (run_dir / "insight" / "meta.json").write_text(json.dumps(body | {"format": 99}))
    writer.append(record(0))
    insight = read_insight(run_dir)
    assert insight.meta is None and not insight.records
    (problem,) = insight.problems
    assert (problem.file, problem.field, problem.reason, problem.limit) == \
        ("insight/meta.json", "format", "newer", str(contract.INSIGHT_FORMAT))


def test_grids_are_checked_against_the_meta(run) -> None:
    run_dir, writer = run
    good = dict(conf=np.full((4, 4), 0.75), cls=np.ones((4, 4), int),
                neurons=[np.zeros((2, 3, 3))], kernels=[np.ones((2, 2))])
    writer.write_grid(5, **good)
    meta = read_insight(run_dir).meta
    grid, problem = read_grid(run_dir, 5, meta)
    assert problem is None and grid.conf.shape == (4, 4) and grid.cls.sum() == 16
    assert grid.neurons["h"].shape == (2, 3, 3) and grid.kernels["h"].shape == (2, 2)
    writer.write_grid(10, **(good | {"conf": np.zeros((5, 4))}))
    grid, problem = read_grid(run_dir, 10, meta)
    assert grid is None and (problem.file, problem.field, problem.reason) == \
        ("insight/" + contract.grid_name(10), "conf", "choice")
    assert problem.limit == "[4, 4]" and problem.value == "[5, 4]"
    writer.write_grid(15, **(good | {"neurons": [np.zeros((3, 3, 3))]}))
    assert read_grid(run_dir, 15, meta)[1].field == "n0"
    (run_dir / "insight" / contract.grid_name(20)).write_bytes(b"PK\x03\x04 not a zip")
    assert read_grid(run_dir, 20, meta)[1].reason == "unreadable"
    assert read_grid(run_dir, 25, meta)[1].reason == "missing"


def test_only_appended_bytes_are_read_again(run) -> None:
    run_dir, writer = run
    for step in (0, 5):
        writer.append(record(step))
    before = counters["stats_bytes"]
    assert len(read_insight(run_dir).records) == 2
    size = stats_file(run_dir).stat().st_size
    assert counters["stats_bytes"] - before == size
    assert len(read_insight(run_dir).records) == 2         # nothing new: nothing read
    assert counters["stats_bytes"] - before == size
    writer.append(record(10))
    grown = stats_file(run_dir).stat().st_size
    assert [r["step"] for r in read_insight(run_dir).records] == [0, 5, 10]
    assert counters["stats_bytes"] - before == grown     # only the new line


def test_rewind_forgets_the_snapshots_after_the_resumed_step(run) -> None:
    """A run resumed from its checkpoint at step 10 trains steps 11.. again: the stats
    lines and grid files after step 10 go (the file is rewritten, so a reader's cached
    offset restarts), the others stay; without anything to drop the file is untouched."""
    run_dir, writer = run
    conf = np.zeros((4, 4))
    for step in (0, 5, 10, 15):
        writer.append(record(step) | {"grid": True})
        writer.write_grid(step, conf, np.zeros((4, 4), int), [np.zeros((2, 3, 3))])
    assert [r["step"] for r in read_insight(run_dir).records] == [0, 5, 10, 15]
    inode = stats_file(run_dir).stat().st_ino
    assert writer.rewind(15) == {0, 5, 10, 15}
    assert stats_file(run_dir).stat().st_ino == inode
    assert writer.rewind(10) == {0, 5, 10}
    names = sorted(p.name for p in (run_dir / "insight").glob("grid-*.npz"))
    assert names == [contract.grid_name(s) for s in (0, 5, 10)]
    writer.append(record(12))
    assert [r["step"] for r in read_insight(run_dir).records] == [0, 5, 10, 12]


def test_a_built_in_sets_class_texts_are_read_and_checked(run) -> None:
    """``plane.class_texts`` (a built-in 2-D set's class names as catalog keys) are read
    with the meta; a list that does not fit the names is a located problem."""
    from tfcore.data import class_texts

    run_dir, writer = run
    path = run_dir / "insight" / "meta.json"
    body = json.loads(path.read_text())
    names = ["moon A", "moon B"]
    texts = [{"key": t.key, "params": dict(t.params)} for t in class_texts("moons", names)]
    body["plane"] |= {"class_names": names, "class_texts": texts}
    path.write_text(json.dumps(body))
    forget_insight()
    plane = read_insight(run_dir).meta.plane
    assert plane.class_texts == ({"key": "data.class.moons.0", "params": {}},
                                 {"key": "data.class.moons.1", "params": {}})
    body["plane"]["class_texts"] = texts[:1]
    path.write_text(json.dumps(body) + " ")
    forget_insight()
    insight = read_insight(run_dir)
    (problem,) = insight.problems
    assert insight.meta is None and problem.field == "plane.class_texts"


def test_class_texts_are_given_only_for_a_built_in_sets_own_names() -> None:
    from tfcore.data import class_texts
    from tfcore.messages import render

    assert [render(t.key, t.params, "zh") for t in class_texts(
        "circles", ("inside", "outside"))] == ["内圈", "外圈"]
    assert [render(t.key, t.params, "en") for t in class_texts(
        "xor", ["same sign", "different sign"])] == ["same sign", "different sign"]
    assert [render(t.key, t.params, "zh") for t in class_texts(
        "blobs", ["blob 0", "blob 1", "blob 2"])] == ["簇 0", "簇 1", "簇 2"]
    assert class_texts("circles", ("ring", "disc")) is None         # not its names
    assert class_texts("csv:points.csv", ("inside", "outside")) is None
    assert class_texts("blobs", ("blob 1", "blob 0")) is None
