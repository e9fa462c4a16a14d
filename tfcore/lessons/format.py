"""The lesson file: an ordered list of steps, each a page with its link state and the
teacher's notes and the students' prompt in English and Chinese.

```json
{"format": 1,
 "title": {"en": "...", "zh": "..."},
 "description": {"en": "...", "zh": "..."},
 "steps": [{"page": "train", "tab": null,
            "query": {"preset": "mlp", "dataset": "digits28", "epochs": 5},
            "title": {"en": "...", "zh": "..."},
            "notes": {"en": "...", "zh": "..."},
            "prompt": {"en": "...", "zh": "..."}}]}
```

:func:`parse_lesson` checks a parsed file against this shape and returns every problem at
once, each located (file, step number counted from 1, field): a lesson with a problem is
not started, and nothing else depends on it. A file without ``format`` is refused: the
version is what lets a later TF Lab read today's files.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Mapping

from tfcore.lessons.pages import PAGES, RESERVED_PARAMS
from tfcore.messages import LANGUAGES, render

LESSON_FORMAT = 1
"""The lesson file format this TF Lab writes and reads."""
NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
PARAM = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
MAX_STEPS = 200
MAX_TITLE, MAX_TEXT, MAX_VALUE = 200, 4000, 400
LESSON_FIELDS = ("format", "title", "description", "steps")
STEP_FIELDS = ("page", "tab", "query", "title", "notes", "prompt")
VALUE_CHARS = 60


def quote(value: Any) -> str:
    """A short ``repr`` of a bad value for a message."""
    text = repr(value) if not isinstance(value, (dict, list)) else \
        f"<{type(value).__name__} of {len(value)}>"
    return text if len(text) <= VALUE_CHARS else text[:VALUE_CHARS - 3] + "..."


@dataclass(frozen=True)
class LessonProblem:
    """One located problem of a lesson file: the file, the step (from 1; None for the
    lesson itself), the field (dotted: ``query.epochs``, ``title.zh``), why, the bad value
    (quoted, shortened) and what is allowed.

    ``key`` and ``params`` let a page translate it; ``str()`` is the English message from
    the engine's catalog (``lessons.problem.*`` in ``tfcore/locales``).
    """

    file: str
    step: int | None
    field: str
    reason: str
    value: str = ""
    limit: str = ""

    @property
    def where(self) -> str:
        parts = [self.file]
        if self.step is not None:
            parts.append(render("lessons.problem.step", {"n": self.step}) or f"step {self.step}")
        if self.field:
            parts.append(self.field)
        return ": ".join(parts)

    @property
    def key(self) -> str:
        if self.reason == "type":
            return f"lessons.problem.type.{self.limit}"
        return f"lessons.problem.{self.reason}"

    @property
    def params(self) -> dict[str, str]:
        return {"where": self.where, "value": self.value, "limit": self.limit}

    def text(self, lang: str = "en") -> str:
        """The message in ``lang`` (the step named in that language too)."""
        params = dict(self.params)
        if lang != "en" and self.step is not None:
            step = render("lessons.problem.step", {"n": self.step}, lang)
            params["where"] = ": ".join(p for p in (self.file, step, self.field) if p)
        return render(self.key, params, lang) or f"{self.where}: {self.reason} {self.value}"

    def __str__(self) -> str:
        return self.text()


@dataclass(frozen=True)
class LessonStep:
    """One step: the page it opens, its tab, its link state (texts, as a URL holds them),
    its title, the teacher's notes and the students' prompt ({lang: text})."""

    page: str
    title: Mapping[str, str]
    notes: Mapping[str, str]
    prompt: Mapping[str, str]
    query: Mapping[str, str] = field(default_factory=dict)
    tab: str | None = None

    def link(self) -> dict[str, str]:
        """The query parameters that open this step's state: its query and its tab."""
        return {**self.query, **({"tab": self.tab} if self.tab else {})}

    def to_dict(self) -> dict[str, Any]:
        return {"page": self.page, "tab": self.tab, "query": dict(self.query),
                "title": dict(self.title), "notes": dict(self.notes),
                "prompt": dict(self.prompt)}


