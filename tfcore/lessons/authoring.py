"""Authoring lessons by doing: a page's address captured as a step, the steps of a
workspace lesson reordered, edited, duplicated and deleted, a lesson exported and imported.

Every change goes through :func:`save_lesson`: the lesson is checked by the same
:func:`~tfcore.lessons.format.parse_lesson` that reads files, then written atomically. A
change with a problem writes nothing and raises a :class:`~tfcore.errors.LessonError` whose
``details`` are the located problems. Shipped lessons are read-only: copy one into the
workspace (:func:`copy_shipped`) to change it.

The step operations (:func:`move_step`, :func:`reorder_steps`, :func:`duplicate_step`,
:func:`delete_step`, :func:`edit_step`, :func:`append_step`, :func:`retitle`) are pure: a lesson in, a new
lesson out; :func:`change_lesson` reads a workspace lesson, applies one and saves it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Mapping, Sequence

from tfcore.errors import LessonError, WorkspaceError
from tfcore.jsonio import atomic_write_json
from tfcore.lessons.format import (
    MAX_VALUE,
    NAME,
    PARAM,
    Lesson,
    LessonProblem,
    LessonStep,
    parse_lesson,
    parse_step,
)
from tfcore.lessons.pages import PAGES, RESERVED_PARAMS
from tfcore.lessons.store import (
    SHIPPED,
    SHIPPED_DIR,
    WORKSPACE,
    find_lesson,
    forget_reads,
    lessons_dir,
    load_bytes,
    read_lesson,
)
from tfcore.messages import LANGUAGES
from tfcore.workspace import Workspace

APP_PARAMS = (*RESERVED_PARAMS, "pair")
"""Parameters of an address that belong to the app, never to a captured step (its ``tab``
becomes the step's ``tab``)."""
EMPTY = {lang: "" for lang in LANGUAGES}


@dataclass(frozen=True)
class Capture:
    """A page's state captured as a step, and the parameters of its address the step
    leaves out (the page does not read them from a link: a builder's ``draft``, a tab the
    page does not have)."""

    step: LessonStep
    dropped: tuple[str, ...] = ()


def check_name(name: str) -> str:
    """``name`` when it is a lesson name (what a file's stem and ``?lesson=`` hold).

    Raises:
        LessonError: it is not (the message names the field and the value).
    """
    if not isinstance(name, str) or not NAME.match(name):
        raise LessonError(key="lessons.err.name", params={"name": repr(str(name)[:64])})
    return name


def suggest_name(file_name: str) -> str:
    """A lesson name made from an uploaded file's name (``My Lesson.json`` -> ``my_lesson``;
    ``lesson`` when nothing is left)."""
    stem = Path(str(file_name)).name.rsplit(".", 1)[0].lower()
    stem = re.sub(r"[^a-z0-9_-]+", "_", stem).strip("_-")[:64]
    return stem if NAME.match(stem) else "lesson"


def capture_step(page: str, query: Mapping[str, str], title: Mapping[str, str],
                 file: str = "capture") -> Capture:
    """The step that opens ``page`` as its address ``query`` holds it (the parameters
    ``st.query_params`` keeps), titled ``title`` ({lang: text}), with empty notes and
    prompt. The app's own parameters (lesson, step, notes, lang, present, pair) are left
    out; ``tab`` becomes the step's tab; a parameter the page does not read is left out and
    named in ``dropped``.

    Raises:
        LessonError: the page cannot be a step, or a value breaks the format (``details``:
            the located problems).
    """
    info = PAGES.get(page)
    if info is None:
        raise LessonError(key="lessons.err.page", params={"page": str(page)[:80]})
    kept: dict[str, str] = {}
    dropped: list[str] = []
    tab = None
    for name, value in query.items():
        text = str(value)
        if name == "tab":
            if text in info.tabs:
                tab = text
            else:
                dropped.append(name)
        elif name in APP_PARAMS:
            continue
        elif not PARAM.match(str(name)) or len(text) > MAX_VALUE or (
                info.params is not None and name not in info.params):
            dropped.append(str(name)[:40])
        else:
            kept[name] = text
    data = {"page": page, "tab": tab, "query": kept, "title": dict(title),
            "notes": dict(EMPTY), "prompt": dict(EMPTY)}
    step, problems = parse_step(data, file, 1)
    if step is None:
        raise LessonError(key="lessons.err.capture", params={"count": len(problems)},
                          details=list(problems))
    return Capture(step, tuple(sorted(dropped)))


# -- pure operations on a lesson --------------------------------------------------------

def _number(lesson: Lesson, number: int) -> int:
    if not isinstance(number, int) or not 1 <= number <= len(lesson.steps):
        raise LessonError(key="lessons.err.no_step",
                          params={"name": lesson.name, "step": str(number)[:20],
                                  "total": len(lesson.steps)})
    return number - 1


def _steps(lesson: Lesson, steps: Sequence[LessonStep]) -> Lesson:
    return replace(lesson, steps=tuple(steps))


def append_step(lesson: Lesson, step: LessonStep) -> Lesson:
    """The lesson with ``step`` added at its end."""
    return _steps(lesson, [*lesson.steps, step])


def move_step(lesson: Lesson, number: int, to: int) -> Lesson:
    """The lesson with step ``number`` moved to place ``to`` (both from 1)."""
    index, target = _number(lesson, number), _number(lesson, to)
    steps = list(lesson.steps)
    steps.insert(target, steps.pop(index))
    return _steps(lesson, steps)


def reorder_steps(lesson: Lesson, order: Sequence[int]) -> Lesson:
    """The lesson's steps in ``order``: the old step numbers (from 1), each once.

    Raises:
        LessonError: ``order`` is not an order of every step.
    """
    if sorted(order) != list(range(1, len(lesson.steps) + 1)):
        raise LessonError(key="lessons.err.order",
                          params={"name": lesson.name, "total": len(lesson.steps)})
    return _steps(lesson, [lesson.steps[number - 1] for number in order])


def duplicate_step(lesson: Lesson, number: int) -> Lesson:
    """The lesson with a copy of step ``number`` right after it."""
    index = _number(lesson, number)
    steps = list(lesson.steps)
    steps.insert(index + 1, steps[index])
    return _steps(lesson, steps)


def delete_step(lesson: Lesson, number: int) -> Lesson:
    """The lesson without step ``number``.

    Raises:
        LessonError: it is the lesson's only step (delete the lesson instead).
    """
    index = _number(lesson, number)
    if len(lesson.steps) == 1:
        raise LessonError(key="lessons.err.last_step", params={"name": lesson.name})
    return _steps(lesson, [s for i, s in enumerate(lesson.steps) if i != index])


def edit_step(lesson: Lesson, number: int, *, title: Mapping[str, str] | None = None,
              notes: Mapping[str, str] | None = None,
              prompt: Mapping[str, str] | None = None) -> Lesson:
    """The lesson with step ``number``'s texts replaced ({lang: text}; None keeps one).
    Checked when saved."""
    index = _number(lesson, number)
    step = lesson.steps[index]
    changed = replace(step, **{name: dict(value) for name, value in
                               (("title", title), ("notes", notes), ("prompt", prompt))
                               if value is not None})
    steps = list(lesson.steps)
    steps[index] = changed
    return _steps(lesson, steps)


def retitle(lesson: Lesson, title: Mapping[str, str]) -> Lesson:
    """The lesson with a new title ({lang: text}). Checked when saved."""
    return replace(lesson, title=dict(title))


# -- the workspace's files -------------------------------------------------------------

def _path(workspace: Workspace, name: str) -> Path:
    check_name(name)
    path = lessons_dir(workspace) / f"{name}.json"
    try:
        workspace.confine(path)
    except WorkspaceError as exc:
        raise LessonError(key="lessons.err.outside", params={"name": name}) from exc
    return path


def save_lesson(workspace: Workspace, lesson: Lesson) -> Lesson:
    """Check ``lesson`` as a file is checked and write it atomically to
    ``<workspace>/lessons/<name>.json``; the lesson as read back.

    Raises:
        LessonError: it has problems (``details``: located); nothing is written.
    """
    path = _path(workspace, lesson.name)
    data = lesson.to_dict()
    checked, problems = parse_lesson(lesson.name, data)
    if checked is None:
        raise LessonError(key="lessons.err.invalid",
                          params={"name": lesson.name, "count": len(problems)},
                          details=list(problems))
    atomic_write_json(path, data)
    forget_reads()
    return checked


def own_lesson(workspace: Workspace, name: str, shipped: Path = SHIPPED_DIR) -> Lesson:
    """The sound workspace lesson ``name`` (the one a change applies to).

    Raises:
        LessonError: the name is bad, the lesson is shipped (read-only), missing, or its
            file has problems (``details``).
    """
    check_name(name)
    entry = find_lesson(workspace, name, shipped)
    if entry.origin == SHIPPED:
        raise LessonError(key="lessons.err.shipped", params={"name": name})
    if not entry.ok:
        raise LessonError(key="lessons.err.damaged", params={"name": name},
                          details=list(entry.problems))
    return entry.lesson


def change_lesson(workspace: Workspace, name: str, change: Callable[[Lesson], Lesson],
                  shipped: Path = SHIPPED_DIR) -> Lesson:
    """Read the workspace lesson ``name`` as it is now, apply ``change`` (one of the step
    operations) and save it; the saved lesson."""
    return save_lesson(workspace, change(own_lesson(workspace, name, shipped)))


def add_to_lesson(workspace: Workspace, name: str, step: LessonStep,
                  title: Mapping[str, str] | None = None, new: bool = False,
                  shipped: Path = SHIPPED_DIR) -> Lesson:
    """Add ``step`` at the end of the workspace lesson ``name``, or start a new lesson of
    that name (titled ``title``, default its name) with it. With ``new`` the lesson must
    not exist yet.

    Raises:
        LessonError: a bad name (located), a shipped lesson's name (copy it first), a
            damaged lesson, an existing one while ``new``, or a lesson that would break the
            format.
    """
    check_name(name)
    if (lessons_dir(workspace) / f"{name}.json").exists():
        if new:
            raise LessonError(key="lessons.err.exists", params={"name": name})
        return change_lesson(workspace, name, lambda lesson: append_step(lesson, step),
                             shipped)
    if (Path(shipped) / f"{name}.json").is_file():
        raise LessonError(key="lessons.err.shipped", params={"name": name})
    new = Lesson(name=name, title=dict(title or {lang: name for lang in LANGUAGES}),
                 steps=(step,))
    return save_lesson(workspace, new)


def copy_shipped(workspace: Workspace, name: str, shipped: Path = SHIPPED_DIR) -> Lesson:
    """Copy the shipped lesson ``name`` into the workspace (where it replaces the shipped
    one and can be changed).

    Raises:
        LessonError: no shipped lesson has that name, it is damaged, or the workspace has a
            lesson of that name already.
    """
    check_name(name)
    if (lessons_dir(workspace) / f"{name}.json").exists():
        raise LessonError(key="lessons.err.exists", params={"name": name})
    path = Path(shipped) / f"{name}.json"
    if not path.is_file():
        raise LessonError(key="lessons.err.not_shipped", params={"name": name})
    entry = read_lesson(path, SHIPPED)
    if not entry.ok:
        raise LessonError(key="lessons.err.damaged", params={"name": name},
                          details=list(entry.problems))
    return save_lesson(workspace, entry.lesson)


def delete_lesson(workspace: Workspace, name: str, shipped: Path = SHIPPED_DIR) -> None:
    """Delete the workspace lesson ``name`` (a damaged one too; a shipped one it replaced
    shows again)."""
    path = _path(workspace, name)
    if not path.is_file():
        if (Path(shipped) / f"{name}.json").is_file():
            raise LessonError(key="lessons.err.shipped", params={"name": name})
        raise LessonError(key="lessons.err.missing", params={"name": name})
    path.unlink()
    forget_reads()


def export_lesson(lesson: Lesson) -> bytes:
    """The lesson's file (UTF-8 JSON), checked: what :func:`import_lesson` reads back."""
    checked, problems = parse_lesson(lesson.name, lesson.to_dict())
    if checked is None:
        raise LessonError(key="lessons.err.invalid",
                          params={"name": lesson.name, "count": len(problems)},
                          details=list(problems))
    return (json.dumps(checked.to_dict(), indent=2, ensure_ascii=False) + "\n").encode()


def lesson_exists(workspace: Workspace, name: str, shipped: Path = SHIPPED_DIR) -> str | None:
    """Where a lesson called ``name`` is now: ``workspace``, ``shipped`` or None."""
    check_name(name)
    if (lessons_dir(workspace) / f"{name}.json").exists():
        return WORKSPACE
    return SHIPPED if (Path(shipped) / f"{name}.json").is_file() else None


def import_lesson(workspace: Workspace, name: str, raw: bytes, file: str,
                  replace_own: bool = False) -> Lesson:
    """Check an uploaded lesson file (``file``: its name in messages) and save it as the
    workspace lesson ``name``.

    Raises:
        LessonError: a bad name, a file with problems (``details``: every located
            problem), or a workspace lesson of that name while ``replace_own`` is False:
            nothing is written.
    """
    check_name(name)
    data, problem = load_bytes(raw, Path(str(file)).name[:120] or "upload.json")
    if problem is not None:
        problems: tuple[LessonProblem, ...] = (problem,)
        lesson = None
    else:
        lesson, problems = parse_lesson(name, data, Path(str(file)).name[:120])
    if lesson is None:
        raise LessonError(key="lessons.err.import",
                          params={"file": Path(str(file)).name[:120], "count": len(problems)},
                          details=list(problems))
    if (lessons_dir(workspace) / f"{name}.json").exists() and not replace_own:
        raise LessonError(key="lessons.err.exists", params={"name": name})
    return save_lesson(workspace, lesson)
