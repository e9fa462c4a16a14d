"""The canvas's side panel: the selected node's typed, validated form (the builder's own
fields), an input's name/shape/dtype, or the model outputs. Returns the edited spec."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import streamlit as st

from tfcore.model import (
    DTYPES,
    FUNCTIONAL,
    ModelSpec,
    CANVAS_BLOCK_INPUT,
    CANVAS_OUTPUTS,
    block_children,
    block_view,
    get_type,
    rename_layer,
    set_layer_at,
    ungroup,
)
from ui.builder import config_form, set_open_block
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
    rename = new_name and new_name != name and _free(spec, new_name)   # its message here
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
    if rename:
        spec = rename_layer(spec, name, new_name)
        st.session_state[SELECTED] = new_name
    return spec


def _free(spec: ModelSpec, name: str) -> bool:
    taken = {i.name for i in spec.inputs} | {e.name for e in spec.all_layers()}
    if name in taken or not name.isidentifier():
        st.error(t("canvas.bad_name", name=plain(name)), icon=":material/error:")
        return False
    return True


def _layer_form(spec: ModelSpec, name: str, key: str, path: tuple[str, ...]) -> ModelSpec:
    children = block_children(spec, path)
    index = next(n for n, e in enumerate(children) if e.name == name)
    entry = children[index]
    kind = get_type(entry.type)
    st.markdown(f"**{plain(name)}** · {plain(pick(kind.title) if kind else entry.type)}")
    if kind is not None:
        st.caption(pick(kind.help))
    new_name = st.text_input(t("builder.layer_name"), entry.name, key=f"{key}.name").strip()
    rename = new_name and new_name != name and _free(spec, new_name)   # its message here
    if entry.shares:
        st.info(t("builder.shared_info", owner=plain(entry.shares)))
    elif entry.layers:
        st.caption(t("builder.block_children",
                     names=plain(", ".join(c.name for c in entry.layers))))
        st.button(t("blocks.open"), key=f"{key}.open", icon=":material/folder_open:",
                  on_click=set_open_block, args=(path + (name,),), type="primary",
                  help=t("blocks.open_help"))
        if st.button(t("canvas.ungroup"), key=f"{key}.ungroup", icon=":material/call_split:"):
            return ungroup(spec, name)
    else:
        config = config_form(entry, lambda *parts: ".".join([key, *map(str, parts)]))
        if config != dict(entry.config):
            spec = set_layer_at(spec, path, index, config=config)
    if spec.kind == FUNCTIONAL and entry.inputs:
        st.caption(t("canvas.takes", names=plain(", ".join(entry.inputs))))
    if rename:
        spec = rename_layer(spec, name, new_name)
        st.session_state[SELECTED] = new_name
    return spec


def side_panel(spec: ModelSpec, selected: str | None, rev: int,
               path: tuple[str, ...] = ()) -> tuple[ModelSpec, Any]:
    """The form of the selected node of the canvas of ``path`` (``()``: the model, else an
    open block); returns the edited spec and a container for that node's problems (filled
    once the edited spec is checked)."""
    st.subheader(t("canvas.selected"))
    key = f"cnv.{rev}.{'/'.join(path)}.{selected}"
    if selected is None:
        st.caption(t("canvas.select_hint_block") if path else t("canvas.select_hint"))
        new = spec
    elif path and selected == CANVAS_BLOCK_INPUT:
        view = block_view(spec, path)
        shape = _shape_text(view.inputs[0].shape) if view.inputs else "?"
        st.markdown(f"**{t('canvas.block_input')}** · (None, {plain(shape)})")
        st.caption(t("canvas.block_input_help", block=plain(path[-1])))
        new = spec
    elif path and selected == CANVAS_OUTPUTS:
        st.markdown(f"**{t('canvas.block_output')}**")
        st.caption(t("canvas.block_output_help", block=plain(path[-1])))
        new = spec
    elif selected == CANVAS_OUTPUTS:
        outs = ", ".join(spec.outputs) if spec.kind == FUNCTIONAL else (
            spec.layers[-1].name if spec.layers else "")
        st.markdown(f"**{t('canvas.outputs')}**: {plain(outs or '-')}")
        st.caption(t("canvas.outputs_help"))
        new = spec
    elif selected in {i.name for i in spec.inputs}:
        new = _input_form(spec, selected, key)
    else:
        new = _layer_form(spec, selected, key, path)
    return new, st.container()
