"""The builder's result panels: diagram, summary, problems, deferred weights, code,
import/export and saving. Each takes the spec and renders; engine calls only."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pandas as pd
import streamlit as st

from tfcore.model import (
    STYLES,
    ModelSpec,
    check_values,
    ModelSummary,
    deferred_demo,
    from_json,
    generate,
    import_keras_weights,
    list_specs,
    load_spec,
    open_checked,
    save_spec,
)
from ui.builder.diagram import COMPACT, spec_to_dot
from ui.builder.drafts import ask_load, mark_saved
from ui.builder.editor import problem_text
from ui.builder.fields import labels, parse_ints
from ui.common import error_text, guarded, plain, show_error, t, workspace


def diagram(spec: ModelSpec, summary: ModelSummary, bad: set[str]) -> None:
    rows = {r.name: (r.output_shape, r.params) for r in summary.rows}
    large = len(spec.layers) > COMPACT
    if large:
        st.caption(t("builder.diagram.compact", count=len(spec.layers)))
    st.graphviz_chart(spec_to_dot(spec, rows, bad, t("builder.diagram.params"),
                                  t("builder.diagram.shares"), t("builder.diagram.input"),
                                  lambda n: t("builder.diagram.output", n=n)),
                      width="stretch" if large else "content")


def summary_table(summary: ModelSummary) -> None:
    shares = any(r.shares for r in summary.rows)   # the column only when a layer shares
    frame = pd.DataFrame([{
        t("builder.col.layer"): r.name, t("builder.col.type"): r.type,
        t("builder.col.shape"): r.output_shape,
        t("builder.col.params"): "?" if r.params is None else f"{r.params:,}",
        **({t("builder.col.shares"): r.shares or ""} if shares else {}),
    } for r in summary.rows])
    st.dataframe(frame, hide_index=True, width="stretch")
    cols = st.columns(3)
    cols[0].metric(t("builder.total"), f"{summary.total:,}")
    cols[1].metric(t("builder.trainable"), f"{summary.trainable:,}")
    cols[2].metric(t("builder.non_trainable"), f"{summary.non_trainable:,}")
    if summary.built:
        st.caption(t("builder.variables", count=summary.variables))
    scalars = [r.name for r in summary.rows   # B2's block returns one scalar, as the tutorial
               if summary.built and r.type == "FixedHiddenMLP" and r.output_shape == "()"]
    if scalars:
        st.info(t("builder.scalar_output", layers=", ".join(scalars)), icon=":material/info:")


def problems_panel(summary: ModelSummary) -> None:
    if not summary.problems:
        return
    st.markdown(f"**{t('builder.problems', count=len(summary.problems))}**")
    for problem in summary.problems:
        st.error(problem_text(problem), icon=":material/error:")


def deferred_panel(spec: ModelSpec) -> None:
    """Scenario B8: no weights until the first call."""
    st.info(t("builder.deferred"), icon=":material/hourglass_empty:")
    text = st.text_input(t("builder.deferred_shape"), "20", key="bld.deferred_shape")
    if st.button(t("builder.deferred_call"), key="bld.deferred_call"):
        shape = parse_ints(text, single=False)
        with guarded():
            if not isinstance(shape, list):
                raise ValueError(text)
            demo = deferred_demo(spec, tuple(shape))
            st.caption(t("builder.deferred_before", count=demo.before))
            st.dataframe(pd.DataFrame([{t("builder.col.weight"): n,
                                        t("builder.col.shape"): str(s)} for n, s in demo.after]),
                         hide_index=True, width="stretch")


def code_tab(spec: ModelSpec) -> None:
    style = st.radio(t("builder.code_style"), STYLES, horizontal=True, key="bld.code_style",
                     index=STYLES.index("functional"),
                     format_func=labels({s: t(f"builder.style.{s}") for s in STYLES}))
    try:
        code = generate(spec, style)
    except Exception as exc:  # noqa: BLE001 - shown translated, located
        show_error(exc)
        return
    st.code(code, language="python")
    st.download_button(t("builder.download_code"), code, file_name=f"{spec.name}_{style}.py",
                       mime="text/x-python", key="bld.download_code",
                       icon=":material/download:")


IMPORTED, OPENED = "bld.imported", "bld.opened_note"   # what the last import/open said


def _load(spec: ModelSpec, note: str = IMPORTED, checked: bool = False) -> None:
    """Open a pasted, uploaded or saved spec in the editor, unless a parameter value does
    not fit its field (the form could only show a default in its place). Initial weights
    that are missing or do not fit are dropped (the spec opens as an architecture) and the
    reason is said once under ``note``; ``checked``: they were just written by an import."""
    check_values(spec)
    if spec.weights and not checked:
        spec, problem = open_checked(spec, workspace())
        if problem is not None:
            st.session_state[note] = ("warning", t("spec.weights_dropped",
                                                   problem=error_text(problem)))
    ask_load(spec)


def _said(note: str) -> None:
    """What the last import or open said (once): a success or a warning."""
    said = st.session_state.pop(note, None)
    if said:
        kind, text = said
        (st.warning if kind == "warning" else st.success)(
            text, icon=":material/warning:" if kind == "warning" else ":material/check:")


def _import_upload(upload) -> ModelSpec:
    """A spec from an uploaded JSON spec or ``.keras`` file; a ``.keras`` file's weights
    are kept as the spec's initial weights, and what was imported is said once."""
    data = upload.getvalue()
    if upload.name.endswith(".keras"):
        folder = workspace().uploads
        folder.mkdir(parents=True, exist_ok=True)
        with st.spinner(t("builder.import_load")), \
                tempfile.TemporaryDirectory(dir=folder) as tmp:
            path = Path(tmp) / "model.keras"
            path.write_bytes(data)
            result = import_keras_weights(path, workspace(), shown=upload.name[:200],
                                          stem=Path(upload.name).stem)
        weights = (t("builder.imported_weights", path=plain(result.weights)) if result.weights
                   else t("builder.imported_no_weights"))
        st.session_state[IMPORTED] = ("success", t(
            "builder.imported", name=plain(upload.name[:200]), layers=result.layers,
            params=f"{result.params:,}", weights=weights))
        return result.spec
    return from_json(data.decode("utf-8", errors="replace"))


