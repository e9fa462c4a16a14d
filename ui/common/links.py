"""Page state that a link opens: ``?tab=tape`` selects a page's tab, ``?preset=mlp`` opens a
preset in the builder or the weights lab (a lesson step is such a link). A tab chosen by a
click is written back to ``?tab=`` (:func:`linked_tabs`).

A link's value is applied once per session and page (a later change by the person stays
theirs), until :func:`reopen_links` says a step was entered again. A value the page does not
offer is named in a warning and ignored; the page opens as it would without it. The
warning stays while the person is on that page (:func:`leave_links` forgets it on another
page); shown for one script run, the next rerun took it away before anyone read it.
"""

from __future__ import annotations

from typing import Collection, Mapping, Sequence

import streamlit as st

from tfcore.lessons import PAGES
from ui.common.i18n import t

TAB_PARAM = "tab"
APPLIED = "links.applied"          # {"page:param": text} applied in this session
REFUSED = "links.refused"          # {"page:param": text} refused, named while on the page


def linked(page: str, name: str, allowed: Collection[str]) -> str | None:
    """The URL's value of ``name`` when it is new to this page in this session (None when
    there is none, it was applied already, or it is not in ``allowed``: then a warning)."""
    text = st.query_params.get(name)
    applied = st.session_state.setdefault(APPLIED, {})
    refused = st.session_state.setdefault(REFUSED, {})
    slot = f"{page}:{name}"
    if text is not None and applied.get(slot) != text:
        applied[slot] = text
        refused.pop(slot, None)
        if text in allowed:
            return text
        refused[slot] = text
    if slot in refused:
        st.warning(t("links.ignored", name=name, value=refused[slot][:80]),
                   icon=":material/link_off:")
    return None


def url_keeps(page: str, name: str, value: str) -> None:
    """Write the page's current ``value`` of ``name`` into the address (a reload, a shared
    link or a captured step opens it again); a value the page wrote is not applied again
    as a link by :func:`linked`."""
    if st.query_params.get(name) != value:
        st.query_params[name] = value
    st.session_state.setdefault(APPLIED, {})[f"{page}:{name}"] = value


def reopen_links() -> None:
    """Apply the next page's link values again (a lesson step entered anew)."""
    st.session_state.pop(APPLIED, None)
    st.session_state.pop(REFUSED, None)


def leave_links(page: str) -> None:
    """The person is on ``page``: forget the refusals named on other pages."""
    refused = st.session_state.get(REFUSED)
    if refused:
        st.session_state[REFUSED] = {k: v for k, v in refused.items()
                                     if k.startswith(f"{page}:")}


def linked_tabs(page: str, labels: Mapping[str, str]) -> Sequence:
    """``st.tabs`` over ``labels`` ({tab name: label}, the names :data:`PAGES` gives the page,
    all of them or some in their order), opened at the tab ``?tab=`` names; choosing a tab
    writes its name to ``?tab=``, so a reload, a shared address or a captured lesson step
    opens the same tab.

    The tabs are a keyed widget whose key stays the same (no new element, no flash, when a
    link or a click changes the tab): a new ``?tab=`` selects its tab through the widget's
    session state. Every tab's body still runs (nothing reads ``.open``); a click reruns the
    page. A name the page has but this view does not show (the builder's Canvas mode has no
    Try it tab) opens the first tab and leaves the address as it is.

    Raises:
        ValueError: the names are not the page's registered tabs (a bug).
    """
    names = tuple(labels)
    registered = PAGES[page].tabs
    if not names or [n for n in registered if n in names] != list(names):
        raise ValueError(f"{page}: tabs {names} differ from tfcore.lessons.PAGES "
                         f"{registered}")
    key = f"{page}.tabs"
    wanted = st.query_params.get(TAB_PARAM)
    if wanted is not None and wanted not in registered:
        st.warning(t("links.ignored", name=TAB_PARAM, value=wanted[:80]),
                   icon=":material/link_off:")
    elif wanted in labels and st.session_state.get(key) != labels[wanted]:
        st.session_state[key] = labels[wanted]          # set before the widget is drawn
    return st.tabs(list(labels.values()), key=key, on_change=_tab_chosen,
                   args=(key, {label: name for name, label in labels.items()}))


def _tab_chosen(key: str, names: Mapping[str, str]) -> None:
    """A tab was clicked: its name goes into the address (``?tab=``)."""
    name = names.get(st.session_state.get(key))
    if name is not None and st.query_params.get(TAB_PARAM) != name:
        st.query_params[TAB_PARAM] = name
