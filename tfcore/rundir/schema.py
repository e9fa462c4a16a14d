"""One schema per run file, checked on read: types, ranges, known states.

A reader never trusts a run file: each field is checked against its :class:`Field`, a bad
field is dropped (the reader falls back to its default) and reported as a located
:class:`RunProblem` such as ``status.json: step: 'abc' is not an integer``. Unknown fields
pass unchecked, so a newer writer's additions do not damage a run.

``run.json`` records its ``format`` (:data:`RUN_FORMAT`). A file without one was written
before formats were recorded and reads as format 1; a newer format than this reader knows
marks the run damaged (``run.json: format: 3 is newer than this TF Lab understands (1)``).
"""

from __future__ import annotations

import json
import math
import reprlib
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Mapping

from tfcore.messages import render
from tfcore.workspace import file_kind

RUN_JSON = "run.json"
STATUS_JSON = "status.json"
META_JSON = "meta.json"
METRICS_JSONL = "metrics.jsonl"

QUEUED, RUNNING, STOPPING = "queued", "running", "stopping"
FINISHED, FAILED, STOPPED, INTERRUPTED = "finished", "failed", "stopped", "interrupted"
DAMAGED = "damaged"      # reader-side only: status.json has no usable state
STATES = (QUEUED, RUNNING, STOPPING, FINISHED, FAILED, STOPPED, INTERRUPTED)
SPLITS = ("train", "val", "test")
RUN_FORMAT = 1
"""The ``run.json`` format this TF Lab writes and reads (missing: written before formats were
recorded, read as 1)."""

MAX_INT = 2 ** 53            # integers beyond this do not survive a float (charts, tables)
MAX_PID = 2 ** 22            # Linux's pid_max ceiling
MAX_TIME = 1e11              # seconds since 1970: the year 5138
MAX_SECONDS = 1e9            # ~31 years of training
MAX_TEXT = 200               # names, states, kinds
MAX_LONG_TEXT = 1_000_000    # messages and tracebacks
VALUE_CHARS = 60             # how much of a bad value a message quotes
MAX_JSON_FILE = 16 * 2**20   # run.json, status.json, meta.json: small files, read whole


@dataclass(frozen=True)
class RunProblem:
    """One located problem of a run file: which file (and line), which field, the bad value
    (quoted, shortened), why, and the limit it broke.

    ``key`` and ``params`` let a page translate it; ``str()`` is the English message, rendered
    from the engine's catalog (``runs.problem.*`` in ``tfcore/locales``).
    """

    file: str
    field: str
    reason: str
    value: str = ""
    limit: str = ""
    line: int | None = None

    @property
    def where(self) -> str:
        place = f"{self.file}:{self.line}" if self.line is not None else self.file
        return f"{place}: {self.field}" if self.field else place

    @property
    def key(self) -> str:
        """``runs.problem.<reason>``; a wrong type names its kind:
        ``runs.problem.type.<kind>``, a file that is not a regular one what it is:
        ``runs.problem.special.<fifo|device|socket|folder|outside|other>``."""
        if self.reason in ("type", "special"):
            return f"runs.problem.{self.reason}.{self.limit}"
        return f"runs.problem.{self.reason}"

    @property
    def params(self) -> dict[str, str]:
        return {"where": self.where, "value": self.value, "limit": self.limit}

    def text(self, lang: str = "en") -> str:
        """The message in ``lang`` (the CLI's ``TFLAB_LANG``)."""
        return render(self.key, self.params, lang) or f"{self.where}: {self.value} ({self.key})"

    def __str__(self) -> str:
        return self.text()


# Each reason's text is the catalog's ``runs.problem.<reason>`` (a type: ``.type.<kind>``).
REASONS = ("missing", "type", "low", "high", "long", "choice", "json", "json_at", "json_col",
           "deep", "binary", "unreadable", "not_object", "skipped", "newer", "special",
           "file_big", "line_big")


_SHORT = reprlib.Repr()
_SHORT.maxlevel, _SHORT.maxdict, _SHORT.maxlist, _SHORT.maxtuple = 3, 4, 6, 6
_SHORT.maxstring, _SHORT.maxlong, _SHORT.maxother = VALUE_CHARS, 40, VALUE_CHARS


