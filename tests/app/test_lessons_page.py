"""Issue 26, items 4 and 6: the Lessons page lists the shipped lessons and the workspace's
own (a damaged one with its located problem); a started lesson shows a step bar on every
page whose Next and Previous open the neighbouring step's page and state, in both
languages; the lesson and step are in the URL; a bad or stale link opens the page with a
located message; the notes window shows the step's notes and follows its presenting
window."""

from __future__ import annotations

import json

import pytest

from tests.app.apptest_helpers import assert_clean, open_page
from tests.app.lesson_helpers import assert_on_step, open_link, page_title, shown_title
from tests.unit.test_lessons_format import LESSON, _with
from tfcore.lessons import SHIPPED_DIR, lessons_dir, read_lesson
from tfcore.workspace import default_workspace
from ui.common.i18n import catalog
from ui.common.text import plain

HANDBOOK = read_lesson(SHIPPED_DIR / "handbook.json").lesson
GUIDE = read_lesson(SHIPPED_DIR / "builders_guide.json").lesson


def _own_lessons() -> None:
    folder = lessons_dir(default_workspace())
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "mine.json").write_text(json.dumps(LESSON), encoding="utf-8")
    (folder / "broken.json").write_text(json.dumps(_with(2, page="trian")), encoding="utf-8")


def _bar_text(at) -> str:
    return " ".join(el.proto.body for el in at.get("html") if "lesson-step" in el.proto.body)


def _texts(at) -> str:
    return "\n".join(el.value for kind in ("warning", "markdown", "header", "caption")
                     for el in at.get(kind))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_page_lists_every_lesson_and_a_damaged_one_with_its_problem(lang: str) -> None:
    _own_lessons()
    at = open_page("app_pages/lessons.py", lang)
    assert_clean(at, lang)
    words = catalog(lang)
    assert shown_title(at) == words["nav.lessons"]
    starts = sorted(b.key for b in at.button if b.key.startswith("lessons.start."))
    assert starts == ["lessons.start.builders_guide", "lessons.start.handbook",
                      "lessons.start.mine"]
    shown = _texts(at)
    assert HANDBOOK.title[lang] in shown and GUIDE.title[lang] in shown
    (warning,) = [w.value for w in at.warning]
    step = "step 2" if lang == "en" else "第 2 步"
    assert f"broken.json: {step}: page" in warning and "trian" in warning
    assert words["lessons.damaged"].format(count=1) in warning


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_start_next_and_previous_open_each_step_in_its_state(lang: str) -> None:
    at = open_page("app_pages/lessons.py", lang)
    at.button(key="lessons.start.builders_guide").click().run()
    assert_on_step(at, GUIDE.steps[0], lang)
    assert_clean(at, lang)
    words = catalog(lang)
    assert words["lessons.bar.of"].format(k=1, n=7) in _bar_text(at)
    assert GUIDE.steps[0].title[lang] in _bar_text(at)
    assert any(GUIDE.steps[0].prompt[lang] in m.value for m in at.markdown)
    assert at.button(key="lessons.bar.previous").disabled
    assert at.button(key="lessons.bar.next").label == words["lessons.bar.next"]
    for number in (2, 3, 4):                  # builder -> builder -> weights -> weights
        at.button(key="lessons.bar.next").click().run()
        assert_on_step(at, GUIDE.steps[number - 1], lang)
        assert (at.query_params["lesson"], at.query_params["step"]) == ("builders_guide",
                                                                        str(number))
        assert words["lessons.bar.of"].format(k=number, n=7) in _bar_text(at)
    at.button(key="lessons.bar.previous").click().run()
    assert_on_step(at, GUIDE.steps[2], lang)


def test_next_from_one_train_step_to_another_applies_the_new_settings() -> None:
    at = open_link({"lesson": "handbook", "step": "5"})
    assert_on_step(at, HANDBOOK.steps[4])
    at.number_input(key="train.epochs").set_value(9).run()     # the person's own change
    at.button(key="lessons.bar.next").click().run()
    assert_on_step(at, HANDBOOK.steps[5])                        # epochs back to 5, ckpt 20
    assert at.number_input(key="train.epochs").value == 5


def test_a_step_opens_its_preset_again_after_the_person_chose_another() -> None:
    """Step 4 and step 7 of the builders' guide both open the weights lab on b1_mlp; a
    preset the person chose in between gives way when step 7 is entered."""
    at = open_link({"lesson": "builders_guide", "step": "4"})
    assert_on_step(at, GUIDE.steps[3])
    at.selectbox(key="weights.preset").set_value("mlp").run()
    for number in (5, 6, 7):
        at.button(key="lessons.bar.next").click().run()
    assert_on_step(at, GUIDE.steps[6])
    assert at.selectbox(key="weights.preset").value == "b1_mlp"


