"""Page state that a link opens: ``?tab=tape`` selects a page's tab, ``?preset=mlp`` opens a
preset in the builder or the weights lab (a lesson step is such a link).

A link's value is applied once per session and page (a later change by the person stays
theirs), until :func:`reopen_links` says a step was entered again. A value the page does not
offer is named in a warning and ignored; the page opens as it would without it.
"""

from __future__ import annotations

from typing import Collection, Mapping, Sequence

import streamlit as st

from tfcore.lessons import PAGES
from ui.common.i18n import t

TAB_PARAM = "tab"
APPLIED = "links.applied"          # {"page:param": text} applied in this session


def linked(page: str, name: str, allowed: Collection[str]) -> str | None:
    """The URL's value of ``name`` when it is new to this page in this session (None when
    there is none, it was applied already, or it is not in ``allowed``: then a warning)."""
    text = st.query_params.get(name)
    applied = st.session_state.setdefault(APPLIED, {})
    if text is None or applied.get(f"{page}:{name}") == text:
        return None
    applied[f"{page}:{name}"] = text
    if text not in allowed:
        st.warning(t("links.ignored", name=name, value=text[:80]), icon=":material/link_off:")
        return None
    return text


def reopen_links() -> None:
    """Apply the next page's link values again (a lesson step entered anew)."""
    st.session_state.pop(APPLIED, None)


def linked_tabs(page: str, labels: Mapping[str, str]) -> Sequence:
    """``st.tabs`` over ``labels`` ({tab name: label}, the names :data:`PAGES` gives the page),
    opened at the tab ``?tab=`` names.

    Raises:
        ValueError: the names differ from the page's registered tabs (a bug).
    """
    names = tuple(labels)
    if names != PAGES[page].tabs:
        raise ValueError(f"{page}: tabs {names} differ from tfcore.lessons.PAGES "
                         f"{PAGES[page].tabs}")
    wanted = st.query_params.get(TAB_PARAM)
    if wanted is not None and wanted not in labels:
        st.warning(t("links.ignored", name=TAB_PARAM, value=wanted[:80]),
                   icon=":material/link_off:")
        wanted = None
    # A tab chosen by a link is a new element (its key names the tab): the browser shows
    # it selected even when the same page was open at another tab a moment ago.
    return st.tabs(list(labels.values()), default=labels[wanted] if wanted else None,
                   key=f"{page}.tabs.{wanted or names[0]}")
