"""Run folders written to the contract by hand, and a catalogue of ways to damage them.

``write_template`` writes three runs into a runs root: ``victim`` (the one a mutation
damages: run.json, status.json, meta.json and metrics.jsonl all filled in), ``healthy``
(finished) and ``waiting`` (queued, created last). ``mutations()`` lists every damage
the fuzz tests apply to ``victim``: for each field of each file a wrong type, a value out
of range (negative, huge, unknown state), a missing field; for each file a truncated,
non-object, binary, empty, missing or folder-shaped file; for metrics lines, bad lines
between good ones.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

CREATED = "2026-01-0{}T10:00:00+00:00"
DELETE = object()       # "remove this field"


def run_json(name: str, day: int) -> dict:
    return {"name": name, "created": CREATED.format(day),
            "spec": {"format": 1, "name": "tiny", "kind": "sequential", "layers": []},
            "dataset": {"name": "digits8"}, "training": {"seed": 3, "epochs": 1},
            "device": {"kind": "cpu"}, "versions": {"tensorflow": "2.21.0"},
            "resume_of": "older-run", "initial_weights": None}


STATUS = {"state": "running", "step": 12, "epoch": 1, "heartbeat": 1.7e9,
          "updated": "2026-01-01T10:05:00+00:00", "pid": 4_000_000, "message": "",
          "traceback": "", "queued_at": 1.7e9, "queue_position": None, "launched": 1.7e9,
          "replicas": 1, "strategy": "default", "started": "2026-01-01T10:00:01+00:00",
          "ended": "2026-01-01T10:04:00+00:00", "total_steps": 12, "steps_per_epoch": 12,
          "resumed_from": 0, "notes": ["float32"], "batch_size": 32, "per_replica_batch": 32,
          "epochs": 1, "samples_per_sec": 100.0, "eta_seconds": 0.0, "elapsed": 1.5,
          "wall_seconds": 2.0, "last": {"loss": 0.5}, "last_val": {"loss": 0.6},
          "test_metrics": {"loss": 0.7}, "parameters": {"dense/kernel": [0.1, 0.2]},
          "checkpoints": ["ckpt-12"], "error_key": "train.err.nan",
          "error_params": {"step": 3, "key": "x"}, "resumes": 0, "phase": "training",
          "phase_checkpoint": 12}
META = {"name": "renamed victim", "tags": ["baseline"], "updated": "2026-01-02T00:00:00+00:00"}
METRICS = [{"step": s, "epoch": 1, "time": 1.7e9 + s, "elapsed": 0.1 * s, "split": "train",
            "loss": 1.0 / s, "acc": 0.5, "samples_per_sec": 320.0} for s in (1, 2, 3)] + [
           {"step": 3, "epoch": 1, "time": 1.7e9 + 4, "elapsed": 0.4, "split": "val",
            "loss": 0.9, "acc": 0.4},
           {"step": 3, "epoch": 1, "time": 1.7e9 + 5, "elapsed": 0.5, "split": "test",
            "loss": 0.8, "acc": 0.45}]

# What each field holds (the contract), and so how to damage it.
RUN_FIELDS = {"name": "text", "created": "time", "spec": "object", "dataset": "object",
              "training": "object", "device": "object", "versions": "object",
              "resume_of": "text", "spec.name": "text", "dataset.name": "text",
              "device.kind": "text", "training.seed": "int", "format": "format"}
STATUS_FIELDS = {"state": "state", "step": "count", "epoch": "count", "heartbeat": "time_s",
                 "updated": "time", "pid": "pid", "message": "long_text",
                 "traceback": "long_text", "queued_at": "time_s", "launched": "time_s",
                 "replicas": "count", "strategy": "text", "started": "time", "ended": "time",
                 "total_steps": "count", "steps_per_epoch": "count", "resumed_from": "count",
                 "notes": "strings", "batch_size": "count", "per_replica_batch": "count",
                 "epochs": "count", "samples_per_sec": "seconds", "eta_seconds": "seconds",
                 "elapsed": "seconds", "wall_seconds": "seconds", "last": "metrics",
                 "last_val": "metrics", "test_metrics": "metrics", "parameters": "series",
                 "checkpoints": "strings", "error_key": "text", "error_params": "scalars",
                 "resumes": "count", "phase": "text", "phase_checkpoint": "count"}
META_FIELDS = {"name": "text", "tags": "names", "updated": "time"}
LINE_FIELDS = {"step": "count", "epoch": "count", "time": "time_s", "elapsed": "seconds",
               "split": "split", "samples_per_sec": "seconds", "loss": "metric",
               "acc": "metric"}
REQUIRED = {("run.json", "created"), ("status.json", "state"), ("status.json", "step"),
            ("metrics.jsonl", "step")}

HUGE_TEXT = "x" * 1_000_001
# kind -> damaged values (each breaks the contract)
BAD_VALUES: dict[str, list[Any]] = {
    "text": [5, ["a"], "y" * 201],
    "long_text": [5, {"a": 1}, HUGE_TEXT],
    "time": [5, "yesterday", "2026-13-45T99:00:00", "0001-01-01T00:00:00+23:59",
             "9999-12-31T23:59:59-23:59"],
    "state": ["exploded", 5, None, ""],
    "split": ["holdout", 5],
    "count": ["abc", -5, 10 ** 30, 1.5, True, [1]],
    "int": ["abc", 10 ** 30, 1.5],
    "format": ["1", 0, 2, 10 ** 30, True, None],
    "pid": ["abc", -1, 0, 10 ** 30],
    "seconds": ["abc", -5.0, 1e300, float("nan"), 10 ** 400],
    "time_s": ["abc", -1.0, 1e300],
    "metric": ["abc", [1], 10 ** 400, True],
    "metrics": ["abc", [1, 2], {"loss": "abc"}, {"loss": 10 ** 400}],
    "series": ["abc", {"w": "abc"}, {"w": [1, "x"]}],
    "strings": ["abc", [1, 2], {"a": 1}],
    "names": [5, ["x" * 500], [1]],
    "object": [5, [1], "abc"],
    "scalars": ["abc", {"a": [1]}, {"a": {"b": 1}}],
}
GARBAGE = b"\x89PNG\r\n\x1a\n\x00\xff\xfe\xfd binary \xc3\x28"


@dataclass(frozen=True)
class Mutation:
    """One way to damage ``victim``: which file, which field ("" = the whole file), which
    metrics line (1-based; None for JSON files), and whether a problem must be reported."""

    name: str
    file: str
    field: str
    apply: Callable[[Path], None]
    expect_problem: bool = True
    line: int | None = None


def write_template(root: Path) -> None:
    """``victim``, ``healthy`` and ``waiting`` runs under ``root``."""
    for run_id, day, status in (("victim", 1, STATUS),
                                ("healthy", 2, {"state": "finished", "step": 5, "epoch": 1}),
                                ("waiting", 3, {"state": "queued", "step": 0, "epoch": 0,
                                                "queued_at": 1.7e9})):
        folder = root / run_id
        folder.mkdir(parents=True)
        _dump(folder / "run.json", run_json(run_id, day))
        _dump(folder / "status.json", status)
    _dump(root / "victim" / "meta.json", META)
    _lines(root / "victim" / "metrics.jsonl", [json.dumps(r) for r in METRICS])


def _dump(path: Path, value: Any) -> None:
    path.write_text(json.dumps(value), encoding="utf-8")


def _lines(path: Path, lines: list[str]) -> None:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def _set(data: dict, dotted: str, value: Any) -> None:
    *parents, last = dotted.split(".")
    for part in parents:
        data = data[part]
    if value is DELETE:
        data.pop(last, None)
    else:
        data[last] = value


def _field_mutation(file: str, template: Callable[[], dict], field: str, value: Any,
                    label: str) -> Mutation:
    def apply(folder: Path) -> None:
        data = template()
        _set(data, field, value)
        _dump(folder / file, data)

    expect = value is not DELETE or (file, field) in REQUIRED
    return Mutation(f"{file}:{field}:{label}", file, field, apply, expect)


def _file_mutation(file: str, label: str, write: Callable[[Path], None],
                   expect: bool = True) -> Mutation:
    def apply(folder: Path) -> None:
        target = folder / file
        if target.is_file():
            target.unlink()
        write(target)

    return Mutation(f"{file}:<file>:{label}", file, "", apply, expect)


def _line_mutation(field: str, value: Any, label: str) -> Mutation:
    line = 2                                  # the second of five lines

    def apply(folder: Path) -> None:
        records = [dict(r) for r in METRICS]
        _set(records[line - 1], field, value)
        _lines(folder / "metrics.jsonl", [json.dumps(r) for r in records])

    return Mutation(f"metrics.jsonl:{field}:{label}", "metrics.jsonl", field, apply,
                    value is not DELETE or ("metrics.jsonl", field) in REQUIRED, line)


def _raw_line_mutation(label: str, raw: bytes) -> Mutation:
    def apply(folder: Path) -> None:
        good = [json.dumps(r).encode() for r in METRICS]
        (folder / "metrics.jsonl").write_bytes(b"\n".join(good[:1] + [raw] + good[1:]) + b"\n")

    return Mutation(f"metrics.jsonl:<line>:{label}", "metrics.jsonl", "", apply, True, 2)


def mutations() -> list[Mutation]:
    """Every damage the fuzz tests try."""
    found: list[Mutation] = []
    tables = (("run.json", lambda: run_json("victim", 1), RUN_FIELDS),
              ("status.json", lambda: json.loads(json.dumps(STATUS)), STATUS_FIELDS),
              ("meta.json", lambda: dict(META), META_FIELDS))
    for file, template, fields in tables:
        for field, kind in fields.items():
            for index, value in enumerate(BAD_VALUES[kind]):
                found.append(_field_mutation(file, template, field, value, f"{kind}{index}"))
            found.append(_field_mutation(file, template, field, DELETE, "missing"))
        text = json.dumps(template())
        found += [
            _file_mutation(file, "truncated", lambda p, s=text: p.write_text(s[: len(s) // 2])),
            _file_mutation(file, "list", lambda p: p.write_text("[1, 2]")),
            _file_mutation(file, "number", lambda p: p.write_text("5")),
            _file_mutation(file, "binary", lambda p: p.write_bytes(GARBAGE)),
            _file_mutation(file, "empty", lambda p: p.write_text("")),
            _file_mutation(file, "folder", lambda p: p.mkdir()),
            _file_mutation(file, "missing", lambda p: None, expect=file != "meta.json"),
            _file_mutation(file, "digits", lambda p: p.write_text('{"x": 1' + "0" * 5000 + "}")),
            _file_mutation(file, "nested", lambda p: p.write_text("[" * 100_000 + "]" * 100_000)),
        ]
    for field, kind in LINE_FIELDS.items():
        for index, value in enumerate(BAD_VALUES[kind]):
            found.append(_line_mutation(field, value, f"{kind}{index}"))
        found.append(_line_mutation(field, DELETE, "missing"))
    found += [_raw_line_mutation("truncated", b'{"step": 2, "lo'),
              _raw_line_mutation("binary", GARBAGE),
              _raw_line_mutation("list", b"[1, 2]"),
              _raw_line_mutation("string", b'"loss"'),
              _raw_line_mutation("empty_object", b"{}"),
              _raw_line_mutation("digits", b'{"step": 2, "loss": 1' + b"0" * 5000 + b"}"),
              _raw_line_mutation("nested", b"[" * 100_000 + b"]" * 100_000)]
    return found


def damaged_root(root: Path, mutation: Mutation) -> Path:
    """A fresh runs root with the template runs and ``mutation`` applied to ``victim``."""
    if root.exists():
        shutil.rmtree(root)
    write_template(root)
    mutation.apply(root / "victim")
    return root


def located(problems: Any, mutation: Mutation) -> bool:
    """Whether one of ``problems`` names the mutation's file, field (and line)."""
    for problem in problems:
        text = str(problem)
        if getattr(problem, "file", None) != mutation.file or not text.startswith(mutation.file):
            continue
        if mutation.field and problem.field != mutation.field:
            continue
        if mutation.line is not None and problem.line != mutation.line:
            continue
        return True
    return False
