"""The builder's Canvas mode: events from the canvas applied as spec edits, then the canvas
redrawn from the spec, beside the side panel (the selected node's form) and the summary,
problems and code panels of the forms mode."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import streamlit as st

from tfcore.errors import TFLabError
from tfcore.model import (
    CANVAS_BLOCK_INPUT,
    CANVAS_NEW_INPUT,
    CANVAS_OUTPUTS,
    CATEGORIES,
    FUNCTIONAL,
    KINDS,
    ModelSpec,
    ModelSummary,
    apply_canvas_event,
    block_children,
    block_view,
    canvas_drawing,
    convert_kind,
    layer_types,
    summarize,
)
from ui.builder import (
    DRAFT,
    block_breadcrumb,
    block_error_text,
    code_tab,
    io_tab,
    labels,
    open_block_path,
    problem_text,
    problems_panel,
    replace_draft,
    save_tab,
    set_open_block,
    summary_table,
)
from ui.canvas import history
from ui.canvas.component import KEY, check_event, component_events, label_names, model_canvas
from ui.canvas.side import SELECTED, side_panel
from ui.common import CURRENT_SPEC_KEY, kept, linked_tabs, pick, plain, t

MODE, ACK, REV, ERROR = "bld.mode", "canvas.ack", "canvas.rev", "canvas.error"
SIDE = "canvas.side"
HEIGHT = 620


def canvas_mode() -> bool:
    """The Forms/Canvas switch; in Canvas mode draw the whole editor and return True (the
    page then stops), else return False (the page draws its forms)."""
    modes = ["forms", "canvas"]
    mode = kept(st.radio, t("canvas.mode"), modes, horizontal=True, key=MODE, index=0,
                allowed=modes, format_func=labels({m: t(f"canvas.mode.{m}") for m in modes}))
    if mode != "canvas":
        return False
    _page()
    return True


def _edited(spec: ModelSpec) -> None:
    """A canvas edit: a new draft, a history step, widgets re-read the spec."""
    replace_draft(spec)
    history.record(spec)
    st.session_state[REV] = st.session_state.get(REV, 0) + 1


def _apply_events() -> None:
    """Apply the canvas's new events in order (each once: the frontend numbers them)."""
    token, events = component_events(st.session_state.get(KEY))
    if not token:
        return
    ack = st.session_state.get(ACK) or {}
    done = ack.get("seq", 0) if ack.get("token") == token else 0
    for event in events:
        seq = event.get("seq") if isinstance(event, dict) else None
        if not isinstance(seq, int) or isinstance(seq, bool) or seq <= done:
            continue
        done = seq
        try:
            check_event(event)
        except TFLabError as exc:
            st.session_state[ERROR] = exc
            continue
        _apply(event)
    st.session_state[ACK] = {"token": token, "seq": done}


def _apply(event: dict) -> None:
    op = event.get("op")
    if op == "select":
        name = event.get("name")
        st.session_state[SELECTED] = name if isinstance(name, str) else None
        return
    if op == "open":
        _open(event)
        return
    if op in ("undo", "redo"):
        spec = history.step(-1 if op == "undo" else 1)
        if spec is not None:
            replace_draft(spec)
            st.session_state[REV] = st.session_state.get(REV, 0) + 1
        return
    spec = st.session_state[DRAFT]
    try:
        new = apply_canvas_event(spec, open_block_path(spec), event)
    except TFLabError as exc:
        st.session_state[ERROR] = exc
        return
    if new != spec:
        if op == "add":
            before = {x.name for x in spec.all_layers()}
            added = [e.name for e in new.all_layers() if e.name not in before]
            added += [i.name for i in new.inputs if i not in spec.inputs]
            st.session_state[SELECTED] = added[0] if added else None
        _edited(new)


def _open(event: dict) -> None:
    """Open a block (``name``: one of the open level's blocks) or go back out to a level
    of the trail (``path``); anything else changes nothing."""
    spec = st.session_state[DRAFT]
    path = open_block_path(spec)
    if isinstance(event.get("path"), list):
        target = tuple(p for p in event["path"] if isinstance(p, str))
        if target != path[:len(target)]:
            return
    else:
        target = path + (str(event.get("name")),)
    try:
        block_children(spec, target)
    except TFLabError as exc:
        st.session_state[ERROR] = exc
        return
    set_open_block(target)
    st.session_state[SELECTED] = None


def _palette(spec: ModelSpec) -> list[dict[str, Any]]:
    families = []
    if spec.kind == FUNCTIONAL:
        families.append({"family": "model", "label": t("canvas.family.model"), "open": True,
                         "types": [{"name": CANVAS_NEW_INPUT,
                                    "label": t("canvas.new_input")}]})
    for category in CATEGORIES:
        types = [{"name": n, "label": pick(lt.title)} for n, lt in layer_types().items()
                 if lt.category == category]
        if types:
            families.append({"family": category, "label": t(f"builder.category.{category}"),
                             "open": category == "core", "types": types})
    return families


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def node_problems(spec: ModelSpec, summary: ModelSummary) -> dict[str, str]:
    """The first problem of each node, as plain text (the hover title and red outline);
    the model's missing outputs go to the outputs node."""
    ids = {i.name for i in spec.inputs} | {e.name for e in spec.layers}
    out: dict[str, str] = {}
    for problem in summary.problems:
        where = problem.location if problem.location in ids else (
            CANVAS_OUTPUTS if problem.field == "outputs" else None)
        if where and where not in out:
            out[where] = _unescape(problem_text(problem))
    return out


