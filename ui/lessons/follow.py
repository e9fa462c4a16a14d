"""Following the teacher (issue 26, item 5): in the step bar the teacher (the password of
the shared-server rules; anyone on a loopback server) may **Lead this lesson**; while
leading, every move (Previous, Next, a link, the run the Train page shows) is written to
the workspace's lead (``tfcore.lessons.follow``) and the bar shows how many students are on
each step. A student gets **Follow the teacher** while a lead exists: a small fragment
looks at the lead's revision each second and opens the teacher's step the way the bar's
Next does; on the Train page the teacher's run shows, read-only. **Try it myself** stops
following and opens the step in the student's own session. ``?follow=1`` in a link turns
following on.

Both stay in the address while they hold (``?follow=1`` while a student follows,
``?lead=1`` while the teacher leads), so a reload carries on: the student follows again,
and the teacher (still signed in: the sign-in is the browser's) leads again.

A student's presence is the browser's, not the page session's: an anonymous id in a cookie
(``tflab_browser``) names its record, so a reload or a second tab renews the same record and
the teacher's counts do not count the student twice while the old session's record ages out.
The lead still names the teacher's page session.
"""

from __future__ import annotations

import secrets
import time

import streamlit as st

from tfcore.errors import LessonError
from tfcore.lessons import (HEARTBEAT_EVERY, Lead, end_lead, heartbeat, leave, read_lead,
                            set_lead, step_counts, valid_token)
from ui.common import browser_cookie, can_destroy, guarded, t, workspace, write_cookie
from ui.lessons.state import ON_KEY, Position, go, open_lesson

TOKEN_KEY = "lessons.follow.token"     # this session's anonymous id (the lead)
BROWSER_KEY = "lessons.follow.browser"  # (this browser's anonymous id, cookie to write?)
BROWSER_COOKIE = "tflab_browser"
BROWSER_TTL = 30 * 24 * 3600            # seconds the browser keeps its id
LEADING_KEY = "lessons.leading"        # True while this session leads
FOLLOW_KEY = "lessons.follow.on"       # True while this session follows
FOLLOW_WIDGET = "lessons.follow.toggle"
SEEN_KEY = "lessons.follow.seen"       # the lead revision this session last acted on
BEAT_KEY = "lessons.follow.beat"       # (lesson, step, time) of the last heartbeat
FORK_KEY = "lessons.follow.forked"     # Try it myself was pressed: (lesson, step)
OFFERED_KEY = "lessons.follow.offered"  # whether the bar offered Follow on its last run
FOLLOW_PARAM = "follow"
LEAD_PARAM = "lead"
RESUME_KEY = "lessons.follow.resume"    # a reload of a leading page: take the lead back
CHECK_EVERY = 1.0           # seconds between a follower's looks at the lead
WATCH_EVERY = HEARTBEAT_EVERY  # a student not following: presence, and a lead appearing
COUNT_EVERY = 2.0           # seconds between the teacher's looks at the counts
TRAIN_PAGE = "train"


def session_token() -> str:
    """This browser session's random id: no name, never shown."""
    if TOKEN_KEY not in st.session_state:
        st.session_state[TOKEN_KEY] = secrets.token_urlsafe(12)
    return st.session_state[TOKEN_KEY]


def presence_id() -> str:
    """This browser's anonymous id (its presence record): the one its cookie holds, else a
    new one that :func:`keep_browser_id` writes into the cookie."""
    known = st.session_state.get(BROWSER_KEY)
    if known is None:
        cookie = browser_cookie(BROWSER_COOKIE)
        known = (cookie, False) if valid_token(cookie) else (secrets.token_urlsafe(12), True)
        st.session_state[BROWSER_KEY] = known
    return known[0]


def keep_browser_id() -> None:
    """Write the browser's new id into its cookie (every run of this session: a rerun that
    replaces the writer before the browser has drawn it would lose it)."""
    known = st.session_state.get(BROWSER_KEY)
    if known is not None and known[1]:
        write_cookie("lessons.follow.browser_cookie", BROWSER_COOKIE, known[0], BROWSER_TTL)


def leading() -> bool:
    """Whether this session leads (and still has the teacher's rights)."""
    return st.session_state.get(LEADING_KEY) is True and can_destroy()


