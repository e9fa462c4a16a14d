"""Show engine errors as located, translated messages; never a raw traceback on a page."""

from __future__ import annotations

import traceback
from contextlib import contextmanager
from typing import Iterator, Mapping

import streamlit as st

from tfcore.errors import TFLabError
from ui.common.i18n import catalog, current_lang, t
from ui.common.text import plain, plain_params


def error_text(exc: BaseException) -> str:
    """The translated message of an engine error, or a generic one for anything else, as
    Markdown in which the error's values (names, paths, messages) show literally."""
    if isinstance(exc, TFLabError):
        if exc.key in catalog(current_lang()):
            try:
                return t(exc.key, **plain_params(exc.params))
            except (KeyError, IndexError, ValueError):
                return plain(exc.message)
        return plain(exc.message)
    return t("errors.unexpected", kind=type(exc).__name__, message=plain(str(exc)[:300]))


def located_text(problem: object, markdown: bool = True) -> str:
    """A located problem (a run file's, a spec's) in the reader's language: its
    ``key`` and ``params`` when the catalog has the key, else its English text.

    With ``markdown`` (for alerts and captions) the file's text is escaped so it shows
    literally; without it (table cells) it is left as is.
    """
    key, params = getattr(problem, "key", None), getattr(problem, "params", None)
    if isinstance(key, str) and isinstance(params, Mapping) and key in catalog(current_lang()):
        params = _located_params(problem, params)
        try:
            return t(key, **(plain_params(params) if markdown else params))
        except (KeyError, IndexError, ValueError):
            pass
    return plain(str(problem)) if markdown else str(problem)


def _located_params(problem: object, params: Mapping) -> Mapping:
    """A spec problem's template also takes its place, its value (cut to 300 characters)
    and its English text; a run file's problem carries them in ``params`` already."""
    if not hasattr(problem, "allowed"):
        return params
    value = repr(getattr(problem, "value", None))
    value = value if len(value) <= 300 else value[:300] + "..."
    return {"where": getattr(problem, "where", ""), "value": value,
            "text": getattr(problem, "allowed"), **params}


def show_error(exc: BaseException) -> None:
    """An error box with the message, its located details, and the traceback folded away."""
    st.error(error_text(exc), icon=":material/error:")
    details = getattr(exc, "details", None)
    if isinstance(details, (list, tuple)) and details:
        st.markdown("\n".join(f"- {located_text(item)}" for item in details))
    with st.expander(t("errors.traceback")):
        st.code("".join(traceback.format_exception(exc)), language="text")


@contextmanager
def guarded() -> Iterator[None]:
    """Run a block; show any exception as an error box instead of crashing the page."""
    try:
        yield
    except Exception as exc:  # noqa: BLE001 - a page must never show a raw traceback
        show_error(exc)  # Streamlit's rerun/stop signals are BaseException: not caught
