"""Form values that survive page switches.

Streamlit drops a widget's state when a run does not draw it (another page is open), so a
widget's key cannot hold a value across pages. Pages keep the values here instead, under
their own names, and pass them back as the widgets' defaults:

    epochs = st.number_input(label, 1, 100, recall("train.epochs", 5), key="train.epochs")
    remember("train.epochs", epochs)
"""

from __future__ import annotations

from typing import Any, Callable

import streamlit as st

MEMORY_KEY = "memory"       # session_state[MEMORY_KEY]: {name: value}; never a widget key


def _store() -> dict:
    store = st.session_state.get(MEMORY_KEY)
    if not isinstance(store, dict):
        store = st.session_state[MEMORY_KEY] = {}
    return store


def recall(name: str, default: Any = None, allowed: Any = None) -> Any:
    """The remembered value of ``name``, or ``default`` when there is none or it is not
    in ``allowed`` (a collection of valid values)."""
    value = _store().get(name, default)
    if allowed is not None and value not in allowed:
        return default
    return value


def remember(name: str, value: Any) -> Any:
    """Keep ``value`` under ``name`` for the rest of the session; returns it."""
    _store()[name] = value
    return value


def choose(key: str, value: Any) -> Any:
    """Make ``value`` the choice of the widget ``key`` (and remember it across pages), before
    the widget is drawn in this run: a link, a lesson step, an upload choosing for the
    person. Set through session state, so the browser is sent the new value.

    Popping the key instead (drawing the widget from a new default) left the browser showing
    the old choice, because a keyed widget keeps its identity: the Weights lab showed the
    lesson's previous preset by name over the new model's numbers, and the next click
    anywhere sent the old choice back and switched the model to it."""
    remember(key, value)
    st.session_state[key] = value
    return value


def remembered(prefix: str = "") -> dict:
    """A copy of every remembered value whose name starts with ``prefix``."""
    return {k: v for k, v in _store().items() if k.startswith(prefix)}


def kept(widget: Callable[..., Any], *args: Any, key: str, allowed: Any = None,
         **kwargs: Any) -> Any:
    """Draw ``widget(*args, key=key, **kwargs)`` with its value kept across pages: the
    remembered value (if still in ``allowed``) is the widget's default, so it is what the
    widget starts from when Streamlit dropped its state. Pass the widget's own default by
    keyword (``value=``, ``index=``, ``default=``), not by position.

    The remembered value is the default even while session state holds the value (a
    link's or a step's choice, :func:`choose`): the browser shows the session state's
    value only if it draws the run that set it. On a busy machine a second run can replace
    the first before the browser draws it; the widget then started from its default and
    sent that back with the next click (a shared link's 300 epochs and run name trained as
    5 epochs, unnamed). A keyed widget's identity does not depend on its default."""
    store = _store()
    if key in store and (allowed is None or store[key] in allowed):
        _as_default(widget, args, kwargs, store[key])
    return remember(key, widget(*args, key=key, **kwargs))


def owned(key: str, options: Any, default: Any, owner: str, labels: str = "") -> None:
    """Before drawing the choice widget ``key`` whose options belong to one object (a run's
    checkpoints): when the object changes (``owner``, e.g. the run's folder) or the value
    left is not among ``options``, the widget starts again at ``default``; when only what
    its labels say changed (``labels``, e.g. which checkpoint is the latest), its value is
    sent again so that the browser shows the new label (a keyed choice widget keeps its
    identity, and the browser its old label, otherwise).

    Without this, a checkpoint picked on one run was kept on the next run whenever that
    run had a checkpoint with the same number: ckpt-4 stayed chosen on a run whose latest
    is ckpt-8, labelled "latest" from the run before."""
    mark = f"{key}.of"
    held = st.session_state.get(mark)
    moved = isinstance(held, tuple) and held[0] != owner     # a value set before the
    if moved or st.session_state.get(key) not in options:    # first draw (a link) is kept
        st.session_state[key] = default
    elif isinstance(held, tuple) and held[1] != labels:
        resend(key)
    st.session_state[mark] = (owner, labels)


def resend(key: str) -> None:
    """Set the choice widget ``key``'s value again, unchanged, before it is drawn, so that
    its draw sends the value to the browser with its current label. A keyed choice widget
    keeps its identity across reruns and the browser its old label otherwise (a language
    switch, a checkpoint that stopped being the latest)."""
    st.session_state[key] = st.session_state[key]


def _as_default(widget: Callable[..., Any], args: tuple, kwargs: dict, value: Any) -> None:
    kind = getattr(widget, "__name__", "")
    if kind in ("selectbox", "radio"):
        options = list(kwargs.get("options", args[1] if len(args) > 1 else []))
        if value in options:
            kwargs["index"] = options.index(value)
    elif kind == "multiselect":
        kwargs["default"] = value
    else:
        kwargs["value"] = value
