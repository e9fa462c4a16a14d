"""``metrics.jsonl``: the worker appends one JSON object per line; readers read what is new
since a byte offset, tolerate a torn last line, and skip (and count) damaged lines."""

from __future__ import annotations

import json
import os
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from tfcore.errors import TFLabError
from tfcore.jsonio import _json_default
from tfcore.rundir.schema import METRICS_JSONL, RunProblem, check_metrics_line, parse_json_line

from tfcore.workspace import file_kind, open_regular

MAX_LOCATED = 5      # located problems kept per read; the rest are only counted
MAX_RECORDS = 100_000    # records kept per read; a longer new part is thinned evenly
TAIL_LINES = 200         # the last lines of a thinned read, always parsed
CHUNK_BYTES = 4 * 2**20  # read this much at a time
MAX_LINE_BYTES = 2**20   # a longer line is skipped (and located) without being kept


class MetricsWriter:
    """Append-only writer of ``metrics.jsonl``: one whole line per ``write`` call."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._handle = open(self.path, "a", encoding="utf-8")

    def append(self, record: Mapping[str, Any]) -> None:
        line = json.dumps(record, ensure_ascii=False, default=_json_default) + "\n"
        self._handle.write(line)
        self._handle.flush()

    def append_many(self, records: "list[Mapping[str, Any]]") -> None:
        """Append several records with one write (whole lines only), for batched logging."""
        if records:
            self._handle.write("".join(json.dumps(r, ensure_ascii=False, default=_json_default)
                                       + "\n" for r in records))
            self._handle.flush()

    def close(self) -> None:
        if not self._handle.closed:
            self._handle.flush()
            os.fsync(self._handle.fileno())
            self._handle.close()

    def __enter__(self) -> "MetricsWriter":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass(frozen=True)
class MetricsChunk:
    """Records read from ``metrics.jsonl`` and the byte offset to continue from.

    ``skipped`` counts the complete lines that were not valid records; ``problems`` locates
    the first few of them (line numbers count from ``first_line``); ``lines`` is the number
    of complete lines consumed, so ``first_line + lines`` continues the numbering;
    ``stride`` > 1 when the file held more lines than ``MAX_RECORDS`` and was thinned.
    """

    records: tuple[dict, ...]
    offset: int
    skipped: int = 0
    problems: tuple[RunProblem, ...] = ()
    lines: int = 0
    stride: int = 1          # 1: every line; k: about every k-th (a file above the cap)

    @property
    def summary_problems(self) -> tuple[RunProblem, ...]:
        """The located problems, plus a count when more lines were skipped than located."""
        if self.skipped <= len(self.problems):
            return self.problems
        return self.problems + (RunProblem(METRICS_JSONL, "", "skipped", str(self.skipped)),)


def _parse(raw: bytes, line: int) -> tuple[dict | None, RunProblem | None]:
    value, problem = parse_json_line(raw, METRICS_JSONL, line)
    if problem is None:
        problem = check_metrics_line(value, line)
    return (None, problem) if problem else (value, None)


def read_metrics(path: Path, offset: int = 0, first_line: int = 1,
                 max_records: int | None = None) -> MetricsChunk:
    """Read complete lines written after ``offset``; a torn last line is left for later.

    Damaged lines (not JSON, not an object, a field of the wrong type or range) are skipped
    and counted, never raised. The file is read in chunks of ``CHUNK_BYTES``, and when the
    new part holds more lines than ``max_records`` (default ``MAX_RECORDS``) only every
    ``stride``-th line is parsed, plus the last ``TAIL_LINES`` (the final values), so a
    200 MB file costs a bounded number of records. A FIFO, device, socket or a link leaving
    the run folder is refused unopened (a located problem).
    """
    path = Path(path)
    cap = MAX_RECORDS if max_records is None else max_records
    kind = file_kind(path, path.parent)
    if kind in ("missing", "folder"):
        return MetricsChunk(records=(), offset=offset)
    if kind is not None:
        problem = RunProblem(METRICS_JSONL, "", "special", limit=kind)
        return MetricsChunk(records=(), offset=offset, problems=(problem,))
    try:
        handle = open_regular(path, METRICS_JSONL, path.parent)
    except (OSError, TFLabError) as exc:
        problem = RunProblem(METRICS_JSONL, "", "unreadable", limit=type(exc).__name__)
        return MetricsChunk(records=(), offset=offset, problems=(problem,))
    with handle:
        span = max(os.fstat(handle.fileno()).st_size - offset, 0)
        handle.seek(offset)
        return _read_lines(handle, offset, first_line, span, cap)


def _read_lines(handle: Any, offset: int, first_line: int, span: int, cap: int) -> MetricsChunk:
    kept: list[tuple[int, dict]] = []
    problems: list[RunProblem] = []
    tail: "deque[tuple[int, bytes]]" = deque(maxlen=TAIL_LINES)
    skipped = count = 0
    stride, position, rest, long_line, long_bytes = 1, offset, b"", False, 0

    def take(number: int, raw: bytes) -> None:
        nonlocal skipped
        record, problem = _parse(raw, number)
        if record is not None:
            kept.append((number, record))
            return
        skipped += 1
        if len(problems) < MAX_LOCATED:
            problems.append(problem)

    while True:
        block = handle.read(CHUNK_BYTES)
        if not block:
            break
        data = rest + block
        end = data.rfind(b"\n")
        if end < 0:
            rest = data
            if len(rest) > MAX_LINE_BYTES:          # one endless line: skipped, not kept
                position, long_line = position + len(rest), True
                long_bytes, rest = long_bytes + len(rest), b""
            continue
        lines, rest = data[: end + 1].split(b"\n")[:-1], data[end + 1:]
        position += end + 1
        if long_line:                               # the end of the endless line
            count += 1
            skipped += 1
            if len(problems) < MAX_LOCATED:
                problems.append(RunProblem(METRICS_JSONL, "", "line_big",
                                           f"{long_bytes + len(lines[0]):,}",
                                           f"{MAX_LINE_BYTES:,}", line=first_line + count - 1))
            lines, long_line, long_bytes = lines[1:], False, 0
        if count == 0 and span > len(block):       # estimate the lines from the first chunk
            stride = max(1, -(-span * len(lines) // max(len(block), 1) // max(cap, 1)))
        base, count = count, count + len(lines)
        # every ``stride``-th line of the read is parsed (all when 1); the last lines of
        # each block wait in ``tail`` (the final values, parsed at the end)
        for i in range(-base % stride, len(lines), stride):
            if lines[i].strip():
                take(first_line + base + i, lines[i])
        if stride > 1:
            last = max(len(lines) - TAIL_LINES, 0)
            tail.extend(zip(range(first_line + base + last, first_line + count),
                            lines[last:]))
    parsed = {n for n, _ in kept}
    for number, raw in tail:                       # the last lines: the final values
        if number not in parsed and raw.strip():
            take(number, raw)
    kept.sort(key=lambda item: item[0])
    return MetricsChunk(records=tuple(r for _, r in kept), offset=position, skipped=skipped,
                        problems=tuple(problems), lines=count, stride=stride)


def thin(chunk: MetricsChunk, cap: int | None = None) -> MetricsChunk:
    """At most about ``cap`` records: every other one dropped (the last kept) while above."""
    cap = MAX_RECORDS if cap is None else cap
    records, stride = chunk.records, chunk.stride
    while len(records) > cap:
        records = records[:-1][::2] + records[-1:]
        stride *= 2
    if records is chunk.records:
        return chunk
    return MetricsChunk(records=records, offset=chunk.offset, skipped=chunk.skipped,
                        problems=chunk.problems, lines=chunk.lines, stride=stride)
