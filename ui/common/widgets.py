"""Texts Streamlit would otherwise show in English inside select widgets.

``st.selectbox`` and ``st.multiselect`` draw their own placeholder ("Choose an option",
"Choose options", "No options to select") when no ``placeholder=`` is given, and the
frontend has no translation for them; every multiselect, and every selectbox that can be
empty, passes ``placeholder=choose_placeholder(options, many)`` instead.

A widget with no options is disabled by Streamlit only when it shows its own placeholder,
so callers whose options can be empty also pass ``disabled=not options``.
"""

from __future__ import annotations

from collections.abc import Collection

from ui.common.i18n import t


def choose_placeholder(options: Collection, many: bool) -> str:
    """The translated placeholder: "no options" when ``options`` is empty, otherwise
    "choose options" (``many``, a multiselect) or "choose an option" (a selectbox)."""
    if not len(options):
        return t("common.placeholder.none")
    return t("common.placeholder.choose_many" if many else "common.placeholder.choose_one")
