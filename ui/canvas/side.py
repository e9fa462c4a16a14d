"""The canvas's side panel: the selected node's typed, validated form (the builder's own
fields), an input's name/shape/dtype, or the model outputs. Returns the edited spec."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import streamlit as st

from tfcore.model import DTYPES, FUNCTIONAL, ModelSpec, canvas_ops, get_type
from ui.builder import config_form
from ui.common import pick, plain, t

SELECTED = "canvas.selected"


def _shape_text(shape: tuple) -> str:
    return ", ".join("None" if d is None else str(d) for d in shape)


def _parse_shape(text: str) -> tuple | None:
    parts = [p for p in text.replace("(", "").replace(")", "").replace(" ", ",").split(",") if p]
    out: list[int | None] = []
    for part in parts:
        if part == "None":
            out.append(None)
        elif part.isdigit() and int(part) > 0:
            out.append(int(part))
        else:
            return None
    return tuple(out) if out else None


def _input_form(spec: ModelSpec, name: str, key: str) -> ModelSpec:
    index = next(n for n, i in enumerate(spec.inputs) if i.name == name)
    item = spec.inputs[index]
    st.markdown(f"**{plain(name)}** · {t('canvas.input')}")
    new_name = st.text_input(t("builder.input_name"), item.name, key=f"{key}.name").strip()
    text = st.text_input(t("builder.input_shape"), _shape_text(item.shape), key=f"{key}.shape",
                         help=t("builder.input_shape_help"))
    dtype = st.selectbox(t("builder.dtype"), DTYPES, index=DTYPES.index(item.dtype),
                         key=f"{key}.dtype")
    shape = _parse_shape(text)
    if shape is None:
        st.error(t("canvas.bad_shape", text=plain(text)), icon=":material/error:")
        shape = item.shape
    inputs = list(spec.inputs)
    inputs[index] = replace(item, shape=shape, dtype=dtype)
    spec = replace(spec, inputs=tuple(inputs))
    if new_name and new_name != name and _free(spec, new_name):
        spec = canvas_ops.rename(spec, name, new_name)
        st.session_state[SELECTED] = new_name
    return spec


def _free(spec: ModelSpec, name: str) -> bool:
    taken = {i.name for i in spec.inputs} | {e.name for e in spec.all_layers()}
    if name in taken or not name.isidentifier():
        st.error(t("canvas.bad_name", name=plain(name)), icon=":material/error:")
        return False
    return True


def _layer_form(spec: ModelSpec, name: str, key: str) -> ModelSpec:
    entry = next(e for e in spec.layers if e.name == name)
    kind = get_type(entry.type)
    st.markdown(f"**{plain(name)}** · {plain(pick(kind.title) if kind else entry.type)}")
    if kind is not None:
        st.caption(pick(kind.help))
    new_name = st.text_input(t("builder.layer_name"), entry.name, key=f"{key}.name").strip()
    if entry.shares:
        st.info(t("builder.shared_info", owner=plain(entry.shares)))
    elif entry.layers:
        st.caption(t("builder.block_children",
                     names=plain(", ".join(c.name for c in entry.layers))))
        if st.button(t("canvas.ungroup"), key=f"{key}.ungroup", icon=":material/call_split:"):
            return canvas_ops.ungroup(spec, name)
    else:
        config = config_form(entry, lambda *parts: ".".join([key, *map(str, parts)]))
        if config != dict(entry.config):
            spec = canvas_ops.set_config(spec, name, config)
    if spec.kind == FUNCTIONAL and entry.inputs:
        st.caption(t("canvas.takes", names=plain(", ".join(entry.inputs))))
    if new_name and new_name != name and _free(spec, new_name):
        spec = canvas_ops.rename(spec, name, new_name)
        st.session_state[SELECTED] = new_name
    return spec


def side_panel(spec: ModelSpec, selected: str | None, rev: int) -> tuple[ModelSpec, Any]:
    """The form of the selected node; returns the edited spec and a container for that
    node's problems (filled once the edited spec is checked)."""
    st.subheader(t("canvas.selected"))
    key = f"cnv.{rev}.{selected}"
    if selected is None:
        st.caption(t("canvas.select_hint"))
        new = spec
    elif selected == canvas_ops.OUTPUTS:
        outs = ", ".join(spec.outputs) if spec.kind == FUNCTIONAL else (
            spec.layers[-1].name if spec.layers else "")
        st.markdown(f"**{t('canvas.outputs')}**: {plain(outs or '-')}")
        st.caption(t("canvas.outputs_help"))
        new = spec
    elif selected in {i.name for i in spec.inputs}:
        new = _input_form(spec, selected, key)
    else:
        new = _layer_form(spec, selected, key)
    return new, st.container()