def _graph(view: ModelSpec, summary: ModelSummary, path: tuple[str, ...] = (),
           model: ModelSummary | None = None) -> dict[str, Any]:
    """The drawing of ``view`` (the model, or the block open at ``path`` with its own
    ``summary``); ``model``: the whole model's summary, whose problems come first."""
    shapes = {r.name: r.output_shape for r in summary.rows}
    for item in view.inputs:
        shapes[item.name] = "(None, " + ", ".join("None" if d is None else str(d)
                                                   for d in item.shape) + ")"
    params = {r.name: r.params for r in summary.rows}
    problems = node_problems(view, summary)
    if model is not None:
        problems.update({k: v for k, v in node_problems(view, model).items()
                         if k != CANVAS_OUTPUTS})
    titles = {n: pick(lt.title) for n, lt in layer_types().items()}
    drawn = canvas_drawing(view, shapes, params, problems,
                           title=lambda n: titles.get(n, n) if n != "Input"
                           else t("canvas.input"),
                           params_text=lambda n: t("canvas.params", count=f"{n:,}"),
                           outputs_label=t("canvas.block_output") if path
                           else t("canvas.outputs"))
    for node in drawn["nodes"]:
        if node["id"] == CANVAS_BLOCK_INPUT:
            node["name"], node["title"] = t("canvas.block_input"), plain(path[-1])
    return drawn


def _count(summary: ModelSummary) -> str:
    """The parameter count as text; "?" while a problem stops the model from being built
    (a partial sum would read as the model's count)."""
    return f"{summary.total:,}" if summary.built or not summary.problems else "?"


def _trail(path: tuple[str, ...]) -> list[dict[str, Any]]:
    """The canvas toolbar's way back out: the model, then each open block."""
    if not path:
        return []
    return [{"label": t("blocks.model"), "path": []}] + [
        {"label": name, "path": list(path[:n + 1])} for n, name in enumerate(path)]


def _convert_kind() -> None:
    spec = convert_kind(st.session_state[DRAFT], st.session_state["cnv.kind"])
    _edited(spec)


def _page() -> None:
    history.sync(st.session_state[DRAFT])
    _apply_events()
    spec: ModelSpec = st.session_state[DRAFT]
    if st.session_state.get("cnv.kind") != spec.kind:
        st.session_state["cnv.kind"] = spec.kind
    kind_col, side_col = st.columns([3, 2], vertical_alignment="bottom")
    kind_col.radio(t("builder.kind"), KINDS, horizontal=True, key="cnv.kind",
                   on_change=_convert_kind,
                   format_func=labels({k: t(f"builder.kind.{k}") for k in KINDS}))
    with side_col:
        beside = kept(st.toggle, t("canvas.side_panel"), key=SIDE, value=True,
                      help=t("canvas.side_panel_help"))
    path = open_block_path(spec)
    with st.container():    # always there, so the canvas below keeps its place (and state)
        error = st.session_state.pop(ERROR, None)
        if error is not None:
            st.warning(block_error_text(error), icon=":material/block:")
        block_breadcrumb(path)
    view = block_view(spec, path) if path else spec
    names = {i.name for i in view.inputs} | {e.name for e in view.layers} | {
        CANVAS_OUTPUTS}
    selected = st.session_state.get(SELECTED)
    selected = selected if selected in names else None
    if beside:
        left, right = st.columns([5, 3], gap="medium")
    else:       # the canvas takes the whole width; the panel follows below it
        left, right = st.container(), st.container()
    with right:       # the form first: its edit is drawn on the canvas in the same run
        new, box = side_panel(spec, selected, st.session_state.get(REV, 0), path)
    if new != spec:
        spec = new
        replace_draft(spec)
        history.record(spec)
        path = open_block_path(spec)
        view = block_view(spec, path) if path else spec
    summary = summarize(replace(spec, layout={}))
    inner = summarize(view) if path else summary
    if summary.ok:
        st.session_state[CURRENT_SPEC_KEY] = spec
    with box:
        for problem in summary.problems:
            if problem.location == selected:
                st.error(problem_text(problem), icon=":material/error:")
    with right:
        problems_panel(summary)
        st.subheader(t("builder.summary"))
        summary_table(summary)
    status = t("canvas.status", total=_count(summary), count=len(spec.layers))
    if path:
        status = t("canvas.status_block", block=plain(path[-1]), count=len(view.layers),
                   params=_count(inner), total=_count(summary))
    with left:
        model_canvas(graph=_graph(view, inner, path, summary if path else None),
                     palette=_palette(view), labels=_labels(), selected=selected,
                     ack=st.session_state.get(ACK),
                     can_undo=history.can(-1), can_redo=history.can(1), height=HEIGHT,
                     trail=_trail(path), status=status)
    code, io, save = linked_tabs("builder", {name: t(f"builder.tab.{name}")  # no Try it here
                                             for name in ("code", "io", "save")})
    good = st.session_state.get(CURRENT_SPEC_KEY)
    shown = spec if summary.ok or good is None else good
    with code:
        if shown is not spec:
            st.caption(t("builder.last_good", name=plain(shown.name)))
        code_tab(shown)
    with io:
        io_tab(spec)
    with save:
        save_tab(spec, summary.ok)


def _labels() -> dict[str, str]:
    return {k: t(f"canvas.{k}") for k in label_names()}
