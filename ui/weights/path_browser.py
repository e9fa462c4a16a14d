"""The weights lab's path browser (scenario B4): pick a block, an inner block, a layer,
then a variable, one level at a time, and see that variable's path, shape, dtype and
values, however deep in nested blocks it sits."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

from tfcore.weights import (
    PathStep,
    WeightTable,
    first_leaf,
    next_steps,
    variable_at,
    variable_values,
)
from ui.common import plain, t
from ui.weights import actions as act

LEVEL = "weights.pb.level.{}"
MAX_SHOWN = 200


def _level_label(depth: int, steps: list[PathStep]) -> str:
    kinds = {s.kind for s in steps}
    kind = "variable" if kinds == {"variable"} else "layer" if "block" not in kinds else "block"
    return t(f"paths.level.{kind}", depth=depth + 1)


def _choose(table: WeightTable) -> tuple[str, ...]:
    """One selectbox per level; a choice that no longer exists below the level above
    (another block chosen, another model) falls back to that block's first variable."""
    chosen: list[str] = []
    steps = next_steps(table)
    depth = 0
    while True:
        names = [s.name for s in steps]
        key = LEVEL.format(depth)
        if st.session_state.get(key) not in names:
            st.session_state[key] = first_leaf(table, chosen)[depth]
        kinds = {s.name: s.kind for s in steps}
        shown = {s.name: t(f"paths.kind.{s.kind}", name=s.name) for s in steps}
        name = st.selectbox(_level_label(depth, steps), names, key=key, format_func=shown.get)
        chosen.append(name)
        if kinds[name] == "variable":
            return tuple(chosen)
        steps = next_steps(table, chosen)
        depth += 1


def _values(values: np.ndarray) -> None:
    rounded = np.round(values, 4) if np.issubdtype(values.dtype, np.floating) else values
    if rounded.ndim <= 2 and rounded.size <= MAX_SHOWN:
        frame = pd.DataFrame(rounded.reshape(1, -1) if rounded.ndim < 2 else rounded)
        st.dataframe(frame, width="stretch", key="weights.pb.values")
    else:
        st.code(np.array2string(rounded, threshold=MAX_SHOWN, precision=4), language="text")


def _inspect(path: str) -> None:
    st.session_state[act.VAR] = path


def path_browser(model: Any, table: WeightTable) -> None:
    """Block -> inner block -> layer -> variable, then the variable's facts and values."""
    st.subheader(t("paths.title"))
    st.caption(t("paths.intro"))
    with st.container(border=True):
        left, right = st.columns(2)
        with left:
            parts = _choose(table)
        info = variable_at(table, parts)
        with right:
            st.markdown(t("paths.path", path=plain(info.path)))
            st.markdown(t("paths.facts", shape=str(info.shape), dtype=info.dtype,
                          params=info.params, trainable=t(f"paths.trainable.{info.trainable}")))
            st.button(t("paths.inspect"), key="weights.pb.inspect", on_click=_inspect,
                      args=(info.path,), icon=":material/search:", help=t("paths.inspect_help"))
        _values(variable_values(model, info.path))
