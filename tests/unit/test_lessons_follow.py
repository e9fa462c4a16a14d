"""Issue 26, item 5, the engine: the teacher's lead (written, read back, its revision, only
the teacher), the students' presence (heartbeats counted per step within their time, expired
ones pruned), and damaged files reported and ignored."""

from __future__ import annotations

import json
import os
import time

import pytest

from tfcore.errors import LessonError
from tfcore.lessons import (PRESENCE_TTL, end_lead, heartbeat, leave, read_lead, set_lead,
                            step_counts)
from tfcore.lessons.follow import PRUNE_AFTER, lead_path, presence_dir
from tfcore.workspace import Workspace

T0 = float(int(time.time()))
TEACHER, OTHER = "teacher-token-1", "teacher-token-2"


@pytest.fixture
def ws(tmp_path) -> Workspace:
    return Workspace(tmp_path / "ws")


def test_a_lead_is_written_and_read_back_with_growing_revisions(ws) -> None:
    assert read_lead(ws).lead is None and read_lead(ws).problem is None
    first = set_lead(ws, "handbook", 1, leader=TEACHER, teacher=True, now=T0)
    assert (first.lesson, first.step, first.run_id, first.revision) == ("handbook", 1, None, 1)
    assert read_lead(ws, T0 + 1).lead == first
    second = set_lead(ws, "handbook", 2, leader=TEACHER, teacher=True, now=T0 + 5)
    assert second.revision == 2 and read_lead(ws, T0 + 6).lead.step == 2
    same = set_lead(ws, "handbook", 2, leader=TEACHER, teacher=True, now=T0 + 9)
    assert same == second                     # nothing changed: nothing written
    run = set_lead(ws, "handbook", 2, leader=TEACHER, teacher=True, run_id="r-1", now=T0 + 10)
    assert (run.revision, run.run_id) == (3, "r-1")
    data = json.loads(lead_path(ws).read_text())
    assert data == {"format": 1, "lesson": "handbook", "step": 2, "run_id": "r-1",
                    "revision": 3, "updated": T0 + 10, "leader": TEACHER}
    assert not [p for p in lead_path(ws).parent.iterdir() if p.name.endswith(".tmp")]


def test_only_the_teacher_may_lead_or_end(ws) -> None:
    with pytest.raises(LessonError) as caught:
        set_lead(ws, "handbook", 1, leader=TEACHER, teacher=False, now=T0)
    assert caught.value.key == "lessons.err.not_teacher"
    assert not lead_path(ws).exists()
    set_lead(ws, "handbook", 1, leader=TEACHER, teacher=True, now=T0)
    with pytest.raises(LessonError):
        end_lead(ws, leader=TEACHER, teacher=False)
    assert read_lead(ws, T0).lead is not None


def test_bad_values_are_refused(ws) -> None:
    for kwargs in ({"lesson": "Not A Name", "step": 1}, {"lesson": "x", "step": 0},
                   {"lesson": "x", "step": True}):
        with pytest.raises(LessonError):
            set_lead(ws, leader=TEACHER, teacher=True, now=T0, **kwargs)
    with pytest.raises(LessonError):
        set_lead(ws, "x", 1, leader="short", teacher=True, now=T0)
    assert not lead_path(ws).exists()


def test_a_new_leader_takes_over_and_an_ended_lead_counts_on(ws) -> None:
    set_lead(ws, "handbook", 3, leader=TEACHER, teacher=True, now=T0)
    taken = set_lead(ws, "handbook", 3, leader=OTHER, teacher=True, now=T0 + 1)
    assert (taken.leader, taken.revision) == (OTHER, 2)
    assert end_lead(ws, leader=OTHER, teacher=True) is True
    assert read_lead(ws).lead is None and end_lead(ws, leader=OTHER, teacher=True) is False
    again = set_lead(ws, "handbook", 1, leader=TEACHER, teacher=True, now=T0 + 2)
    assert again.revision == 1     # the file went with the lead: a follower's seen 2 != 1


def test_a_stale_lead_is_over(ws) -> None:
    set_lead(ws, "handbook", 1, leader=TEACHER, teacher=True, now=T0)
    assert read_lead(ws, T0 + 7 * 3600).lead is not None
    assert read_lead(ws, T0 + 9 * 3600).lead is None


