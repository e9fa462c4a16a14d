"""One translation function for every visible string, English and Simplified Chinese.

Catalogs live in ``ui/common/locales/<lang>/<area>.json`` (the pages' texts) and
``tfcore/locales/<lang>/<area>.json`` (the engine's: its errors, layers, presets, datasets;
see :mod:`tfcore.messages`), flat ``key: text`` maps merged into one catalog per language.
Every area file exists in both languages with the same keys (a test checks). Keys are
unique across areas and both folders, and start with the area name, e.g. ``home.title``.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

import streamlit as st

from ui.common.memory import resend
from ui.common.st_compat import choice_widget_keys, get_script_run_ctx
from ui.common.text import plain

import tfcore.messages as messages
from tfcore.messages import Names

LOCALES_DIR = Path(__file__).resolve().parent / "locales"
LOCALE_DIRS = (messages.LOCALES_DIR, LOCALES_DIR)   # the engine's keys, then the pages'
LANGUAGES = {"en": "English", "zh": "简体中文"}
DEFAULT_LANG = "en"
STATE_KEY = "lang"  # the session's language; not a widget key, so it survives page switches
WIDGET_KEY = "lang_widget"
IGNORED_KEY = "lang.ignored"  # a link's ?lang= that names no language, warned about once


@lru_cache(maxsize=None)
def catalog(lang: str) -> Mapping[str, str]:
    """All keys of one language, merged from the engine's and the pages' area files."""
    merged: dict[str, str] = dict(messages.catalog(lang))
    for path in sorted((LOCALES_DIR / lang).glob("*.json")):
        merged.update(json.loads(path.read_text(encoding="utf-8")))
    return merged


_MEMO = "_tflab_lang"      # on the script run context: (that run's cursors, language)


def current_lang() -> str:
    """The language chosen in this session (sidebar or ``?lang=``).

    Read from session state once per script run and remembered on the run's context (keyed
    by its ``cursors`` dict, which Streamlit replaces at the start of every run): each
    session-state read takes locks and checks, and a page calls ``t()`` hundreds of
    times per run (7 % of a classroom server's time before, bench_sessions + py-spy)."""
    ctx = get_script_run_ctx(suppress_warning=True)
    memo = getattr(ctx, _MEMO, None)
    if memo is not None and memo[0] is ctx.cursors:
        return memo[1]
    lang = st.session_state.get(STATE_KEY, DEFAULT_LANG)
    lang = lang if lang in LANGUAGES else DEFAULT_LANG
    if ctx is not None:
        setattr(ctx, _MEMO, (ctx.cursors, lang))
    return lang


def _set_lang(lang: str) -> None:
    st.session_state[STATE_KEY] = lang
    ctx = get_script_run_ctx(suppress_warning=True)
    if ctx is not None:
        setattr(ctx, _MEMO, None)


def t(key: str, /, **params: Any) -> str:
    """The text of ``key`` in the current language, formatted with ``params`` (engine texts
    rendered, names joined: see :func:`_shown`).

    ``key`` is positional-only, so a parameter may be called ``key`` (or anything else)
    without colliding with it. A key missing from the catalog shows as the key itself,
    which the i18n tests catch.
    """
    lang = current_lang()
    text = catalog(lang).get(key)
    if text is None:
        text = catalog(DEFAULT_LANG).get(key, key)
    if not params:
        return text
    return text.format(**{k: _shown(v, lang) for k, v in params.items()})


def _shown(value: Any, lang: str) -> Any:
    """An engine text parameter rendered through :func:`t` (its key may be a page's), names
    (:class:`tfcore.messages.Names`) joined with the language's separator, anything else as
    is."""
    if isinstance(value, messages.Text):
        return pick(value)
    if isinstance(value, messages.Names):
        return messages.SEPARATORS.get(lang, ", ").join(value.items)
    return value


def metric_label(name: str) -> str:
    """How a chart names a Keras metric (``loss`` -> "Loss"): the catalog's ``metric.<name>``;
    ``val_<name>`` reads as validation; a name the catalog lacks (a user-written metric)
    shows as written. Code views keep the Keras identifiers."""
    texts = catalog(current_lang())
    if f"metric.{name}" in texts:
        return texts[f"metric.{name}"]
    if name.startswith("val_") and f"metric.{name[4:]}" in texts:
        return t("metric.val", name=texts[f"metric.{name[4:]}"])
    return name


def pick(texts: Mapping[str, str] | str | None) -> str:
    """An engine text in the current language: a :class:`tfcore.messages.Text` (key and
    params, rendered by :func:`t`) or a ``{"en": ..., "zh": ...}`` map."""
    if texts is None:
        return ""
    if isinstance(texts, str):
        return texts
    if isinstance(texts, messages.Text):
        return t(texts.key, **texts.params)
    return texts.get(current_lang()) or texts.get(DEFAULT_LANG) or ""


def init_language() -> str:
    """Set the session language from ``?lang=`` on first run; keep it afterwards."""
    if STATE_KEY not in st.session_state:
        wanted = st.query_params.get("lang", DEFAULT_LANG)
        if wanted not in LANGUAGES:             # named by the language box (sidebar)
            st.session_state[IGNORED_KEY] = wanted[:80]
        _set_lang(wanted if wanted in LANGUAGES else DEFAULT_LANG)
    return current_lang()


def relabel_choices() -> list[str]:
    """Set every choice widget's value again, unchanged, so that its next draw sends it to
    the browser under the new language's label. Without this a keyed selectbox kept showing
    the old language's label (the builder's "Start from" read 手写数字多层感知机（M3） in
    English) and a radio showed no choice. Call from a widget callback only (before any
    widget is drawn). Returns the keys set."""
    keys = [k for k in choice_widget_keys(list(st.session_state.keys()))
            if not k.startswith(WIDGET_KEY)]
    for key in keys:
        resend(key)
    return keys


def language_selector() -> None:
    """The sidebar language switch; mirrors the choice into the URL (``?lang=``).

    The box is drawn with the session's language as its default, under a key that names
    that language, and its value is never set through session state: a box whose value was
    set through session state before it was drawn could report its first option (English)
    back with a later rerun (seen after a file upload on a Chinese page, in a full parallel
    test run), and its change callback then switched the page to English. A language
    chosen elsewhere (a link, a lesson step) draws a new box.

    On a switch every choice widget of the page is given its value again (see
    :func:`relabel_choices`), so the browser shows it in the new language."""
    lang = current_lang()
    key = f"{WIDGET_KEY}.{lang}"

    def _changed() -> None:
        chosen = st.session_state.get(key)
        if chosen in LANGUAGES and chosen != lang:
            _set_lang(chosen)
            relabel_choices()

    names = list(LANGUAGES)
    st.sidebar.selectbox(
        t("app.language"),
        options=names,
        index=names.index(lang),
        format_func=LANGUAGES.__getitem__,
        key=key,
        on_change=_changed,
    )
    ignored = st.session_state.pop(IGNORED_KEY, None)
    if ignored is not None:
        st.sidebar.warning(t("app.lang_ignored", value=plain(ignored),   # a link's text
                             choices=Names(LANGUAGES)), icon=":material/link_off:")
    if st.query_params.get("lang") != current_lang():
        st.query_params["lang"] = current_lang()