def quote(value: Any) -> str:
    """A short ``repr`` of a bad value for a message."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 10 ** 30:
        return f"{'-' if value < 0 else ''}<{len(str(abs(value)))}-digit integer>"
    text = _SHORT.repr(value)          # never builds the repr of a huge value
    return text if len(text) <= VALUE_CHARS else text[:VALUE_CHARS - 3] + "..."


# ---------------------------------------------------------------------------- kinds
def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    """An int or float that fits a float (NaN and infinity included: writers may log them)."""
    if isinstance(value, float):
        return True
    if not _is_int(value):
        return False
    try:
        float(value)
    except OverflowError:
        return False
    return True


def _is_finite(value: Any) -> bool:
    return _is_number(value) and math.isfinite(float(value))


def _is_time_text(value: Any) -> bool:
    """An ISO 8601 time between 1970 and :data:`MAX_TIME` (naive times count as UTC), so
    every reader can turn it into seconds and back into a date."""
    if not isinstance(value, str) or len(value) > 64:
        return False
    try:
        moment = datetime.fromisoformat(value)
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=timezone.utc)
        return 0 <= moment.timestamp() <= MAX_TIME
    except (ValueError, OverflowError):
        return False


def _is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, (str, bool)) or _is_number(value)


# kind -> its check (a message names the kind: ``runs.problem.type.<kind>``)
KINDS: Mapping[str, Callable[[Any], bool]] = {
    "int": _is_int,
    "number": _is_finite,
    "string": lambda v: isinstance(v, str),
    "bool": lambda v: isinstance(v, bool),
    "time": _is_time_text,
    "object": lambda v: isinstance(v, dict),
    "strings": lambda v: isinstance(v, list) and all(isinstance(i, str) for i in v),
    "names": lambda v: isinstance(v, list) and all(isinstance(i, str) and len(i) <= MAX_TEXT
                                                   for i in v),
    "metrics": lambda v: isinstance(v, dict) and all(x is None or _is_number(x)
                                                     for x in v.values()),
    "series": lambda v: isinstance(v, dict) and all(
        isinstance(x, list) and all(_is_number(i) for i in x) for x in v.values()),
    "scalars": lambda v: isinstance(v, dict) and all(_is_scalar(x) for x in v.values()),
    "metric": lambda v: v is None or _is_number(v),
}


@dataclass(frozen=True)
class Field:
    """What one field of a run file may hold. ``name`` may be dotted (``training.seed``)."""

    name: str
    kind: str
    required: bool = False
    nullable: bool = True
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()
    max_len: int | None = None
    above: str = "high"      # the reason of a value above ``high`` ("newer": a format)

    def check(self, value: Any) -> tuple[str, str] | None:
        """``None`` when ``value`` fits, else (reason, limit)."""
        if value is None:
            return None if self.nullable else ("type", self.kind)
        if not KINDS[self.kind](value):
            return "type", self.kind
        ordered = isinstance(value, (int, float)) and not isinstance(value, bool)
        if self.low is not None and ordered and value < self.low:
            return "low", _num(self.low)
        if self.high is not None and ordered and value > self.high:
            return self.above, _num(self.high)
        if self.max_len is not None and len(value) > self.max_len:
            return "long", str(self.max_len)
        if self.choices and value not in self.choices:
            return "choice", ", ".join(self.choices)
        return None


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def _count(name: str, low: int = 0, high: int = MAX_INT, **kw: Any) -> Field:
    return Field(name, "int", low=low, high=high, **kw)


def _seconds(name: str, high: float = MAX_SECONDS, **kw: Any) -> Field:
    return Field(name, "number", low=0, high=high, **kw)


def _text(name: str, max_len: int = MAX_TEXT, **kw: Any) -> Field:
    return Field(name, "string", max_len=max_len, **kw)


STATUS_FIELDS = (
    Field("state", "string", required=True, nullable=False, choices=STATES),
    _count("step", required=True, nullable=False), _count("epoch", nullable=False),
    _seconds("heartbeat", high=MAX_TIME), Field("updated", "time"),
    _count("pid", low=1, high=MAX_PID), _text("message", MAX_LONG_TEXT),
    _text("traceback", MAX_LONG_TEXT), _seconds("queued_at", high=MAX_TIME),
    _count("queue_position", low=1), _seconds("launched", high=MAX_TIME),
    _count("replicas", low=1, high=1_000_000), _text("strategy"),
    Field("started", "time"), Field("ended", "time"), _count("total_steps"),
    _count("steps_per_epoch", low=1), _count("resumed_from"),
    Field("notes", "strings"), _count("batch_size", low=1),
    _count("per_replica_batch", low=1), _count("epochs"),
    _seconds("samples_per_sec", high=1e15), _seconds("eta_seconds"),
    _seconds("elapsed"), _seconds("wall_seconds"), Field("last", "metrics"),
    Field("last_val", "metrics"), Field("test_metrics", "metrics"),
    Field("parameters", "series"), Field("checkpoints", "strings"), _text("error_key"),
    Field("error_params", "scalars"), _count("resumes"), _text("phase"),
    _count("phase_checkpoint"),
)

RUN_FIELDS = (
    Field("created", "time", required=True, nullable=False), _text("name"),
    Field("format", "int", nullable=False, low=1, high=RUN_FORMAT, above="newer"),
    Field("spec", "object"), Field("dataset", "object"), Field("training", "object"),
    Field("device", "object"), Field("versions", "object"), _text("resume_of"),
    Field("initial_weights", "string", max_len=4096), _text("spec.name"),
    _text("dataset.name"), _text("device.kind"),
    Field("training.seed", "int", low=-MAX_INT, high=MAX_INT),
)

META_FIELDS = (
    _text("name", 120), Field("tags", "names", max_len=1000), Field("updated", "time"),
)

# metrics.jsonl: these fields, and every other field is a metric value (a number or null)
METRICS_FIELDS = (
    _count("step", required=True, nullable=False), _count("epoch"),
    _seconds("time", high=MAX_TIME), _seconds("elapsed"),
    Field("split", "string", choices=SPLITS),
    _seconds("samples_per_sec", high=1e15),
)


# ---------------------------------------------------------------------------- checking
def _lookup(data: Mapping[str, Any], dotted: str) -> tuple[bool, Any]:
    node: Any = data
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            return False, None
        node = node[part]
    return True, node


def _drop(data: dict, dotted: str) -> None:
    *parents, last = dotted.split(".")
    node = data
    for part in parents:
        node[part] = dict(node[part])        # copy on write: the caller's dict stays intact
        node = node[part]
    node.pop(last, None)


def check_fields(data: Mapping[str, Any], fields: tuple[Field, ...], file: str,
                 line: int | None = None) -> tuple[dict, list[RunProblem]]:
    """A copy of ``data`` without the fields that break their schema, and the problems."""
    clean = dict(data)
    problems: list[RunProblem] = []
    for spec in fields:
        found, value = _lookup(clean, spec.name)
        if not found:
            if spec.required:
                problems.append(RunProblem(file, spec.name, "missing", line=line))
            continue
        broken = spec.check(value)
        if broken:
            problems.append(RunProblem(file, spec.name, broken[0], quote(value), broken[1],
                                       line))
            _drop(clean, spec.name)
    return clean, problems


def load_json_file(path: Path) -> tuple[Any, RunProblem | None]:
    """The JSON value of a run file, or ``None`` and the problem (missing, unreadable,
    binary, not JSON)."""
    name = Path(path).name
    kind = file_kind(path, Path(path).parent)     # a link may not leave the run folder
    if kind not in (None, "missing"):          # a FIFO would block the read forever
        return None, RunProblem(name, "", "special", limit=kind)
    size = Path(path).stat().st_size if kind is None else 0
    if size > MAX_JSON_FILE:
        return None, RunProblem(name, "", "file_big", f"{size:,}", f"{MAX_JSON_FILE:,}")
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        return None, RunProblem(name, "", "missing")
    except OSError as exc:
        return None, RunProblem(name, "", "unreadable", limit=type(exc).__name__)
    try:
        return json.loads(raw.decode("utf-8")), None
    except UnicodeDecodeError:
        return None, RunProblem(name, "", "binary")
    except json.JSONDecodeError as exc:
        return None, RunProblem(name, "", "json_at", str(exc.lineno), str(exc.colno))
    except (ValueError, RecursionError) as exc:     # a 5,000-digit number; deep nesting
        return None, json_problem(name, exc)


def json_problem(file: str, exc: BaseException, line: int | None = None) -> RunProblem:
    """The problem of a JSON text Python could not parse for another reason than its syntax:
    nested too deeply, or Python's own message (a 5,000-digit number), shortened."""
    if isinstance(exc, RecursionError):
        return RunProblem(file, "", "deep", line=line)
    return RunProblem(file, "", "json", limit=str(exc)[:80], line=line)