def io_tab(spec: ModelSpec) -> None:
    _said(IMPORTED)
    st.download_button(t("builder.export_json"), spec.to_json(), file_name=f"{spec.name}.json",
                       mime="application/json", key="bld.export", icon=":material/download:")
    upload = st.file_uploader(t("builder.import_file"), type=["json", "keras"],
                              key="bld.upload", help=t("builder.import_help"))
    if upload is not None and st.button(t("builder.import_load"), key="bld.import_file"):
        with guarded():
            _load(_import_upload(upload), checked=upload.name.endswith(".keras"))
            st.rerun()
    text = st.text_area(t("builder.paste_json"), key="bld.paste", height=120)
    if st.button(t("builder.load_json"), key="bld.load_json") and text.strip():
        with guarded():
            _load(from_json(text))
            st.rerun()


def save_tab(spec: ModelSpec, ok: bool) -> None:
    ws = workspace()
    if st.session_state.get("bld.save_name_for") != spec.name:
        st.session_state["bld.save_name"] = spec.name   # the model's name, not a stale one
        st.session_state["bld.save_name_for"] = spec.name
    name = st.text_input(t("builder.save_name"), key="bld.save_name")
    saved = list_specs(ws)
    replace = True
    if name.strip() in saved:
        replace = st.checkbox(t("builder.save_replace", name=plain(name.strip())),
                              key="bld.save_replace")
    if st.button(t("builder.save"), key="bld.save", disabled=not ok or not replace,
                 icon=":material/save:"):
        with guarded():
            path = save_spec(ws, name, spec)
            mark_saved(spec)
            st.success(t("builder.saved", name=plain(name),
                         path=plain(path.relative_to(ws.root.resolve()).as_posix())))
    saved = list_specs(ws)
    _said(OPENED)
    if saved:
        chosen = st.selectbox(t("builder.saved_models"), saved, key="bld.saved_pick")
        if st.button(t("builder.open_saved"), key="bld.open_saved"):
            with guarded():
                _load(load_spec(ws, chosen), OPENED)
                st.rerun()
