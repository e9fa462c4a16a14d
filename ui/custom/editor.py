"""The code editor: a file picker, the tutorials' templates, a code editor (CodeMirror,
``ui/custom/code_editor.py``), Save (checked, then loaded) and Delete, the loaded classes
with their kinds, and a "try it" panel. Without trusted code: the templates, read-only."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from tfcore.custom import (
    TEMPLATES,
    TRUSTED_ENV,
    current,
    delete_code,
    ensure_loaded,
    list_codes,
    load_workspace,
    parse_shape,
    read_code,
    save_code,
    trusted_code_enabled,
    try_class,
)
from ui.common import guarded, plain, t, teacher_login, workspace
from ui.custom.code_editor import code_editor, typed_text

NEW = ""
SOURCE, NAME, FILE, TEMPLATE = "custom.source", "custom.name", "custom.file", "custom.template"
GEN = "custom.source_gen"        # bumped whenever the page replaces the editor's text
EDITOR, VIEWER = "custom.editor", "custom.viewer"
EDITOR_HEIGHT = 420


def load_saved_code() -> bool:
    """Load the workspace's saved code when trusted code is on (cheap when unchanged), so
    its layers are catalog types and its losses and metrics Train choices."""
    if not trusted_code_enabled():
        return False
    with guarded():
        return ensure_loaded(workspace().root)
    return False


def _replace_source(text: str) -> None:
    """Put ``text`` into the editor (a new generation: what was typed before is dropped)."""
    st.session_state[SOURCE] = text
    st.session_state[GEN] = int(st.session_state.get(GEN, 0)) + 1


def _open_file() -> None:
    name = st.session_state.get(FILE) or NEW
    if name != NEW:
        _replace_source(read_code(workspace().root, name))
        st.session_state[NAME] = name


def _use_template() -> None:
    template = TEMPLATES[st.session_state.get(TEMPLATE) or "linear"]
    _replace_source(template.source)
    st.session_state[NAME] = template.name
    st.session_state[FILE] = NEW


def custom_code_page() -> None:
    st.title(t("custom.title"))
    st.markdown(t("custom.intro"))
    if not trusted_code_enabled():
        left, right = st.columns([2, 3])
        left.info(t("custom.untrusted", env=TRUSTED_ENV), icon=":material/lock:")
        with right:
            _template_viewer()
        return
    if not teacher_login("custom.teacher"):       # a shared server: teacher only
        return
    load_saved_code()
    left, right = st.columns([3, 2])
    with left:
        _editor()
    with right:
        _loaded_panel()
    _try_panel()


def _editor() -> None:
    root = workspace().root
    files = [NEW] + list_codes(root)
    if st.session_state.get(FILE) not in files:
        st.session_state[FILE] = NEW
    st.selectbox(t("custom.file"), files, key=FILE, on_change=_open_file,
                 format_func=lambda n: t("custom.new_file") if n == NEW else f"{n}.py")
    c1, c2 = st.columns([3, 1], vertical_alignment="bottom")
    with c1:
        _template_picker()
    c2.button(t("custom.use_template"), key="custom.use_template", on_click=_use_template)
    st.session_state.setdefault(SOURCE, TEMPLATES["linear"].source)
    st.session_state.setdefault(GEN, 0)
    st.session_state.setdefault(NAME, "linear")
    st.text_input(t("custom.name"), key=NAME, help=t("custom.name_help"))
    typed = typed_text(st.session_state.get(EDITOR), st.session_state[GEN])
    if typed is not None:                  # the page's text is what was typed last
        st.session_state[SOURCE] = typed
    st.caption(t("custom.source"))
    code_editor(st.session_state[SOURCE], st.session_state[GEN], key=EDITOR,
                label=t("custom.source"), height=EDITOR_HEIGHT)
    b1, b2 = st.columns(2)
    if b1.button(t("custom.save"), key="custom.save", type="primary",
                 icon=":material/save:"):
        with guarded():
            name = str(st.session_state.get(NAME) or "").strip()
            classes = save_code(root, name, st.session_state.get(SOURCE) or "")
            loaded = load_workspace(root)
            problem = loaded.problems.get(name)
            if problem is not None:
                raise problem
            st.success(t("custom.saved", name=plain(name), classes=", ".join(
                f"{c.name} ({t('custom.kind.' + c.kind)}, {t('custom.line', line=c.line)})"
                for c in classes)))
    chosen = st.session_state.get(FILE) or NEW
    if chosen != NEW and b2.button(t("custom.delete"), key="custom.delete",
                                   icon=":material/delete:"):
        with guarded():
            delete_code(root, chosen)
            load_workspace(root)
            st.session_state.pop(FILE, None)
            st.rerun()


def _template_picker() -> str:
    return st.selectbox(t("custom.template"), list(TEMPLATES), key=TEMPLATE,
                        format_func=lambda n: t(f"custom.tpl.{n}",
                                                scenario=TEMPLATES[n].scenario))


def _template_viewer() -> None:
    """The tutorials' templates in the same editor, read-only (no trusted code here)."""
    name = _template_picker()
    st.caption(t("custom.read_only"))
    code_editor(TEMPLATES[name].source, list(TEMPLATES).index(name), key=VIEWER,
                label=t("custom.source"), read_only=True, height=EDITOR_HEIGHT)


