"""The builder's editor: inputs, layers with catalog-generated forms, outputs.

The spec being edited lives in ``st.session_state[DRAFT]``; structural edits (add, remove,
move, duplicate, re-use, load) go through button callbacks and bump a revision number so
every widget re-reads the spec; field edits are read back from the widgets on each run.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any, Callable

import streamlit as st

from tfcore.model import (
    BLOCK,
    CATEGORIES,
    DTYPES,
    FUNCTIONAL,
    KINDS,
    SEQUENTIAL,
    InputSpec,
    LayerSpec,
    ModelSpec,
    add_layer_at,
    block_children,
    convert_kind,
    duplicate_layer_at,
    get_type,
    layer_types,
    move_layer_at,
    remove_layer_at,
    rename_layer,
    reuse_layer,
    set_layer_at,
    unique_name,
)
from ui.builder import blocks
from ui.builder.fields import config_form, labels, parse_ints
from ui.common import choose_placeholder, located_text, pick, plain, t

DRAFT, REV, KIND_KEY = "builder.draft", "builder.rev", "bld.kind"
PAGE = 20           # layer editors shown at once; a large imported model is paged
ALL = "all"


def draft() -> ModelSpec:
    return st.session_state[DRAFT]


def replace_draft(spec: ModelSpec) -> None:
    """Replace the whole spec (widgets re-read it)."""
    st.session_state[DRAFT] = spec
    st.session_state[REV] = st.session_state.get(REV, 0) + 1


def _key(*parts: Any) -> str:
    return ".".join(["bld", str(st.session_state.get(REV, 0)), *map(str, parts)])


def _shape_text(shape: tuple) -> str:
    return ", ".join("None" if d is None else str(d) for d in shape)


def _parse_shape(text: str) -> tuple:
    value = parse_ints(text.replace("None", "0"), single=False)
    if isinstance(value, list):
        return tuple(None if d == 0 else d for d in value)
    return (text,) if text.strip() else ()


def _input_row(spec: ModelSpec, index: int, item: InputSpec) -> InputSpec:
    cols = st.columns([2, 2, 2])
    name = cols[0].text_input(t("builder.input_name"), item.name, key=_key("in", index, "name"))
    shape = cols[1].text_input(t("builder.input_shape"), _shape_text(item.shape),
                               key=_key("in", index, "shape"), help=t("builder.input_shape_help"))
    dtype = cols[2].selectbox(t("builder.dtype"), DTYPES, index=DTYPES.index(item.dtype),
                              key=_key("in", index, "dtype"))
    return InputSpec(name.strip(), _parse_shape(shape), dtype)


def inputs_editor(spec: ModelSpec) -> ModelSpec:
    """Input name, shape and dtype; Sequential may have none (deferred initialization)."""
    st.subheader(t("builder.inputs"))
    if spec.kind == SEQUENTIAL:
        deferred = st.checkbox(t("builder.no_input"), value=not spec.inputs,
                               key=_key("deferred"), help=t("builder.no_input_help"))
        if deferred:
            return replace(spec, inputs=())
        item = spec.inputs[0] if spec.inputs else InputSpec("input", (20,))
        return replace(spec, inputs=(_input_row(spec, 0, item),))
    inputs = []
    for index, item in enumerate(spec.inputs):
        new = _input_row(spec, index, item)
        if new.name and new.name != item.name:
            spec = rename_layer(spec, item.name, new.name)
        inputs.append(new)
    spec = replace(spec, inputs=tuple(inputs))
    st.button(t("builder.add_input"), key=_key("add_input"), icon=":material/add:",
              on_click=_add_input)
    return spec


def _add_input() -> None:
    spec = draft()
    name = unique_name(spec, "input")
    replace_draft(replace(spec, inputs=spec.inputs + (InputSpec(name, (None,)),)))


def _op(func: Callable[..., ModelSpec], *args: Any) -> Callable[[], None]:
    return blocks.guarded_edit(draft, replace_draft, func, *args)


def _layer_buttons(path: tuple[str, ...], index: int, count: int) -> None:
    """Full-word buttons, each with its own icon and help, that wrap instead of being cut
    to "D..", "R.." in a narrow column."""
    key = _path_key(path)
    with st.container(horizontal=True, gap="small"):
        st.button(t("builder.up"), key=key("up", index), icon=":material/arrow_upward:",
                  on_click=_op(move_layer_at, path, index, -1), disabled=index == 0,
                  help=t("builder.up_help"), width="content")
        st.button(t("builder.down"), key=key("down", index), icon=":material/arrow_downward:",
                  on_click=_op(move_layer_at, path, index, 1),
                  disabled=index == count - 1, help=t("builder.down_help"), width="content")
        st.button(t("builder.duplicate"), key=key("dup", index),
                  icon=":material/content_copy:", help=t("builder.duplicate_help"),
                  on_click=_op(duplicate_layer_at, path, index), width="content")
        if not path:
            st.button(t("builder.reuse"), key=key("reuse", index), icon=":material/link:",
                      on_click=_op(reuse_layer, index), help=t("builder.reuse_help"),
                      width="content")
        st.button(t("builder.remove"), key=key("rm", index), icon=":material/delete_forever:",
                  on_click=_op(remove_layer_at, path, index),
                  help=t("builder.remove_help"), width="content")


def _path_key(path: tuple[str, ...]) -> Callable[..., str]:
    """Widget keys of the open container: the top level keeps its historic keys."""
    return (lambda *parts: _key(*parts)) if not path else (
        lambda *parts: _key("in_block", *path, *parts))


def _layer_editor(spec: ModelSpec, path: tuple[str, ...], index: int, entry: LayerSpec,
                  problems: list) -> ModelSpec:
    key = _path_key(path)
    siblings = block_children(spec, path)
    name = st.text_input(t("builder.layer_name"), entry.name, key=key("layer", index, "name"))
    names = list(layer_types())
    if entry.type in names:
        new_type = st.selectbox(t("builder.layer_type"), names, index=names.index(entry.type),
                                key=key("layer", index, "type"),
                                format_func=labels({n: _type_label(n) for n in names}))
        if new_type != entry.type:
            replace_draft(set_layer_at(spec, path, index, type=new_type, config={},
                                       shares=None, layers=()))
            st.rerun()
    kind = get_type(entry.type)
    if kind is not None:
        st.markdown(f":gray[{pick(kind.help)}]")
    changes: dict[str, Any] = {}
    if spec.kind == FUNCTIONAL and not path:
        options = [i.name for i in spec.inputs] + [e.name for e in spec.layers
                                                   if e.name != entry.name]
        options += [n for n in entry.inputs if n not in options]
        changes["inputs"] = tuple(st.multiselect(t("builder.layer_inputs"), options,
                                                 default=list(entry.inputs),
                                                 key=key("layer", index, "inputs"),
                                                 placeholder=choose_placeholder(options, True),
                                                 disabled=not options))
    owners = [e.name for e in siblings[:index] if e.type == entry.type and not e.shares
              and e.type != blocks_type()]
    if owners or entry.shares:
        choices = [None, *owners] + ([entry.shares] if entry.shares and
                                     entry.shares not in owners else [])
        changes["shares"] = st.selectbox(
            t("builder.shares"), choices, index=choices.index(entry.shares),
            key=key("layer", index, "shares"), help=t("builder.reuse_help"),
            format_func=labels({v: t("builder.none") if v is None else v for v in choices}))
    if changes.get("shares", entry.shares):
        st.info(t("builder.shared_info", owner=plain(changes.get("shares", entry.shares))))
        changes["config"] = {}
    elif entry.type == blocks_type() or entry.layers:
        st.caption(t("blocks.children", count=len(entry.layers),
                     names=plain(", ".join(c.name for c in entry.layers)) or "-"))
        blocks.block_buttons(path, entry.name, lambda *p: key("layer", index, *p),
                             draft, replace_draft)
    else:
        changes["config"] = config_form(entry, lambda *parts: key("layer", index, *parts))
    if entry.call:
        st.caption(t("builder.call_info"))
        st.code(json.dumps(entry.call, ensure_ascii=False), language="json")
    for problem in problems:
        st.error(problem_text(problem), icon=":material/error:")
    _layer_buttons(path, index, len(siblings))
    spec = set_layer_at(spec, path, index, **changes)
    if name.strip() and name.strip() != entry.name:
        spec = rename_layer(spec, entry.name, name.strip())
    elif not name.strip():
        spec = set_layer_at(spec, path, index, name="")
    return spec


def blocks_type() -> str:
    return BLOCK


def problem_text(problem: Any) -> str:
    """A located problem in the reader's language, as Markdown that shows names and values
    literally (the value is cut to 300 characters)."""
    return located_text(problem)


def _shown_layers(spec: ModelSpec, problems: dict[str, list]) -> list[int]:
    """Indices of the layers to edit now: all of a small model; of a large one (an imported
    application) a page of them, or those whose name or type contains the filter text."""
    count = len(spec.layers)
    if count <= PAGE:
        return list(range(count))
    cols = st.columns([3, 1], vertical_alignment="bottom")
    text = cols[0].text_input(t("builder.layer_filter"), key="bld.layer_filter",
                              help=t("builder.layer_filter_help")).strip().lower()
    found = [n for n, e in enumerate(spec.layers) if not text or text in e.name.lower()
             or text in e.type.lower()]
    pages = max(1, -(-len(found) // PAGE))
    page = int(cols[1].number_input(t("builder.layer_page", pages=pages), min_value=1,
                                    max_value=pages, value=1, step=1, key="bld.layer_page"))
    page = min(max(page, 1), pages)
    shown = found[(page - 1) * PAGE:page * PAGE]
    shown += [n for n, e in enumerate(spec.layers) if problems.get(e.name) and n not in shown]
    st.caption(t("builder.layer_paging", shown=len(shown), found=len(found), count=count,
                 problems=sum(1 for e in spec.layers if problems.get(e.name))))
    return shown


def _type_label(name: str) -> str:
    kind = layer_types()[name]
    return t("builder.type_option", category=t(f"builder.category.{kind.category}"),
             title=pick(kind.title))


def _add_row(path: tuple[str, ...]) -> None:
    """Family, then type (a selectbox filters as one types), then Add (into the open
    block when one is open)."""
    families = [ALL, *[c for c in CATEGORIES if any(lt.category == c
                                                     for lt in layer_types().values())]]
    cols = st.columns([2, 3], vertical_alignment="bottom")   # Add gets its own row: never cut
    family = cols[0].selectbox(t("builder.add_family"), families, key="bld.add_family",
                               format_func=labels({c: t("builder.family_all") if c == ALL
                                                   else t(f"builder.category.{c}")
                                                   for c in families}))
    types = [n for c in CATEGORIES for n, lt in layer_types().items()
             if lt.category == c and family in (ALL, c)]
    cols[1].selectbox(t("builder.add_type"), types, key="bld.add_type",
                      help=t("builder.add_type_help", count=len(types)),
                      format_func=labels({n: _type_label(n) for n in types}))
    st.button(t("builder.add_layer") if not path else t("blocks.add_inside",
                                                        name=plain(path[-1])),
              key="bld.add", icon=":material/add:", type="primary", width="stretch",
              on_click=lambda: _op(add_layer_at, path, st.session_state["bld.add_type"])())


def _all_problems(entry: LayerSpec, problems: dict[str, list]) -> list:
    """The problems of a layer and, for a block, of every layer inside it."""
    found = list(problems.get(entry.name, []))
    for child in entry.layers:
        found += _all_problems(child, problems)
    return found


def layers_editor(spec: ModelSpec, problems: dict[str, list]) -> ModelSpec:
    """One expander per layer of the open container (a page of them for a large model),
    grouping into blocks, then the add-layer row."""
    st.subheader(t("builder.layers"))
    path = blocks.open_path(spec)
    blocks.breadcrumb(path)
    children = block_children(spec, path)
    if not children:
        st.info(t("builder.no_layers") if not path else t("blocks.empty"))
    shown = _shown_layers(spec, problems) if not path else list(range(len(children)))
    for index in shown:
        entry = children[index]
        mine = _all_problems(entry, problems)
        label = t("builder.layer_label", index=index + 1, name=plain(entry.name or "?"),
                  type=plain(entry.type), mark=" ⚠" if mine else "")
        with st.expander(label, expanded=bool(mine)):
            spec = _layer_editor(spec, path, index, entry,
                                 problems.get(entry.name, []) if not entry.layers else mine)
    blocks.group_row(spec, path, _path_key(path), draft, replace_draft)
    _add_row(path)
    return spec


def outputs_editor(spec: ModelSpec) -> ModelSpec:
    if spec.kind != FUNCTIONAL:
        return spec
    options = [e.name for e in spec.layers]
    options += [o for o in spec.outputs if o not in options]
    outputs = st.multiselect(t("builder.outputs"), options, default=list(spec.outputs),
                             key=_key("outputs"), disabled=not options,
                             placeholder=choose_placeholder(options, many=True))
    return replace(spec, outputs=tuple(outputs))


def _convert_kind() -> None:
    replace_draft(convert_kind(draft(), st.session_state[KIND_KEY]))


def header_editor(spec: ModelSpec) -> ModelSpec:
    """Model name and kind (switching kind converts the spec, in a callback)."""
    cols = st.columns(2)
    name = cols[0].text_input(t("builder.model_name"), spec.name, key=_key("model_name"))
    if st.session_state.get(KIND_KEY) != spec.kind:
        st.session_state[KIND_KEY] = spec.kind  # a loaded or imported spec sets the kind
    cols[1].radio(t("builder.kind"), KINDS, horizontal=True, key=KIND_KEY,
                  on_change=_convert_kind,
                  format_func=labels({k: t(f"builder.kind.{k}") for k in KINDS}))
    return replace(spec, name=name.strip() or "model")