def test_the_bar_stays_on_a_page_chosen_in_the_menu_and_the_end_removes_it() -> None:
    at = open_link({"lesson": "handbook", "step": "2"})
    assert_on_step(at, HANDBOOK.steps[1])
    at.query_params.clear()                         # the menu's link: a bare address
    at.switch_page("app_pages/home.py").run()
    assert HANDBOOK.steps[1].title["en"] in _bar_text(at)
    assert (at.query_params["lesson"], at.query_params["step"]) == ("handbook", "2")
    at.button(key="lessons.bar.next").click().run()
    assert_on_step(at, HANDBOOK.steps[2])
    at.button(key="lessons.bar.end").click().run()
    assert not _bar_text(at) and "lesson" not in at.query_params
    assert not at.exception


def test_the_last_step_has_no_next() -> None:
    at = open_link({"lesson": "builders_guide", "step": "7"})
    assert_on_step(at, GUIDE.steps[6])
    assert at.button(key="lessons.bar.next").disabled
    assert not at.button(key="lessons.bar.previous").disabled


@pytest.mark.parametrize("query, located", [
    ({"lesson": "nope", "step": "1"}, "There is no lesson called nope. Lessons: "
                                      "builders_guide, handbook, broken, mine."),
    ({"lesson": "handbook", "step": "12"}, "The lesson handbook has steps 1 to 9; the link "
                                           "asks for step 12."),
    ({"lesson": "handbook", "step": "two"}, "asks for step two."),
    ({"lesson": "broken", "step": "1"}, "broken.json: step 2: page: 'trian' is not one of"),
])
def test_a_bad_or_stale_link_opens_the_page_with_a_located_message(query, located) -> None:
    _own_lessons()
    at = open_link(query)
    assert not at.exception, [e.value for e in at.exception]
    assert shown_title(at) == catalog("en")["home.title"]          # the page still opens
    (warning,) = [w.value for w in at.warning]
    assert warning.startswith(catalog("en")["lessons.link.bad"])
    assert plain(located) in warning
    assert "lesson" not in at.query_params and not _bar_text(at)
    at.run()                      # a rerun (any click) keeps it: it vanished after one run
    assert [w.value for w in at.warning] == [warning]


def test_a_stale_link_in_chinese() -> None:
    at = open_link({"lesson": "handbook", "step": "12"}, "zh")
    (warning,) = [w.value for w in at.warning]
    assert "课程 handbook 的步骤为 1 到 9；链接要求的是第 12 步。" in warning


def test_a_link_on_the_steps_own_page_keeps_its_own_values() -> None:
    """A reload: the URL holds the page's state as the person left it; the step fills only
    what the URL lacks."""
    at = open_link({"lesson": "handbook", "step": "5", "epochs": "7"})
    assert at.number_input(key="train.epochs").value == 5     # on home: the step's page opened
    at = open_link({"lesson": "handbook", "step": "4", "tab": "save", "preset": "cnn"})
    assert at.query_params["tab"] == "code"                   # a switch: the step's state


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_notes_window_shows_the_steps_notes_and_follows_its_bar(lang: str) -> None:
    at = open_link({"lesson": "handbook", "step": "3"}, lang)
    notes_link = next(b for b in at.get("link_button")).proto.url
    pair = notes_link.split("pair=")[1].split("&")[0]
    notes = open_link({"lesson": "handbook", "step": "3", "notes": "1", "pair": pair}, lang)
    assert not notes.exception
    assert shown_title(notes) is None                      # no page under the notes
    shown = _texts(notes)
    assert plain(HANDBOOK.steps[2].notes[lang]) in shown
    assert plain(HANDBOOK.steps[2].prompt[lang]) in shown
    assert plain(HANDBOOK.steps[3].title[lang]) in shown   # what comes next
    at.button(key="lessons.bar.next").click().run()        # the presenting window moves on
    notes.run()
    assert plain(HANDBOOK.steps[3].notes[lang]) in _texts(notes)
    assert notes.query_params["step"] == "4"
    alone = open_link({"lesson": "handbook", "step": "6", "notes": "1"}, lang)
    assert plain(HANDBOOK.steps[5].notes[lang]) in _texts(alone)
    assert catalog(lang)["lessons.notes.alone"] in _texts(alone)
