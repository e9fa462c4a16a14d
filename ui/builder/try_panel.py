"""The builder's "Try it" panel (scenario B1): run the model on a random input of a chosen
shape and seed, and show the output tensor's shape and values."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from tfcore.errors import TFLabError
from tfcore.model import ModelSpec, default_shapes, try_it
from ui.builder.blocks import error_text
from ui.common import plain, t

SHAPES_FOR, RESULT = "bld.try.for", "bld.try.result"
SHOWN_ROWS = 50


def _shape_text(shape: tuple[int, ...]) -> str:
    return ", ".join(str(d) for d in shape)


def _shape_keys(spec: ModelSpec) -> list[str]:
    """One text box per input, refilled with the default shape when the inputs change."""
    defaults = [_shape_text(s) for s in default_shapes(spec)]
    keys = [f"bld.try.shape.{n}" for n in range(len(defaults))]
    if st.session_state.get(SHAPES_FOR) != defaults:
        for key, text in zip(keys, defaults):
            st.session_state[key] = text
        st.session_state[SHAPES_FOR] = defaults
    return keys


def _run(spec: ModelSpec, keys: list[str]) -> None:
    texts = [str(st.session_state.get(k, "")) for k in keys]
    seed = int(st.session_state.get("bld.try.seed", 0))
    try:
        result = try_it(spec, texts, seed=seed)
    except TFLabError as exc:
        st.session_state[RESULT] = (spec.to_json(indent=None), exc)
        return
    st.session_state[RESULT] = (spec.to_json(indent=None), result)


def _values(values: np.ndarray) -> None:
    """A table for a vector or matrix (the first rows of a long one), text otherwise."""
    if values.ndim == 0:
        st.code(str(values.item()), language="text")
    elif values.ndim <= 2:
        matrix = values.reshape(1, -1) if values.ndim == 1 else values
        st.dataframe(pd.DataFrame(matrix[:SHOWN_ROWS]), width="stretch")
        if len(matrix) > SHOWN_ROWS:
            st.caption(t("tryit.rows_cut", shown=SHOWN_ROWS, total=len(matrix)))
    else:
        st.code(np.array2string(values, precision=4, threshold=400, suppress_small=True),
                language="text")


def try_panel(spec: ModelSpec) -> None:
    """Shapes (batch first) and seed, a Run button, then the output(s) of the last run of
    this same model."""
    st.caption(t("tryit.intro"))
    keys = _shape_keys(spec)
    names = [i.name for i in spec.inputs] or [t("tryit.deferred_input")]
    cols = st.columns([3, 1], vertical_alignment="bottom")
    for key, name in zip(keys, names):
        cols[0].text_input(t("tryit.shape", name=plain(name)), key=key,
                           help=t("tryit.shape_help"))
    cols[1].number_input(t("tryit.seed"), min_value=0, max_value=2**31 - 1, value=0, step=1,
                         key="bld.try.seed")
    st.button(t("tryit.run"), key="bld.try.run", icon=":material/play_arrow:", type="primary",
              on_click=_run, args=(spec, keys))
    kept = st.session_state.get(RESULT)
    if not kept or kept[0] != spec.to_json(indent=None):
        return
    result = kept[1]
    if isinstance(result, TFLabError):
        st.error(error_text(result), icon=":material/error:")
        return
    st.caption(t("tryit.ran", shapes=", ".join(str(s) for s in result.input_shapes),
                 seed=result.seed))
    for number, (values, shape) in enumerate(zip(result.rounded(4), result.output_shapes)):
        st.markdown(t("tryit.output", number=number + 1, shape=str(shape),
                      dtype=str(values.dtype)))
        _values(values)
