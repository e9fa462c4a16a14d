"""Issue 26, item 3: every step of both shipped lessons opens offline from its link
(``?lesson=<name>&step=<k>``), without an exception, on its page, at its tab, with the
state its query asks for shown by the page's widgets."""

from __future__ import annotations

import pytest

from tests.app.lesson_helpers import assert_on_step, open_link
from tfcore.lessons import SHIPPED_DIR, read_lesson

STEPS = [(name, number) for name in ("handbook", "builders_guide")
         for number in range(1, len(read_lesson(SHIPPED_DIR / f"{name}.json").lesson.steps) + 1)]


@pytest.mark.parametrize("name, number", STEPS, ids=[f"{n}-{k}" for n, k in STEPS])
def test_every_shipped_step_opens_its_page_in_its_state(name: str, number: int) -> None:
    at = open_link({"lesson": name, "step": str(number)})
    step = read_lesson(SHIPPED_DIR / f"{name}.json").lesson.steps[number - 1]
    assert_on_step(at, step)
    assert at.query_params["lesson"] == name and at.query_params["step"] == str(number)
    assert not at.warning, [w.value for w in at.warning]   # no link value was refused