def following() -> bool:
    return st.session_state.get(FOLLOW_KEY) is True and not leading()


def _lead() -> Lead | None:
    return read_lead(workspace()).lead


def followed_run() -> str | None:
    """The run the teacher's Train page shows while this session follows, else None."""
    if not following():
        return None
    lead = _lead()
    return lead.run_id if lead is not None else None


def take_link() -> None:
    """A session's first run (a link, a reload): ``?follow=1`` follows the teacher;
    ``?lead=1`` (a leading teacher's own address) leads again when this session has the
    teacher's rights and the lead still exists. Later runs leave it to the session's state
    (``keep_link`` writes it back into the address)."""
    if LEAD_PARAM in st.query_params and LEADING_KEY not in st.session_state:
        if st.query_params.get(LEAD_PARAM) == "1" and can_destroy() \
                and _lead() is not None:
            st.session_state[LEADING_KEY] = True
            st.session_state[RESUME_KEY] = True
            st.session_state[FOLLOW_KEY] = False
        else:
            st.session_state[LEADING_KEY] = False
    if FOLLOW_PARAM in st.query_params and FOLLOW_KEY not in st.session_state:
        wanted = st.query_params.get(FOLLOW_PARAM) == "1" and not leading()
        st.session_state[FOLLOW_KEY] = wanted
        st.session_state.pop(SEEN_KEY, None)


def keep_link() -> None:
    """The address says what this session does (``?follow=1``, ``?lead=1``), so a reload
    or the same address in a new tab carries on; nothing else of the address changes."""
    for param, on in ((FOLLOW_PARAM, following()), (LEAD_PARAM, leading())):
        if on and st.query_params.get(param) != "1":
            st.query_params[param] = "1"
        elif not on and param in st.query_params:
            del st.query_params[param]


# ---------------------------------------------------------------- the bar's controls


def _start_following() -> None:
    st.session_state[FOLLOW_KEY] = st.session_state.get(FOLLOW_WIDGET) is True
    st.session_state.pop(SEEN_KEY, None)       # go to the teacher's step at once
    if not st.session_state[FOLLOW_KEY]:
        leave(workspace(), presence_id())


def _fork(lesson: str, number: int) -> None:
    st.session_state[FOLLOW_KEY] = False
    st.session_state[FOLLOW_WIDGET] = False
    st.session_state[FORK_KEY] = (lesson, number)


def controls(position: Position) -> None:
    """The bar's Lead / Stop leading (the teacher), or Follow the teacher and Try it myself
    (a student, while a lead exists). Drawn in the bar's row of buttons."""
    if can_destroy():
        if leading():
            if st.button(t("lessons.follow.unlead"), key="lessons.follow.unlead",
                         icon=":material/stop_circle:"):
                st.session_state[LEADING_KEY] = False
                with guarded():
                    end_lead(workspace(), leader=session_token(), teacher=True)
                st.rerun()
            return
        if st.button(t("lessons.follow.lead"), key="lessons.follow.lead",
                     icon=":material/campaign:", help=t("lessons.follow.lead_help")):
            st.session_state[LEADING_KEY] = True
            st.session_state[FOLLOW_KEY] = False
            leave(workspace(), presence_id())
            publish(position, None)
            st.rerun()
    lead = _lead()
    st.session_state[OFFERED_KEY] = lead is not None
    if lead is None:
        return
    st.session_state[FOLLOW_WIDGET] = following()
    st.toggle(t("lessons.follow.toggle"), key=FOLLOW_WIDGET, on_change=_start_following,
              help=t("lessons.follow.toggle_help"))
    if following():
        st.button(t("lessons.follow.fork"), key="lessons.follow.fork",
                  icon=":material/edit:", help=t("lessons.follow.fork_help"),
                  on_click=_fork, args=(lead.lesson, lead.step))


# ---------------------------------------------------------------- the teacher


def publish(position: Position, page: str | None) -> None:
    """Write the teacher's position (and, on the Train page, the run it shows)."""
    from ui.training import RUN_KEY     # the run the Train page shows

    run_id = st.session_state.get(RUN_KEY) if page == TRAIN_PAGE else None
    lead = set_lead(workspace(), position.lesson.name, position.number,
                    leader=session_token(), teacher=can_destroy(), run_id=run_id)
    st.session_state[SEEN_KEY] = lead.revision


