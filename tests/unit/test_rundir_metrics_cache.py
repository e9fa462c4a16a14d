"""The incremental whole-file metrics reader (tfcore/rundir/metrics_cache.py)."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from tfcore.rundir import cached_metrics, forget_metrics, read_metrics
from tfcore.rundir import metrics_cache


def _line(step: int, loss: float) -> str:
    return json.dumps({"step": step, "split": "train", "loss": loss}) + "\n"


@pytest.fixture(autouse=True)
def _fresh() -> None:
    forget_metrics()


def test_reads_only_what_was_appended_and_matches_a_full_read(tmp_path: Path) -> None:
    path = tmp_path / "metrics.jsonl"
    path.write_text("".join(_line(s, 1.0 / s) for s in range(1, 101)))
    before = metrics_cache.stats["parsed_bytes"]
    first = cached_metrics(path)
    assert len(first.records) == 100
    assert metrics_cache.stats["parsed_bytes"] - before == path.stat().st_size
    assert cached_metrics(path) is first                 # unchanged file: the same chunk
    size = path.stat().st_size
    extra = "".join(_line(s, 0.5) for s in range(101, 111))
    with open(path, "a") as handle:
        handle.write(extra + '{"step": 111, "spl')     # a torn last line
    chunk = cached_metrics(path)
    assert [r["step"] for r in chunk.records] == list(range(1, 111))
    assert metrics_cache.stats["parsed_bytes"] - before == size + len(extra)
    with open(path, "a") as handle:
        handle.write('it": "train", "loss": 0.25}\n')
    chunk = cached_metrics(path)
    assert chunk.records[-1] == {"step": 111, "split": "train", "loss": 0.25}
    full = read_metrics(path)
    assert chunk.records == full.records and chunk.offset == full.offset


def test_damaged_lines_keep_their_line_numbers_across_reads(tmp_path: Path) -> None:
    path = tmp_path / "metrics.jsonl"
    path.write_text(_line(1, 1.0) + "not json\n")
    assert cached_metrics(path).problems[0].line == 2
    with open(path, "a") as handle:
        handle.write(_line(2, 0.5) + '{"step": "abc", "split": "train"}\n')
    chunk = cached_metrics(path)
    assert [p.line for p in chunk.problems] == [2, 4]
    assert chunk.skipped == 2 and [r["step"] for r in chunk.records] == [1, 2]
    assert [p.line for p in read_metrics(path).problems] == [2, 4]


def test_a_replaced_or_truncated_file_is_read_again(tmp_path: Path) -> None:
    path = tmp_path / "metrics.jsonl"
    path.write_text("".join(_line(s, 1.0) for s in range(1, 6)))
    assert len(cached_metrics(path).records) == 5
    other = tmp_path / "other.jsonl"
    other.write_text(_line(7, 2.0))
    os.replace(other, path)                              # a new inode
    assert [r["step"] for r in cached_metrics(path).records] == [7]
    with open(path, "r+") as handle:                     # same inode, shorter
        handle.truncate(0)
    path.write_text("")
    assert cached_metrics(path).records == ()
    path.unlink()
    assert cached_metrics(path).records == ()


def test_readers_in_threads_while_a_writer_appends_see_every_record(tmp_path: Path) -> None:
    path = tmp_path / "metrics.jsonl"
    path.write_text("")
    done = threading.Event()
    seen: list[int] = []

    def reader() -> None:
        while not done.is_set():
            steps = [r["step"] for r in cached_metrics(path).records]
            assert steps == list(range(1, len(steps) + 1))   # in order, none missing
            seen.append(len(steps))

    threads = [threading.Thread(target=reader) for _ in range(4)]
    for thread in threads:
        thread.start()
    with open(path, "a") as handle:
        for step in range(1, 2001):
            line = _line(step, 1.0)
            handle.write(line[:10])
            handle.flush()
            handle.write(line[10:])
            handle.flush()
    done.set()
    for thread in threads:
        thread.join()
    assert [r["step"] for r in cached_metrics(path).records] == list(range(1, 2001))
    assert seen


def test_max_age_reuses_a_recent_snapshot_and_zero_always_looks(tmp_path: Path) -> None:
    path = tmp_path / "metrics.jsonl"
    path.write_text(_line(1, 1.0))
    first = cached_metrics(path)
    with open(path, "a") as handle:
        handle.write(_line(2, 0.5))
    assert cached_metrics(path, max_age=3600) is first        # within the interval
    assert [r["step"] for r in cached_metrics(path).records] == [1, 2]
    assert len(cached_metrics(path, max_age=3600).records) == 2
    with open(path, "a") as handle:
        handle.write(_line(3, 0.25))
    assert len(cached_metrics(path, max_age=1e-9).records) == 3   # older than the age


def test_a_thinned_read_keeps_every_stride_th_line_and_the_last_lines(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file with more lines than the cap is read in chunks and thinned: every
    ``stride``-th line (counted over all lines, blank ones too) is parsed, plus the last
    ``TAIL_LINES``; blank lines are counted but never parsed, a damaged one is located."""
    from tfcore.rundir import metrics

    monkeypatch.setattr(metrics, "CHUNK_BYTES", 4096)
    monkeypatch.setattr(metrics, "TAIL_LINES", 7)
    lines = [_line(s, 1.0) for s in range(1, 3001)]
    lines[1500] = "\n"                                  # a blank line (step 1501 gone)
    lines[2999 - 3] = '{"step": "x"}\n'                  # a damaged line among the last
    path = tmp_path / "metrics.jsonl"
    path.write_text("".join(lines))
    chunk = read_metrics(path, max_records=100)
    assert chunk.stride > 1 and chunk.lines == 3000 and chunk.offset == path.stat().st_size
    picked = {i + 1 for i in range(0, 3000, chunk.stride)} | set(range(2994, 3001))
    expected = sorted(s for s in picked if s not in (1501, 2997))
    assert [r["step"] for r in chunk.records] == expected
    assert chunk.skipped == 1 and chunk.problems[0].line == 2997