@pytest.mark.parametrize("content, reason", [
    (b"{not json", "not valid JSON"),
    (b"\xff\xfe", "not UTF-8"),
    (b"[1, 2]", "not a JSON object"),
    (b"x" * 5000, "larger than"),
    (json.dumps({"format": 2}).encode(), "format"),
    (json.dumps({"format": 1, "lesson": "handbook", "step": "2", "run_id": None,
                 "revision": 1, "updated": T0, "leader": TEACHER}).encode(), "step"),
    (json.dumps({"format": 1, "lesson": "handbook", "step": 2, "run_id": "../x",
                 "revision": 1, "updated": T0, "leader": TEACHER}).encode(), "run_id"),
    (json.dumps({"format": 1, "lesson": "handbook", "step": 2, "run_id": None,
                 "revision": 0, "updated": T0, "leader": TEACHER}).encode(), "revision"),
    (json.dumps({"format": 1, "lesson": "handbook", "step": 2, "run_id": None,
                 "revision": 1, "updated": T0, "leader": TEACHER, "name": "Ann"}).encode(),
     "name"),
])
def test_a_damaged_lead_is_reported_and_ignored(ws, content: bytes, reason: str) -> None:
    lead_path(ws).parent.mkdir(parents=True)
    lead_path(ws).write_bytes(content)
    read = read_lead(ws, T0)
    assert read.lead is None
    key, params = read.problem
    assert key == "lessons.follow.damaged" and params["file"] == "classroom/lead.json"
    assert reason in params["reason"]
    lead = set_lead(ws, "handbook", 1, leader=TEACHER, teacher=True, now=T0)  # repaired
    assert read_lead(ws, T0).lead == lead and read_lead(ws, T0).problem is None


def test_heartbeats_count_per_step_within_their_time(ws) -> None:
    for i, step in enumerate((1, 2, 2, 3)):
        heartbeat(ws, f"student-{i:04d}", "handbook", step, now=T0)
    heartbeat(ws, "student-9999", "builders_guide", 1, now=T0)
    assert step_counts(ws, "handbook", now=T0 + 1) == {1: 1, 2: 2, 3: 1}
    heartbeat(ws, "student-0000", "handbook", 2, now=T0 + 10)       # moved on
    assert step_counts(ws, "handbook", now=T0 + 11) == {2: 3, 3: 1}
    # past the time a heartbeat counts: only the renewed one is left
    assert step_counts(ws, "handbook", now=T0 + PRESENCE_TTL + 2) == {2: 1}
    leave(ws, "student-0000")
    assert step_counts(ws, "handbook", now=T0 + 11) == {2: 2, 3: 1}
    with pytest.raises(LessonError):
        heartbeat(ws, "../../etc", "handbook", 1, now=T0)


def test_expired_and_damaged_records_are_pruned(ws) -> None:
    heartbeat(ws, "student-0001", "handbook", 1, now=T0)
    stale = T0 - PRUNE_AFTER - 10
    old = presence_dir(ws) / "student-0002.json"           # a session gone long ago
    old.write_text(json.dumps({"lesson": "handbook", "step": 1, "time": stale}))
    broken = presence_dir(ws) / "student-0003.json"
    broken.write_text("{broken")
    extra = presence_dir(ws) / "student-0004.json"          # a field too many: damaged
    extra.write_text(json.dumps({"lesson": "handbook", "step": 1, "time": T0, "name": "Ann"}))
    os.utime(extra, (T0, T0))                 # a damaged record ages by its file's time
    (presence_dir(ws) / "notes.txt").write_text("left alone")
    os.utime(broken, (stale, stale))
    assert step_counts(ws, "handbook", now=T0 + 1) == {1: 1}   # damaged ones skipped
    names = sorted(p.name for p in presence_dir(ws).iterdir())
    assert names == ["notes.txt", "student-0001.json", "student-0004.json"]
    assert step_counts(ws, "handbook", now=T0 + PRUNE_AFTER + 1) == {}
    assert sorted(p.name for p in presence_dir(ws).iterdir()) == ["notes.txt"]


def test_counts_without_a_folder_are_empty(ws) -> None:
    assert step_counts(ws, "handbook") == {}
