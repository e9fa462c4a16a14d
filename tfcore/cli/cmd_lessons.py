"""``lessons list|show|check``: the shipped lessons and the workspace's own, one lesson's
steps, and the located problems of a lesson file (exit 2 when it has any)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from tfcore.cli import EXIT_USER_ERROR, print_json, readable
from tfcore.cli.vocabulary import add_flag, command


def _lang() -> str:
    from tfcore import settings

    return settings.cli_lang()


def _problems(entry: Any, lang: str) -> list[dict]:
    return [{"file": p.file, "step": p.step, "field": p.field, "reason": p.reason,
             "value": p.value, "limit": p.limit, "message": p.text(lang)}
            for p in entry.problems]


def _summary(entry: Any, lang: str) -> dict:
    lesson = entry.lesson
    return {"name": entry.name, "origin": entry.origin, "path": str(entry.path),
            "ok": entry.ok, "title": dict(lesson.title) if lesson else None,
            "steps": len(lesson.steps) if lesson else None,
            "problems": _problems(entry, lang)}


def _workspace():
    from tfcore.workspace import default_workspace

    return default_workspace()


def _list(args: argparse.Namespace) -> int:
    from tfcore.lessons import list_lessons

    lang, entries = _lang(), list_lessons(_workspace())
    if args.json:
        print_json([_summary(entry, lang) for entry in entries])
        return 0
    for entry in entries:
        if entry.ok:
            print(f"{entry.name:<24} {entry.origin:<10} {len(entry.lesson.steps):>3}  "
                  f"{readable(entry.lesson.title[lang])}")
        else:
            print(f"{entry.name:<24} {entry.origin:<10} ---  "
                  f"{readable(entry.problems[0].text(lang))}")
    return 0


def _refuse(entry: Any) -> None:
    """Raise the lesson's located problems (the command line prints one a line, exit 2)."""
    from tfcore.errors import LessonError

    raise LessonError(key="lessons.err.problems",
                      params={"path": str(entry.path), "count": len(entry.problems)},
                      details=list(entry.problems))


def _show(args: argparse.Namespace) -> int:
    from tfcore.lessons import find_lesson

    lang, entry = _lang(), find_lesson(_workspace(), args.name)
    if args.json:
        out = _summary(entry, lang)
        out["lesson"] = entry.lesson.to_dict() if entry.ok else None
        print_json(out)
        return 0 if entry.ok else EXIT_USER_ERROR
    if not entry.ok:
        _refuse(entry)
    lesson = entry.lesson
    print(f"{entry.name} ({entry.origin}, {entry.path}): {readable(lesson.title[lang])}")
    for number, step in enumerate(lesson.steps, 1):
        link = "&".join(f"{k}={v}" for k, v in step.link().items())
        print(f"{number:>3}. {step.page:<12} {readable(step.title[lang])}"
              + (f"  ?{readable(link)}" if link else ""))
    return 0


def _check(args: argparse.Namespace) -> int:
    from tfcore.lessons import read_lesson

    lang, path = _lang(), Path(args.file)
    entry = read_lesson(path)
    if args.json:
        print_json(_summary(entry, lang))
        return 0 if entry.ok else EXIT_USER_ERROR
    if not entry.ok:
        _refuse(entry)
    print(f"ok: {entry.name}: {len(entry.lesson.steps)} steps")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = command(sub, "lessons", "lessons: list them, show one's steps, check a lesson file",
                ["python -m tfcore lessons list", "python -m tfcore lessons show handbook"])
    verbs = p.add_subparsers(dest="verb", metavar="VERB")
    q = command(verbs, "list", "the shipped lessons and the workspace's own",
                ["python -m tfcore lessons list --json"])
    q.set_defaults(func=_list)
    q = command(verbs, "show", "one lesson's steps: page, title and link state",
                ["python -m tfcore lessons show builders_guide"])
    q.add_argument("name", help="the lesson's name (see: lessons list)")
    q.set_defaults(func=_show)
    q = command(verbs, "check", "check a lesson file; exit 2 with located problems",
                ["python -m tfcore lessons check workspace/lessons/my_lesson.json"])
    q.add_argument("file", help="a lesson JSON file")
    q.set_defaults(func=_check)
    for q in verbs.choices.values():
        q.add_argument("--json", action="store_true", help="print one JSON document")
        add_flag(q, "workspace")
