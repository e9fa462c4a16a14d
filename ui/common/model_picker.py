"""One widget, shared by pages, to choose a model: the builder's current model, a preset
or a saved model, each choice kept across pages. Returns a ModelSpec, or None while nothing
is chosen: a saved model is never picked for the person, and a remembered (or linked)
"From the builder" whose model this session does not hold falls back to no choice."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from tfcore.model import ModelSpec, get_preset, list_specs, load_spec, preset_names, preset_title
from ui.common.i18n import pick, t
from ui.common.links import linked
from ui.common.memory import choose, kept, recall
from ui.common.resources import workspace
from ui.common.text import plain
from ui.common.widgets import choose_placeholder

# The builder page keeps the model being edited here; other pages read it.
CURRENT_SPEC_KEY = "builder.spec"


def open_linked_model(page: str, key: str) -> str | None:
    """``?preset=NAME`` on ``page`` (a shared link, a lesson step) chooses that preset in the
    picker ``key``; returns the name when it did."""
    name = linked(page, "preset", preset_names())
    if name is not None:
        choose(f"{key}.source", "preset")
        choose(f"{key}.preset", name)
    return name


def pick_model(key: str, default_preset: str = "mlp") -> ModelSpec | None:
    """Render the model source and choice widgets; return the chosen spec (or None)."""
    sources = ["preset", "saved"]
    builder = st.session_state.get(CURRENT_SPEC_KEY)
    if builder is not None:
        sources.insert(0, "builder")
    gone = builder is None and recall(f"{key}.source") == "builder"
    if gone:
        st.warning(t("picker.builder_gone"), icon=":material/link_off:")
    source = kept(st.radio, t("picker.source"), sources, horizontal=True, allowed=sources,
                  index=None if gone else 0,
                  format_func={s: t(f"picker.source.{s}") for s in sources}.get,
                  key=f"{key}.source")
    if source == "builder":
        st.caption(t("picker.builder_model", name=plain(builder.name)))
        return builder
    if source == "saved":
        names = list_specs(workspace())
        if not names:
            st.info(t("picker.no_saved"))
            return None
        name = kept(st.selectbox, t("picker.saved"), names, index=None, allowed=names,
                    placeholder=choose_placeholder(names, many=False), key=f"{key}.saved")
        if name is None:
            return None
        return replace(load_spec(workspace(), name), name=name)   # called by its saved name
    if source is None:
        return None
    names = preset_names()
    name = kept(st.selectbox, t("picker.preset"), names, allowed=names,
                index=names.index(default_preset) if default_preset in names else 0,
                format_func={n: pick(preset_title(n)) for n in names}.get, key=f"{key}.preset")
    return get_preset(name)
