"""One widget, shared by pages, to choose a model: the builder's current model, a preset
or a saved model. Returns a ModelSpec."""

from __future__ import annotations

import streamlit as st

from tfcore.model import ModelSpec, get_preset, list_specs, load_spec, preset_names, preset_title
from ui.common.i18n import pick, t
from ui.common.resources import workspace
from ui.common.text import plain

# The builder page keeps the model being edited here; other pages read it.
CURRENT_SPEC_KEY = "builder.spec"


def pick_model(key: str, default_preset: str = "mlp") -> ModelSpec | None:
    """Render the model source and choice widgets; return the chosen spec (or None)."""
    sources = ["preset", "saved"]
    if st.session_state.get(CURRENT_SPEC_KEY) is not None:
        sources.insert(0, "builder")
    source = st.radio(t("picker.source"), sources, horizontal=True,
                      format_func={s: t(f"picker.source.{s}") for s in sources}.get,
                      key=f"{key}.source")
    if source == "builder":
        spec = st.session_state[CURRENT_SPEC_KEY]
        st.caption(t("picker.builder_model", name=plain(spec.name)))
        return spec
    if source == "saved":
        names = list_specs(workspace())
        if not names:
            st.info(t("picker.no_saved"))
            return None
        name = st.selectbox(t("picker.saved"), names, key=f"{key}.saved")
        return load_spec(workspace(), name)
    names = preset_names()
    index = names.index(default_preset) if default_preset in names else 0
    name = st.selectbox(t("picker.preset"), names, index=index, key=f"{key}.preset",
                        format_func={n: pick(preset_title(n)) for n in names}.get)
    return get_preset(name)
