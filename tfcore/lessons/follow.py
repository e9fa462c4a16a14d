"""Following the teacher: the teacher's lead and the students' presence, kept in the
workspace so that every server process serving the class sees the same (issue 26, item 5).

* **The lead** (``<workspace>/classroom/lead.json``, written atomically under a lock): the
  lesson and step the teacher is on, the run the teacher's page shows (if any), a revision
  counter that grows with every change, the time of the last change and the leading
  session's random token. Only the teacher may lead (the caller says whether this session
  is the teacher: the shared-server rules live in the interface).
* **Presence** (``<workspace>/classroom/presence/<token>.json``, one small file per browser
  session that follows a lesson, written atomically): an anonymous random token -> lesson,
  step, time. The teacher sees how many sessions are on each step: the records seen within
  the last :data:`PRESENCE_TTL` seconds, counted per step; no names. Records older than
  :data:`PRUNE_AFTER` are deleted when counted, so the folder does not grow.

Every read checks what it reads: a damaged lead file is reported (:attr:`LeadRead.problem`)
and treated as no lead; a damaged presence record is skipped (and pruned once old). Reads
are cheap: a file unchanged since its last read (same inode, size and modification time)
is not read again.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import time
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterator, Mapping

from tfcore.errors import LessonError
from tfcore.jsonio import atomic_write_json
from tfcore.lessons.format import NAME
from tfcore.workspace import Workspace

CLASSROOM = "classroom"              # under the workspace
LEAD_FILE = "lead.json"
LOCK_FILE = ".lead.lock"
PRESENCE = "presence"
FOLLOW_FORMAT = 1
PRESENCE_TTL = 15.0                  # seconds a heartbeat counts a session on its step
HEARTBEAT_EVERY = 5.0                # seconds between a following session's heartbeats
PRUNE_AFTER = 120.0                  # seconds after which a record's file is deleted
LEAD_TTL = 8 * 3600.0                # a lead untouched this long is over (a closed browser)
MAX_BYTES = 4096                     # a lead or presence file is a few hundred bytes
MAX_RECORDS = 2000                   # presence files looked at per count
TOKEN = re.compile(r"^[A-Za-z0-9_-]{8,64}$")
RUN_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
MAX_STEP = 10_000


@dataclass(frozen=True)
class Lead:
    """The teacher's position: ``lesson`` at ``step`` (from 1), the run the teacher's page
    shows (``run_id``, None without one), ``revision`` (grows with every change),
    ``updated`` (seconds since the epoch) and the leading session's token."""

    lesson: str
    step: int
    run_id: str | None
    revision: int
    updated: float
    leader: str

    def as_json(self) -> dict[str, Any]:
        return {"format": FOLLOW_FORMAT, "lesson": self.lesson, "step": self.step,
                "run_id": self.run_id, "revision": self.revision, "updated": self.updated,
                "leader": self.leader}


@dataclass(frozen=True)
class LeadRead:
    """What the lead file holds: the lead (None without one, or when the file is damaged
    or the lead is over) and the damaged file's problem (``key`` of the engine's catalog
    and its ``params``), None when the file is sound or absent."""

    lead: Lead | None
    problem: tuple[str, Mapping[str, str]] | None = None


def prune_older(folder: Path, ttl: float, now: float | None = None) -> int:
    """Delete the files of ``folder`` untouched for ``ttl`` seconds (judged by their age,
    so a damaged one goes too; at most :data:`MAX_RECORDS` looked at); returns how many
    went."""
    now = time.time() if now is None else now
    gone = 0
    try:
        entries = os.scandir(folder)
    except OSError:
        return 0
    with entries:
        for count, entry in enumerate(entries):
            if count >= MAX_RECORDS:
                break
            try:
                if now - entry.stat(follow_symlinks=False).st_mtime > ttl:
                    os.unlink(entry.path)
                    gone += 1
            except OSError:
                continue
    return gone


def classroom_dir(workspace: Workspace) -> Path:
    """The workspace's classroom folder (the lead and the presence records)."""
    return workspace.root / CLASSROOM


def lead_path(workspace: Workspace) -> Path:
    return classroom_dir(workspace) / LEAD_FILE


def presence_dir(workspace: Workspace) -> Path:
    return classroom_dir(workspace) / PRESENCE


# ---------------------------------------------------------------- checked reads


