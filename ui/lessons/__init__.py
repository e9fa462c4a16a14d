"""Lessons in the dashboard: the Lessons page's list, the step bar every page shows while a
lesson is on (with the keyboard's arrows), the teacher's notes window, and the lesson and
step kept in the URL.

Code outside this package imports only the names below (``__all__``).
"""

from __future__ import annotations

from ui.lessons.bar import lesson_bar
from ui.lessons.listing import lessons_list

__all__ = ["lesson_bar", "lessons_list"]
