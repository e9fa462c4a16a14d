"""Show engine errors as located, translated messages; never a raw traceback on a page."""

from __future__ import annotations

import traceback
from contextlib import contextmanager
from typing import Iterator

import streamlit as st

from tfcore.errors import TFLabError
from ui.common.i18n import catalog, current_lang, t


def error_text(exc: BaseException) -> str:
    """The translated message of an engine error, or a generic one for anything else."""
    if isinstance(exc, TFLabError):
        if exc.key in catalog(current_lang()):
            try:
                return t(exc.key, **exc.params)
            except (KeyError, IndexError, ValueError):
                return exc.message
        return exc.message
    return t("errors.unexpected", kind=type(exc).__name__, message=str(exc)[:300])


def show_error(exc: BaseException) -> None:
    """An error box with the message, its located details, and the traceback folded away."""
    st.error(error_text(exc), icon=":material/error:")
    details = getattr(exc, "details", None)
    if isinstance(details, (list, tuple)) and details:
        st.markdown("\n".join(f"- {item}" for item in details))
    with st.expander(t("errors.traceback")):
        st.code("".join(traceback.format_exception(exc)), language="text")


@contextmanager
def guarded() -> Iterator[None]:
    """Run a block; show any exception as an error box instead of crashing the page."""
    try:
        yield
    except Exception as exc:  # noqa: BLE001 - a page must never show a raw traceback
        show_error(exc)  # Streamlit's rerun/stop signals are BaseException: not caught