def _stamp(path: Path) -> tuple[int, int, int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_ino, stat.st_mtime_ns, stat.st_size


def _load(path: Path) -> tuple[Any, str | None]:
    """The JSON value of a small file, or None and why not (a short reason)."""
    try:
        raw = path.read_bytes()[:MAX_BYTES + 1]
    except OSError as exc:
        return None, f"unreadable ({type(exc).__name__})"
    if len(raw) > MAX_BYTES:
        return None, f"larger than {MAX_BYTES} bytes"
    try:
        return json.loads(raw.decode("utf-8")), None
    except UnicodeDecodeError:
        return None, "not UTF-8 text"
    except (ValueError, RecursionError) as exc:
        return None, f"not valid JSON ({str(exc)[:60]})"


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_time(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) \
        and 0 <= value < 1e11


def parse_lead(data: Any) -> tuple[Lead | None, str | None]:
    """A lead from its JSON value, or None and the first field that is wrong."""
    if not isinstance(data, dict):
        return None, "not a JSON object"
    known = {"format", "lesson", "step", "run_id", "revision", "updated", "leader"}
    unknown = sorted(set(data) - known)
    if unknown:
        return None, f"{unknown[0]}: not a field of the lead"
    if data.get("format") != FOLLOW_FORMAT:
        return None, f"format: {data.get('format')!r} is not {FOLLOW_FORMAT}"
    lesson, step, run_id = data.get("lesson"), data.get("step"), data.get("run_id")
    if not isinstance(lesson, str) or not NAME.match(lesson):
        return None, f"lesson: {str(lesson)[:40]!r} is not a lesson name"
    if not _is_int(step) or not 1 <= step <= MAX_STEP:
        return None, f"step: {str(step)[:20]!r} is not a step number"
    if run_id is not None and (not isinstance(run_id, str) or not RUN_ID.match(run_id)):
        return None, f"run_id: {str(run_id)[:40]!r} is not a run id"
    revision, updated, leader = data.get("revision"), data.get("updated"), data.get("leader")
    if not _is_int(revision) or revision < 1:
        return None, f"revision: {str(revision)[:20]!r} is not a positive integer"
    if not _is_time(updated):
        return None, f"updated: {str(updated)[:30]!r} is not a time"
    if not isinstance(leader, str) or not TOKEN.match(leader):
        return None, "leader: is not a session token"
    return Lead(lesson, step, run_id, revision, float(updated), leader), None


@lru_cache(maxsize=64)
def _read_lead(path: Path, stamp: tuple[int, int, int]) -> tuple[Lead | None, str | None]:
    data, reason = _load(path)
    if reason is not None:
        return None, reason
    return parse_lead(data)


def read_lead(workspace: Workspace, now: float | None = None) -> LeadRead:
    """The teacher's lead (cheap: one ``stat`` when the file has not changed).

    No file, a lead untouched for :data:`LEAD_TTL` or a damaged file mean no lead; a
    damaged file's problem is reported in :attr:`LeadRead.problem` (key
    ``lessons.follow.damaged``: ``file`` and ``reason``)."""
    path = lead_path(workspace)
    stamp = _stamp(path)
    if stamp is None:
        return LeadRead(None)
    lead, reason = _read_lead(path, stamp)
    if reason is not None:
        return LeadRead(None, ("lessons.follow.damaged",
                               {"file": f"{CLASSROOM}/{LEAD_FILE}", "reason": reason}))
    now = time.time() if now is None else now
    if lead is not None and now - lead.updated > LEAD_TTL:
        return LeadRead(None)
    return LeadRead(lead)


# ---------------------------------------------------------------- writes


@contextmanager
def _locked(workspace: Workspace) -> Iterator[None]:
    """The lead's lock: one change at a time, across processes."""
    folder = classroom_dir(workspace)
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / LOCK_FILE, "a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def valid_token(token: object) -> bool:
    """Whether ``token`` (what a browser sent; anything) may name a session or a browser."""
    return isinstance(token, str) and TOKEN.match(token) is not None


def _check_token(token: str) -> str:
    if not valid_token(token):
        raise LessonError(key="lessons.err.follow_token")
    return token


def set_lead(workspace: Workspace, lesson: str, step: int, *, leader: str, teacher: bool,
             run_id: str | None = None, now: float | None = None) -> Lead:
    """Lead the class: the teacher is on ``step`` of ``lesson`` (showing ``run_id``).

    Writes the lead with the next revision when anything changed (a new leader takes over
    an earlier lead); an unchanged position writes nothing and returns the lead as it is.

    Raises:
        LessonError: this session is not the teacher (``lessons.err.not_teacher``), or a
            value is not a lesson name, a step number, a run id or a session token.
    """
    if not teacher:
        raise LessonError(key="lessons.err.not_teacher")
    _check_token(leader)
    if not isinstance(lesson, str) or not NAME.match(lesson):
        raise LessonError(key="lessons.err.name", params={"name": repr(str(lesson)[:64])})
    if not _is_int(step) or not 1 <= step <= MAX_STEP:
        raise LessonError(key="lessons.err.follow_step", params={"step": str(step)[:20]})
    if run_id is not None and (not isinstance(run_id, str) or not RUN_ID.match(run_id)):
        run_id = None
    now = time.time() if now is None else now
    with _locked(workspace):
        _read_lead.cache_clear()          # another process may have written in the same tick
        before = read_lead(workspace, now).lead
        if before is not None and (before.lesson, before.step, before.run_id,
                                   before.leader) == (lesson, step, run_id, leader):
            return before
        revision = (before.revision if before is not None else 0) + 1
        if before is None:                # a damaged or ended lead: continue its numbers
            revision = max(revision, _last_revision(workspace) + 1)
        lead = Lead(lesson, step, run_id, revision, now, leader)
        atomic_write_json(lead_path(workspace), lead.as_json())
        _read_lead.cache_clear()
    return lead


def _last_revision(workspace: Workspace) -> int:
    """The revision of an ended or stale lead file, 0 when there is none readable: a new
    lead counts on from it, so a follower never mistakes a new lead for one it saw."""
    data, reason = _load(lead_path(workspace))
    if reason is None and isinstance(data, dict) and _is_int(data.get("revision")):
        return max(0, data["revision"])
    return 0


def end_lead(workspace: Workspace, *, leader: str, teacher: bool) -> bool:
    """Stop leading: the lead file goes (only the session that leads, or a teacher, may end
    it). Returns whether a lead ended.

    Raises:
        LessonError: this session is not the teacher (``lessons.err.not_teacher``).
    """
    if not teacher:
        raise LessonError(key="lessons.err.not_teacher")
    with _locked(workspace):
        path = lead_path(workspace)
        if not path.exists():
            return False
        path.unlink(missing_ok=True)
        _read_lead.cache_clear()
    return True


# ---------------------------------------------------------------- presence


def heartbeat(workspace: Workspace, token: str, lesson: str, step: int,
              now: float | None = None) -> None:
    """Session ``token`` (a random, anonymous id) is on ``step`` of ``lesson`` now.

    Raises:
        LessonError: ``token`` is not a session token.
    """
    _check_token(token)
    if not isinstance(lesson, str) or not NAME.match(lesson) or not _is_int(step):
        return
    now = time.time() if now is None else now
    atomic_write_json(presence_dir(workspace) / f"{token}.json",
                      {"lesson": lesson, "step": step, "time": now}, sync=False)


def leave(workspace: Workspace, token: str) -> None:
    """Session ``token`` follows no more: its record goes."""
    if isinstance(token, str) and TOKEN.match(token):
        (presence_dir(workspace) / f"{token}.json").unlink(missing_ok=True)


def parse_presence(data: Any) -> tuple[str, int, float] | None:
    """(lesson, step, time) of a presence record, None when it is not one."""
    if not isinstance(data, dict) or set(data) != {"lesson", "step", "time"}:
        return None
    lesson, step, when = data["lesson"], data["step"], data["time"]
    if not isinstance(lesson, str) or not NAME.match(lesson):
        return None
    if not _is_int(step) or not 1 <= step <= MAX_STEP or not _is_time(when):
        return None
    return lesson, step, float(when)


@lru_cache(maxsize=MAX_RECORDS)
def _read_presence(path: Path, stamp: tuple[int, int, int]) -> tuple[str, int, float] | None:
    data, reason = _load(path)
    return None if reason is not None else parse_presence(data)


def step_counts(workspace: Workspace, lesson: str, now: float | None = None,
                ttl: float = PRESENCE_TTL) -> dict[int, int]:
    """How many sessions are on each step of ``lesson``: step -> count of the records seen
    within the last ``ttl`` seconds (steps without any are left out). Deletes records
    (sound or damaged) not renewed for :data:`PRUNE_AFTER` seconds."""
    folder = presence_dir(workspace)
    now = time.time() if now is None else now
    counts: dict[int, int] = {}
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return counts
    for entry in entries[:MAX_RECORDS * 2]:
        if not entry.name.endswith(".json") or not TOKEN.match(entry.name[:-5]):
            continue
        try:
            stat = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        path = Path(entry.path)
        record = _read_presence(path, (stat.st_ino, stat.st_mtime_ns, stat.st_size))
        written = stat.st_mtime if record is None else record[2]
        if now - written > PRUNE_AFTER:       # not renewed for long: its session is gone
            path.unlink(missing_ok=True)
            continue
        if record is None:                    # damaged: skipped until it is pruned
            continue
        if record[0] == lesson and now - record[2] <= ttl:
            counts[record[1]] = counts.get(record[1], 0) + 1
    return dict(sorted(counts.items()))
