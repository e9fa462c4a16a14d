"""``metrics.jsonl``: the worker appends one JSON object per line; readers read what is new
since a byte offset, tolerate a torn last line, and skip (and count) damaged lines."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from tfcore.jsonio import _json_default
from tfcore.rundir.schema import METRICS_JSONL, RunProblem, check_metrics_line, json_problem

MAX_LOCATED = 5      # located problems kept per read; the rest are only counted


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
    of complete lines consumed, so ``first_line + lines`` continues the numbering.
    """

    records: tuple[dict, ...]
    offset: int
    skipped: int = 0
    problems: tuple[RunProblem, ...] = ()
    lines: int = 0

    @property
    def summary_problems(self) -> tuple[RunProblem, ...]:
        """The located problems, plus a count when more lines were skipped than located."""
        if self.skipped <= len(self.problems):
            return self.problems
        return self.problems + (RunProblem(METRICS_JSONL, "", "skipped", str(self.skipped)),)


def _parse(raw: bytes, line: int) -> tuple[dict | None, RunProblem | None]:
    try:
        value = json.loads(raw)
    except UnicodeDecodeError:
        return None, RunProblem(METRICS_JSONL, "", "binary", line=line)
    except json.JSONDecodeError as exc:
        return None, RunProblem(METRICS_JSONL, "", "json_col", limit=str(exc.colno), line=line)
    except (ValueError, RecursionError) as exc:     # a 5,000-digit number; deep nesting
        return None, json_problem(METRICS_JSONL, exc, line)
    problem = check_metrics_line(value, line)
    return (None, problem) if problem else (value, None)


def read_metrics(path: Path, offset: int = 0, first_line: int = 1) -> MetricsChunk:
    """Read complete lines written after ``offset``; a torn last line is left for later.

    Damaged lines (not JSON, not an object, a field of the wrong type or range) are skipped
    and counted, never raised.
    """
    path = Path(path)
    try:
        with open(path, "rb") as handle:
            handle.seek(offset)
            data = handle.read()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return MetricsChunk(records=(), offset=offset)
    except OSError as exc:
        problem = RunProblem(METRICS_JSONL, "", "unreadable", limit=type(exc).__name__)
        return MetricsChunk(records=(), offset=offset, problems=(problem,))
    end = data.rfind(b"\n")
    if end < 0:
        return MetricsChunk(records=(), offset=offset)
    records: list[dict] = []
    problems: list[RunProblem] = []
    skipped = 0
    lines = data[: end + 1].split(b"\n")[:-1]
    for number, raw in enumerate(lines, start=first_line):
        if not raw.strip():
            continue
        record, problem = _parse(raw, number)
        if record is not None:
            records.append(record)
            continue
        skipped += 1
        if len(problems) < MAX_LOCATED:
            problems.append(problem)
    return MetricsChunk(records=tuple(records), offset=offset + end + 1, skipped=skipped,
                        problems=tuple(problems), lines=len(lines))