@dataclass(frozen=True)
class Lesson:
    """A checked lesson: its name (the file's stem), title, description and steps."""

    name: str
    title: Mapping[str, str]
    steps: tuple[LessonStep, ...]
    description: Mapping[str, str] | None = None

    def to_dict(self) -> dict[str, Any]:
        """The file's JSON document (``parse_lesson(name, lesson.to_dict())`` gives it back)."""
        out: dict[str, Any] = {"format": LESSON_FORMAT, "title": dict(self.title)}
        if self.description is not None:
            out["description"] = dict(self.description)
        out["steps"] = [step.to_dict() for step in self.steps]
        return out


def query_text(value: Any) -> str:
    """A query value as a URL holds it: ``true``/``false``, ``0.001``, ``5``, text as is."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


class _Checker:
    """Collects the problems of one file while reading it."""

    def __init__(self, file: str) -> None:
        self.file, self.problems = file, []
        self.step: int | None = None

    def add(self, name: str, reason: str, value: Any = None, limit: str = "") -> None:
        shown = "" if value is None else quote(value)
        self.problems.append(LessonProblem(self.file, self.step, name, reason, shown, limit))

    def unknown(self, data: Mapping, known: tuple[str, ...]) -> None:
        for name in data:
            if name not in known:
                self.add(str(name)[:VALUE_CHARS], "unknown", limit=", ".join(known))

    def texts(self, data: Mapping, name: str, limit: int, required: bool = True,
              blank: bool = False) -> dict[str, str] | None:
        """A ``{"en": ..., "zh": ...}`` field: both languages, text (not empty unless
        ``blank``)."""
        if name not in data or data[name] is None:
            if required:
                self.add(name, "missing")
            return None
        value = data[name]
        if not isinstance(value, dict):
            self.add(name, "type", value, "texts")
            return None
        out: dict[str, str] = {}
        for lang in LANGUAGES:
            text = value.get(lang)
            where = f"{name}.{lang}"
            if lang not in value:
                self.add(where, "missing")
            elif not isinstance(text, str):
                self.add(where, "type", text, "string")
            elif not text.strip() and not blank:
                self.add(where, "blank")
            elif len(text) > limit:
                self.add(where, "long", text, str(limit))
            else:
                out[lang] = text
        for lang in value:
            if lang not in LANGUAGES:
                self.add(f"{name}.{str(lang)[:VALUE_CHARS]}", "unknown",
                         limit=", ".join(LANGUAGES))
        return out if len(out) == len(LANGUAGES) else None

    def query(self, value: Any, page: str | None) -> dict[str, str] | None:
        if value is None:
            return {}
        if not isinstance(value, dict):
            self.add("query", "type", value, "object")
            return None
        info = PAGES.get(page) if page else None
        out: dict[str, str] = {}
        for name, item in value.items():
            where = f"query.{str(name)[:VALUE_CHARS]}"
            if not PARAM.match(str(name)):
                self.add(where, "param_name", name)
            elif name in RESERVED_PARAMS:
                self.add(where, "reserved", name, ", ".join(RESERVED_PARAMS))
            elif info is not None and info.params is not None and name not in info.params:
                self.add(where, "param", page, ", ".join(info.params) or "-")
            elif isinstance(item, float) and not math.isfinite(item):
                self.add(where, "type", item, "value")
            elif not isinstance(item, (str, int, float, bool)):
                self.add(where, "type", item, "value")
            elif len(query_text(item)) > MAX_VALUE:
                self.add(where, "long", item, str(MAX_VALUE))
            else:
                out[name] = query_text(item)
        return out if len(out) == len(value) else None

    def page(self, data: Mapping) -> str | None:
        value = data.get("page")
        if value is None:
            self.add("page", "missing")
        elif not isinstance(value, str):
            self.add("page", "type", value, "string")
        elif value not in PAGES:
            self.add("page", "choice", value, ", ".join(PAGES))
        else:
            return value
        return None

    def tab(self, value: Any, page: str | None) -> tuple[bool, str | None]:
        if value is None:
            return True, None
        if not isinstance(value, str):
            self.add("tab", "type", value, "string")
            return False, None
        if page is None:
            return False, None
        tabs = PAGES[page].tabs
        if not tabs:
            self.add("tab", "no_tabs", page)
            return False, None
        if value not in tabs:
            self.add("tab", "choice", value, ", ".join(tabs))
            return False, None
        return True, value


def _format(check: _Checker, data: Mapping) -> bool:
    value = data.get("format")
    if value is None:
        check.add("format", "missing")
    elif not isinstance(value, int) or isinstance(value, bool):
        check.add("format", "type", value, "int")
    elif value > LESSON_FORMAT:
        check.add("format", "newer", value, str(LESSON_FORMAT))
    elif value < 1:
        check.add("format", "low", value, "1")
    else:
        return True
    return False


def _step(check: _Checker, number: int, data: Any) -> LessonStep | None:
    check.step = number
    try:
        if not isinstance(data, dict):
            check.add("", "not_object", data)
            return None
        before = len(check.problems)
        check.unknown(data, STEP_FIELDS)
        page = check.page(data)
        tab_ok, tab = check.tab(data.get("tab"), page)
        query = check.query(data.get("query"), page)
        title = check.texts(data, "title", MAX_TITLE)
        notes = check.texts(data, "notes", MAX_TEXT, blank=True)     # a captured step's are
        prompt = check.texts(data, "prompt", MAX_TEXT, blank=True)   # empty until written
        if len(check.problems) > before or None in (page, query, title, notes, prompt) \
                or not tab_ok:
            return None
        return LessonStep(page=page, title=title, notes=notes, prompt=prompt, query=query,
                          tab=tab)
    finally:
        check.step = None


def parse_lesson(name: str, data: Any, file: str | None = None
                 ) -> tuple[Lesson | None, tuple[LessonProblem, ...]]:
    """Check a parsed lesson file; the lesson (None when it has any problem) and every
    located problem. ``file`` names the file in messages (default ``<name>.json``)."""
    check = _Checker(file or f"{name}.json")
    if not NAME.match(name):
        check.add("", "name", name, NAME.pattern)
    if not isinstance(data, dict):
        check.add("", "not_object", data)
        return None, tuple(check.problems)
    check.unknown(data, LESSON_FIELDS)
    if not _format(check, data):
        return None, tuple(check.problems)       # another version: its fields mean other things
    title = check.texts(data, "title", MAX_TITLE)
    description = check.texts(data, "description", MAX_TEXT, required=False)
    raw = data.get("steps")
    steps: list[LessonStep | None] = []
    if raw is None:
        check.add("steps", "missing")
    elif not isinstance(raw, list):
        check.add("steps", "type", raw, "list")
    elif not raw:
        check.add("steps", "empty")
    elif len(raw) > MAX_STEPS:
        check.add("steps", "many", len(raw), str(MAX_STEPS))
    else:
        steps = [_step(check, number, step) for number, step in enumerate(raw, 1)]
    if check.problems:
        return None, tuple(check.problems)
    return Lesson(name=name, title=title, steps=tuple(steps),
                  description=description), ()


def parse_step(data: Any, file: str, number: int
               ) -> tuple[LessonStep | None, tuple[LessonProblem, ...]]:
    """Check one step alone (a captured view before it joins a lesson), located as step
    ``number`` of ``file``."""
    check = _Checker(file)
    step = _step(check, number, data)
    return step, tuple(check.problems)
