"""Tensors page panels: create tensors, apply catalog operations, save and load arrays."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from tfcore.labs import (
    CREATORS,
    DTYPES,
    OPS,
    TensorResult,
    apply_op,
    create_tensor,
    list_saved,
    load_arrays,
    save_arrays,
)
from ui.common import choose_placeholder, guarded, t, workspace
from ui.foundations.widgets import labels

STORE = "foundations.tensors.store"
LAST = "foundations.tensors.last"


def tensor_store() -> dict:
    """The session's named tensors (name -> TensorResult), seeded with two examples."""
    if STORE not in st.session_state:
        st.session_state[STORE] = {
            "A": create_tensor("constant", text="1 2; 3 4"),
            "B": create_tensor("ones", shape="2, 3"),
        }
    return st.session_state[STORE]


def _next_name(store: dict) -> str:
    i = len(store) + 1
    while f"T{i}" in store:
        i += 1
    return f"T{i}"


def _values_frame(values: np.ndarray) -> pd.DataFrame:
    array = np.asarray(values)
    if array.ndim == 0:
        array = array.reshape(1, 1)
    elif array.ndim == 1:
        array = array.reshape(1, -1)
    elif array.ndim > 2:
        array = array.reshape(-1, array.shape[-1])
    return pd.DataFrame(array, columns=[str(i) for i in range(array.shape[1])])


def show_tensor(name: str, result: TensorResult) -> None:
    """Name, shape, dtype, device, the TF call and the values of one tensor."""
    st.markdown(t("foundations.tensor.summary", name=name, shape=list(result.shape),
                  dtype=result.dtype, device=result.device))
    st.code(f"{name} = {result.code}", language="python")
    st.dataframe(_values_frame(result.values), hide_index=True)


def _creator_params(kind: str) -> dict:
    if kind == "constant":
        return {"text": st.text_area(t("foundations.create.values"), "1 2; 3 4",
                                     help=t("foundations.create.values_help"), height=80,
                                     key="foundations.create.text")}
    if kind == "range":
        cols = st.columns(3)
        return {"start": cols[0].number_input(t("foundations.create.start"), value=0.0),
                "limit": cols[1].number_input(t("foundations.create.limit"), value=6.0),
                "delta": cols[2].number_input(t("foundations.create.delta"), value=1.0)}
    params = {"shape": st.text_input(t("foundations.create.shape"), "2, 3",
                                     key="foundations.create.shape")}
    if kind in ("uniform", "normal"):
        cols = st.columns(3)
        names = ("minval", "maxval") if kind == "uniform" else ("mean", "stddev")
        params["a"] = cols[0].number_input(t(f"foundations.create.{names[0]}"), value=0.0)
        params["b"] = cols[1].number_input(t(f"foundations.create.{names[1]}"), value=1.0)
        params["seed"] = cols[2].number_input(t("foundations.create.seed"), value=0, step=1)
    return params


def create_panel() -> None:
    """Widgets that create a tensor with one of the creators and keep it by name."""
    store = tensor_store()
    st.subheader(t("foundations.create.header"))
    left, right = st.columns(2)
    kind = left.selectbox(t("foundations.create.kind"), list(CREATORS),
                          format_func=labels("foundations.creator"),
                          key="foundations.create.kind")
    dtype = right.selectbox(t("foundations.create.dtype"), DTYPES,
                            key="foundations.create.dtype")
    params = _creator_params(kind)
    if st.button(t("foundations.create.button"), key="foundations.create.go"):
        with guarded():
            name = _next_name(store)
            store[name] = create_tensor(kind, dtype=dtype, **params)
            st.session_state[LAST] = name


