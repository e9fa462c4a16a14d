"""Lessons in the dashboard: the Lessons page's list, editor and import, the step bar every
page shows while a lesson is on (with the keyboard's arrows), the sidebar's "Add this view
to a lesson", the teacher's notes window, the lesson and step kept in the URL, and a class
following the teacher.

Code outside this package imports only the names below (``__all__``).
"""

from __future__ import annotations

from ui.lessons.bar import lesson_bar
from ui.lessons.capture import add_view
from ui.lessons.editor import lesson_editor
from ui.lessons.follow import followed_run
from ui.lessons.importing import lesson_import
from ui.lessons.listing import lessons_list

__all__ = ["add_view", "followed_run", "lesson_bar", "lesson_editor", "lesson_import",
           "lessons_list"]