def _counts_line(lesson: str) -> str:
    counts = step_counts(workspace(), lesson)
    if not counts:
        return t("lessons.follow.nobody")
    return t("lessons.follow.counts", counts=" · ".join(
        t("lessons.follow.count_item", k=k, n=n) for k, n in counts.items()))


def _teacher(position: Position, page: str) -> None:
    """Every few seconds: the counts, and the run the page shows now (a Train press)."""
    lead = _lead()
    if lead is not None and lead.leader != session_token():
        st.session_state[LEADING_KEY] = False      # another teacher session took over
        st.rerun(scope="app")
    with guarded():
        publish(position, page)
    with st.container(key="lesson-counts"):
        st.caption(_counts_line(position.lesson.name))


# ---------------------------------------------------------------- a student


def _beat(lesson: str, number: int) -> None:
    last = st.session_state.get(BEAT_KEY)
    now = time.time()
    if last is None or last[:2] != (lesson, number) or now - last[2] >= HEARTBEAT_EVERY:
        heartbeat(workspace(), presence_id(), lesson, number, now)
        st.session_state[BEAT_KEY] = (lesson, number, now)


def _move_to(lead: Lead) -> None:
    """Open the teacher's step (never returns), or say why it cannot."""
    try:
        lesson = open_lesson(lead.lesson)
    except LessonError:
        st.caption(t("lessons.follow.cannot", name=lead.lesson))
        return
    if not 1 <= lead.step <= len(lesson.steps):
        st.caption(t("lessons.follow.cannot", name=lead.lesson))
        return
    go(lesson, lead.step)


def _student(shown_run: str | None) -> None:
    """A student's look at the lead: follow it, keep the presence fresh, and offer Follow
    as soon as a lead appears."""
    lead = _lead()
    on = st.session_state.get(ON_KEY)
    if not following():
        if (lead is not None) != st.session_state.get(OFFERED_KEY, False) and on:
            st.rerun(scope="app")             # a lead began or ended: redraw the bar
        if lead is not None and on and on[0] == lead.lesson:
            _beat(*on)
        return
    if lead is None:
        st.caption(t("lessons.follow.gone"))
        return
    if st.session_state.get(SEEN_KEY) != lead.revision:
        st.session_state[SEEN_KEY] = lead.revision
        if on is None or tuple(on) != (lead.lesson, lead.step):
            _beat(lead.lesson, lead.step)
            _move_to(lead)
            return
        if lead.run_id != shown_run:
            st.rerun(scope="app")             # the teacher's page shows another run
    if on:
        _beat(*on)


def follow_watch(position: Position | None, page: str) -> None:
    """After the bar (or without one, while following): the teacher's counts fragment, or
    a student's look at the lead."""
    if leading() and position is not None:
        if st.session_state.pop(RESUME_KEY, False):
            with guarded():                    # a reload: this session leads from now on
                publish(position, page)
        st.fragment(_teacher, run_every=COUNT_EVERY)(position, page)
        return
    if position is None and not following():
        return
    presence_id()                              # made here, not in the fragment: the
    keep_browser_id()                          # page's main body keeps its cookie writer
    shown = followed_run() if page == TRAIN_PAGE else None
    st.fragment(_student, run_every=CHECK_EVERY if following() else WATCH_EVERY)(shown)


def forked() -> None:
    """Try it myself: open the step in this session's own state (never returns)."""
    fork = st.session_state.pop(FORK_KEY, None)
    if fork is None:
        return
    leave(workspace(), presence_id())
    try:
        lesson = open_lesson(fork[0])
    except LessonError:
        return
    if 1 <= fork[1] <= len(lesson.steps):
        go(lesson, fork[1])


def ended() -> None:
    """The lesson ended in this session: no lead, no following."""
    if leading():
        st.session_state[LEADING_KEY] = False
        end_lead(workspace(), leader=session_token(), teacher=True)
    if st.session_state.get(FOLLOW_KEY):
        st.session_state[FOLLOW_KEY] = False
        leave(workspace(), presence_id())