def parse_json_line(raw: bytes, file: str, line: int) -> tuple[Any, RunProblem | None]:
    """One line of a JSON-lines file a run wrote: its value, or the located reason it is
    not JSON (binary bytes, a syntax error with its column, a 5,000-digit number, deep
    nesting). The caller checks the value's fields."""
    try:
        return json.loads(raw), None
    except UnicodeDecodeError:
        return None, RunProblem(file, "", "binary", line=line)
    except json.JSONDecodeError as exc:
        return None, RunProblem(file, "", "json_col", limit=str(exc.colno), line=line)
    except (ValueError, RecursionError) as exc:
        return None, json_problem(file, exc, line)


def check_object(value: Any, fields: tuple[Field, ...], file: str
                 ) -> tuple[dict | None, tuple[RunProblem, ...]]:
    """Check a parsed file against its fields; ``None`` when it is not an object."""
    if not isinstance(value, dict):
        return None, (RunProblem(file, "", "not_object", quote(value)),)
    clean, problems = check_fields(value, fields, file)
    return clean, tuple(problems)


def check_metrics_line(value: Any, line: int | None) -> RunProblem | None:
    """``None`` when one parsed ``metrics.jsonl`` line is a valid record, else its first
    problem (a record is kept or skipped whole)."""
    if not isinstance(value, dict):
        return RunProblem(METRICS_JSONL, "", "not_object", quote(value), line=line)
    if "step" not in value:
        return RunProblem(METRICS_JSONL, "step", "missing", line=line)
    for key, item in value.items():           # one pass: this runs for every logged line
        spec = _LINE_FIELDS.get(key)
        if spec is None:
            if type(item) is float or item is None or _is_number(item):
                continue
            return RunProblem(METRICS_JSONL, key, "type", quote(item), "metric", line)
        broken = spec.check(item)
        if broken:
            return RunProblem(METRICS_JSONL, key, broken[0], quote(item), broken[1], line)
    return None


_LINE_FIELDS = {spec.name: spec for spec in METRICS_FIELDS}
