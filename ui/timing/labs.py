"""Timing page panels: the tracing lab (G2, G3, G5) and the AutoGraph viewer (G4).

Both run small curated tf.functions in the server process (they take milliseconds).
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from tfcore.timing import (
    ARG_DTYPES,
    EXAMPLES,
    FUNCTIONS,
    G2_TEXT,
    parse_sequence,
    run_custom,
    run_example,
    run_tracing,
    trusted_code_enabled,
)
from ui.common import guarded, pick, t, teacher_login

TRACE_KEY, AUTOGRAPH_KEY = "timing.trace_result", "timing.autograph_result"


def tracing_panel() -> None:
    """Call a tf.function with a chosen sequence; show call by call what traced."""
    st.markdown(t("timing.trace.intro"))
    name = st.selectbox(t("timing.trace.function"), list(FUNCTIONS), key="timing.trace.fn",
                        format_func=lambda n: pick(FUNCTIONS[n].title))
    lab = FUNCTIONS[name]
    st.code(lab.source, language="python")
    args_text, calls = "", 3
    signature = None
    if lab.takes_argument:
        args_text = st.text_input(t("timing.trace.args"), G2_TEXT, key="timing.trace.args")
        st.caption(t("timing.trace.args_help"))
        c1, c2 = st.columns(2)
        choice = c1.selectbox(t("timing.trace.signature"), ["none", *ARG_DTYPES],
                              key="timing.trace.signature",
                              format_func=lambda d: t("timing.trace.signature.none")
                              if d == "none" else f"tf.TensorSpec(shape=None, dtype=tf.{d})")
        signature = None if choice == "none" else choice
        reduce = c2.toggle(t("timing.trace.reduce"), key="timing.trace.reduce")
    else:
        calls = st.number_input(t("timing.trace.calls"), 1, 20, 3, key="timing.trace.calls")
        reduce = False
    if st.button(t("timing.trace.run"), type="primary", key="timing.trace.run"):
        with guarded():
            args = parse_sequence(args_text) if lab.takes_argument else []
            st.session_state[TRACE_KEY] = run_tracing(name, args, int(calls), signature,
                                                      bool(reduce))
    result = st.session_state.get(TRACE_KEY)
    if result is None or result.function != name:
        return
    st.metric(t("timing.trace.count"), result.trace_count)
    st.dataframe(pd.DataFrame([{
        t("timing.trace.col.call"): call.index,
        t("timing.trace.col.argument"): call.argument,
        t("timing.trace.col.traced"): t("timing.trace.yes") if call.traced else "",
        t("timing.trace.col.print"): " / ".join(call.python_print),
        t("timing.trace.col.tfprint"): " / ".join(call.tf_print),
        t("timing.trace.col.result"): call.result or "",
        t("timing.trace.col.count"): call.trace_count,
        t("timing.trace.col.error"): call.error or "",
    } for call in result.calls]), hide_index=True, width="stretch",
        height=36 * (len(result.calls) + 1) + 3)
    st.subheader(t("timing.trace.concrete"))
    st.code("\n".join(result.concrete_functions) or "-", language="text")
    st.markdown(t("timing.trace.explain"))


def autograph_panel() -> None:
    """Pick a curated function, set its input; show to_code and both results."""
    st.markdown(t("timing.ag.intro"))
    name = st.selectbox(t("timing.ag.example"), list(EXAMPLES), key="timing.ag.example",
                        format_func=lambda n: pick(EXAMPLES[n].title))
    example = EXAMPLES[name]
    value = st.number_input(t("timing.ag.input"), example.low, example.high, example.default,
                            key=f"timing.ag.input.{name}")
    with guarded():
        _show_autograph(_example(name, int(value)))
    st.subheader(t("timing.ag.custom"))
    if not trusted_code_enabled():
        st.caption(t("timing.ag.untrusted"))
        return
    if not teacher_login("timing.ag.teacher"):    # a shared server: teacher only
        return
    source = st.text_area(t("timing.ag.source"), "def f(x):\n    if x > 0:\n        x = -x\n"
                          "    return x\n", key="timing.ag.source")
    if st.button(t("timing.ag.run_custom"), key="timing.ag.run_custom"):
        with guarded():
            _show_autograph(run_custom(source, int(value)))


@st.cache_data(max_entries=64, show_spinner=False)
def _example(name: str, value: int):
    """A curated example's result (conversion is deterministic: computed once)."""
    return run_example(name, value)


def _show_autograph(result) -> None:
    c1, c2 = st.columns(2)
    c1.metric(t("timing.ag.eager"), result.eager_result)
    c2.metric(t("timing.ag.graph"), result.graph_result)
    st.caption(t("timing.ag.ops", ops=", ".join(result.graph_ops) or "-"))
    left, right = st.columns(2)
    with left:
        st.markdown(t("timing.ag.original"))
        st.code(result.source, language="python")
    with right:
        st.markdown(t("timing.ag.converted"))
        st.code(result.converted, language="python", wrap_lines=True)
