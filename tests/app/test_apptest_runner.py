"""The AppTest runner's two replacements (tests/app/apptest_runner.py): written for the
installed Streamlit, in place, and a run still ends, or times out, as AppTest's own does."""

from __future__ import annotations

import time

import pytest
import streamlit
from streamlit.testing.v1 import AppTest

from tests.app import apptest_runner


def test_written_for_the_installed_streamlit_and_in_place() -> None:
    assert streamlit.__version__ == apptest_runner.WRITTEN_FOR, \
        "check tests/app/apptest_runner.py against this Streamlit, then update WRITTEN_FOR"
    assert apptest_runner.installed()


def _quick() -> None:
    import streamlit as st

    st.title("quick")
    st.number_input("n", value=3)


def _slow() -> None:
    import time

    import streamlit as st

    st.title("slow")
    for _ in range(300):                # 30 s, stoppable at each element it sends
        time.sleep(0.1)
        st.empty()
    st.caption("never shown")


def test_a_run_returns_its_elements_and_a_rerun_its_new_state() -> None:
    at = AppTest.from_function(_quick).run()
    assert [t.value for t in at.title] == ["quick"] and at.number_input[0].value == 3
    at.number_input[0].set_value(5).run()
    assert at.number_input[0].value == 5 and not at.exception


def test_a_run_past_its_timeout_is_stopped_and_named() -> None:
    started = time.monotonic()
    with pytest.raises(RuntimeError, match=r"AppTest script run timed out after 1\(s\)"):
        AppTest.from_function(_slow, default_timeout=1).run()
    assert time.monotonic() - started < 25          # stopped, not waited out
