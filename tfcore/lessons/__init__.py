"""Lessons: a teacher's prepared sequence of page states, with notes and prompts in English
and Chinese; the shipped lessons and the workspace's own, read and checked with located
problems; steps captured from a page's address and edited in the workspace (authoring);
the teacher's lead and the students' presence when a class follows (follow).

Code outside this package imports only the names below (``__all__``).
"""

from __future__ import annotations

from tfcore.lessons.authoring import (
    Capture,
    add_to_lesson,
    append_step,
    capture_step,
    change_lesson,
    check_name,
    copy_shipped,
    delete_lesson,
    delete_step,
    duplicate_step,
    edit_step,
    export_lesson,
    import_lesson,
    lesson_exists,
    move_step,
    own_lesson,
    reorder_steps,
    retitle,
    save_lesson,
    suggest_name,
)
from tfcore.lessons.follow import (
    HEARTBEAT_EVERY,
    PRESENCE_TTL,
    Lead,
    LeadRead,
    end_lead,
    heartbeat,
    leave,
    read_lead,
    set_lead,
    step_counts,
    valid_token,
)
from tfcore.lessons.format import (
    LESSON_FORMAT,
    Lesson,
    LessonProblem,
    LessonStep,
    parse_lesson,
    query_text,
)
from tfcore.lessons.pairs import PAIR_TTL, pair_step, prune_pairs, publish_pair
from tfcore.lessons.pages import PAGES, RESERVED_PARAMS, PageInfo
from tfcore.lessons.signins import SIGNIN_TTL, prune_signins, sign_in, sign_out, signed_in
from tfcore.lessons.store import (
    SHIPPED_DIR,
    LessonEntry,
    find_lesson,
    lessons_dir,
    list_lessons,
    read_lesson,
)

__all__ = [
    "SIGNIN_TTL",
    "prune_signins",
    "sign_in",
    "sign_out",
    "signed_in",
    "PAIR_TTL",
    "pair_step",
    "prune_pairs",
    "publish_pair",
    "Capture",
    "add_to_lesson",
    "append_step",
    "capture_step",
    "change_lesson",
    "check_name",
    "copy_shipped",
    "delete_lesson",
    "delete_step",
    "duplicate_step",
    "edit_step",
    "export_lesson",
    "import_lesson",
    "lesson_exists",
    "move_step",
    "own_lesson",
    "reorder_steps",
    "retitle",
    "save_lesson",
    "suggest_name",
    "HEARTBEAT_EVERY",
    "Lead",
    "LeadRead",
    "PRESENCE_TTL",
    "end_lead",
    "heartbeat",
    "leave",
    "read_lead",
    "set_lead",
    "step_counts",
    "valid_token",
    "LESSON_FORMAT",
    "PAGES",
    "RESERVED_PARAMS",
    "SHIPPED_DIR",
    "Lesson",
    "LessonEntry",
    "LessonProblem",
    "LessonStep",
    "PageInfo",
    "find_lesson",
    "lessons_dir",
    "list_lessons",
    "parse_lesson",
    "query_text",
    "read_lesson",
]