def ops_panel() -> None:
    """Pick an operation from the catalog, its input tensors and parameters; apply it."""
    store = tensor_store()
    st.subheader(t("foundations.ops.header"))
    names = list(store)
    op_name = st.selectbox(t("foundations.ops.op"), list(OPS),
                           format_func=labels("foundations.op"), key="foundations.ops.op")
    op = OPS[op_name]
    cols = st.columns(op.arity + len(op.params))
    inputs = [cols[i].selectbox(t("foundations.ops.input", n=i + 1), names,
                                index=min(i, len(names) - 1), key=f"foundations.ops.in{i}")
              for i in range(op.arity)]
    params = {}
    for j, param in enumerate(op.params):
        col = cols[op.arity + j]
        if param == "axis":
            params["axis"] = col.text_input(t("foundations.ops.axis"),
                                            "0" if op_name == "concat" else "",
                                            help=t("foundations.ops.axis_help"),
                                            key=f"foundations.ops.axis.{op_name}")
        elif param == "shape":
            params["shape"] = col.text_input(t("foundations.ops.shape"), "-1",
                                             key="foundations.ops.shape")
        elif param == "dtype":
            params["dtype"] = col.selectbox(t("foundations.ops.dtype"), DTYPES,
                                            index=2, key="foundations.ops.dtype")
    if st.button(t("foundations.ops.apply"), key="foundations.ops.go"):
        with guarded():
            result = apply_op(op_name, [store[n] for n in inputs], inputs, **params)
            name = _next_name(store)
            store[name] = result
            st.session_state[LAST] = name


def tensors_tab() -> None:
    """The whole tensors tab: create, operate, and the list of tensors."""
    st.caption(t("foundations.tensors.help"))
    left, right = st.columns(2)
    with left:
        create_panel()
    with right:
        ops_panel()
    store = tensor_store()
    last = st.session_state.get(LAST)
    if last in store:
        st.success(t("foundations.ops.done", name=last, code=store[last].code))
    st.subheader(t("foundations.tensors.list"))
    for name, result in reversed(list(store.items())):
        with st.container(border=True):
            show_tensor(name, result)
    if st.button(t("foundations.tensors.clear"), key="foundations.tensors.clear"):
        st.session_state.pop(STORE, None)
        st.session_state.pop(LAST, None)
        st.rerun()


def saving_tab() -> None:
    """Save tensors as .npy/.npz in the workspace, load them back; object arrays refused."""
    store = tensor_store()
    ws = workspace()
    st.markdown(t("foundations.save.why"))
    kind = st.radio(t("foundations.save.kind"), ["tensor", "list", "dict"], horizontal=True,
                    format_func=labels("foundations.save.kind"),
                    key="foundations.save.kind")
    names = list(store)
    if kind == "tensor":
        chosen = [st.selectbox(t("foundations.save.one"), names, key="foundations.save.one")]
    else:
        chosen = st.multiselect(t("foundations.save.many"), names, default=names[:2],
                                key="foundations.save.many",
                                placeholder=choose_placeholder(names, many=True))
    file_name = st.text_input(t("foundations.save.name"), f"my_{kind}",
                              key=f"foundations.save.name.{kind}")
    left, right = st.columns(2)
    if left.button(t("foundations.save.button"), key="foundations.save.go"):
        with guarded():
            data = {"tensor": lambda: store[chosen[0]].values,
                    "list": lambda: [store[n].values for n in chosen],
                    "dict": lambda: {n: store[n].values for n in chosen}}[kind]()
            saved = save_arrays(ws, file_name, data)
            st.success(t("foundations.save.saved", path=saved.relative))
    if right.button(t("foundations.save.object"), key="foundations.save.object"):
        with guarded():
            save_arrays(ws, "object_demo", np.array([1, "two", None], dtype=object))
    st.subheader(t("foundations.load.header"))
    files = list_saved(ws)
    if not files:
        st.info(t("foundations.load.none"))
        return
    path = st.selectbox(t("foundations.load.file"), files, key="foundations.load.file")
    if st.button(t("foundations.load.button"), key="foundations.load.go"):
        with guarded():
            st.session_state["foundations.load.result"] = (path, load_arrays(ws, path))
    loaded = st.session_state.get("foundations.load.result")
    if loaded and loaded[0] == path:
        data = loaded[1]
        items = ({"array": data} if isinstance(data, np.ndarray) else
                 {f"[{i}]": a for i, a in enumerate(data)} if isinstance(data, list) else data)
        st.markdown(t("foundations.load.kind", kind=type(data).__name__, count=len(items)))
        for key, array in items.items():
            st.markdown(t("foundations.load.entry", entry=key, shape=list(array.shape),
                          dtype=array.dtype.name))
            st.dataframe(_values_frame(array), hide_index=True)