def _loaded_panel() -> None:
    st.subheader(t("custom.loaded"))
    loaded = current()
    rows = [{t("custom.col.class"): c.name, t("custom.col.kind"): t(f"custom.kind.{c.kind}"),
             t("custom.col.file"): f"{c.file}.py",
             t("custom.col.use"): t(f"custom.use.{c.kind}", type=c.type_name)}
            for c in sorted(loaded.classes.values(), key=lambda c: (c.file, c.name))]
    if rows:
        st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    else:
        st.caption(t("custom.none_loaded"))
    for name, problem in sorted(loaded.problems.items()):
        st.error(t(problem.key, **problem.params), icon=":material/error:")


def _try_panel() -> None:
    loaded = current()
    if not loaded.classes:
        return
    st.subheader(t("custom.try"))
    names = sorted(loaded.classes)
    c1, c2, c3 = st.columns([2, 2, 1], vertical_alignment="bottom")
    name = c1.selectbox(t("custom.try_class"), names, key="custom.try.class")
    kind = loaded.classes[name].kind
    shape_text = c2.text_input(t("custom.try_shape"), "2, 5", key="custom.try.shape",
                               disabled=kind != "layer", help=t("custom.try_shape_help"))
    if not c3.button(t("custom.try_run"), key="custom.try.run", icon=":material/play_arrow:"):
        return
    with guarded():
        shape = parse_shape(shape_text) if kind == "layer" else (2, 5)
        result = try_class(name, shape)
        _show_trial(result)


def _show_trial(result) -> None:
    output = np.asarray(result.output)
    m1, m2, m3 = st.columns(3)
    m1.metric(t("custom.out_shape"), str(tuple(output.shape)))
    m2.metric(t("custom.out_mean"), f"{float(np.mean(output)):.6g}")
    m3.metric(t("custom.out_sum"), f"{float(np.sum(output)):.6g}")
    if result.kind == "layer":
        st.caption(t("custom.params", trainable=result.trainable_params,
                     non_trainable=result.non_trainable_params))
        if result.constants:
            st.caption(t("custom.constants", names=", ".join(
                f"{name} {shape}" for name, shape in result.constants)))
        st.dataframe(pd.DataFrame([{t("custom.col.weight"): path,
                                    t("custom.col.shape"): str(shape),
                                    t("custom.col.trainable"): trainable,
                                    t("custom.col.values"): np.array2string(
                                        values, precision=4, threshold=12)}
                                   for path, shape, trainable, values in result.weights]),
                     hide_index=True, width="stretch")
    else:
        st.caption(t(f"custom.example.{result.kind}", y_true=result.inputs["y_true"],
                     y_pred=result.inputs["y_pred"]))
        if result.state:
            st.caption(t("custom.state", state=", ".join(
                f"{k} = {v}" for k, v in result.state.items())))
    st.code(np.array2string(output, precision=6, threshold=200), language="text")
