"""Tensors page panels: the GradientTape lab and gradient descent live (M1, M2)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from tfcore.labs import (
    MAX_STEPS_PER_CALL,
    OPTIMIZERS,
    PROBLEMS,
    UNARY_OPS,
    Expression,
    GradientDescentLab,
    evaluate,
    expression_names,
    get_expression,
    problem_names,
    tangent,
)
from ui.common import choose_placeholder, guarded, t
from ui.foundations import charts
from ui.foundations.widgets import labels

LAB = "foundations.gd.lab"
LR_CHOICES = (1e-4, 3e-4, 1e-3, 3e-3, 0.01, 0.03, 0.1, 0.3)
CONTINUOUS_CHUNK = 200


def _variable_inputs(expr: Expression, group: str) -> dict:
    values = {}
    for var in expr.variables:
        key = f"foundations.tape.{group}.{var.name}"
        if var.shape == ():
            values[var.name] = st.slider(t("foundations.tape.variable", name=var.name),
                                         -5.0, 5.0, float(var.default[0]), 0.1, key=key)
        else:
            cols = st.columns(len(var.default))
            values[var.name] = [
                cols[i].number_input(t("foundations.tape.element", name=var.name, i=i),
                                     value=float(v), step=0.5, key=f"{key}.{i}")
                for i, v in enumerate(var.default)]
    return values


def tape_tab() -> None:
    """Pick an expression, set its variables, see value, gradients and the tangent."""
    st.caption(t("foundations.tape.help"))
    names = expression_names() + ["custom"]
    choice = st.selectbox(t("foundations.tape.expression"), names,
                          format_func=labels("foundations.expr"),
                          index=names.index("t2"), key="foundations.tape.expression")
    name = choice
    if choice == "custom":
        ops = st.multiselect(t("foundations.tape.compose"), list(UNARY_OPS),
                             default=["square", "sin"], key="foundations.tape.compose",
                             help=t("foundations.tape.compose_help"),
                             placeholder=choose_placeholder(UNARY_OPS, True))
        name = "custom:" + ",".join(ops)
    with guarded():
        expr = get_expression(name)
        st.markdown(t("foundations.tape.formula", formula=expr.formula))
        values = _variable_inputs(expr, choice)
        result = evaluate(name, values)
        cols = st.columns(1 + len(result.gradients))
        cols[0].metric(t("foundations.tape.value"), f"{result.value:.6g}")
        for col, (var, grad) in zip(cols[1:], result.gradients.items()):
            flat = np.asarray(grad).ravel()
            shown = f"{flat[0]:.6g}" if flat.size == 1 else \
                "(" + ", ".join(f"{g:.6g}" for g in flat) + ")"
            col.metric(t("foundations.tape.gradient", name=var), shown)
        st.code(expr.code, language="python")
        if expr.one_variable:
            var = expr.variables[0].name
            data = tangent(name, float(values[var]))
            st.caption(t("foundations.tape.tangent", x0=data.x0, y0=data.y0, slope=data.slope))
            st.altair_chart(charts.tangent_chart(
                data.xs, data.ys, data.tangent, data.x0, data.y0,
                {"function": t("foundations.chart.function"),
                 "tangent": t("foundations.chart.tangent"),
                 "x": var, "y": t("foundations.chart.y")}), width="stretch")


def _lab(problem: str, optimizer: str, lr: float) -> GradientDescentLab:
    lab = st.session_state.get(LAB)
    if lab is None or lab.problem.name != problem:
        lab = GradientDescentLab(problem, optimizer, lr)
        st.session_state[LAB] = lab
    elif (lab.optimizer_name, lab.learning_rate) != (optimizer, lr):
        lab.set_optimizer(optimizer, lr)
    return lab


def _render_lab(lab: GradientDescentLab) -> None:
    snap = lab.snapshot()
    cols = st.columns(3)
    cols[0].metric(t("foundations.gd.step"), f"{snap.step:,}")
    cols[1].metric(t("foundations.gd.loss"), f"{snap.loss:.6g}")
    cols[2].metric(t("foundations.gd.optimizer_now"),
                   f"{t(f'foundations.optimizer.{snap.optimizer}')} · {snap.learning_rate:g}")
    rows = []
    for name, value in snap.params.items():
        target = snap.target.get(name, ())
        for j, v in enumerate(np.ravel(value)):
            label = name if np.size(value) == 1 else f"{name}[{j}]"
            rows.append({t("foundations.gd.param"): label, t("foundations.gd.value"): float(v),
                         t("foundations.gd.target"): target[j] if j < len(target) else None})
    st.dataframe(pd.DataFrame(rows), hide_index=True)
    names = {"step": t("foundations.chart.step"), "loss": t("foundations.chart.loss"),
             "value": t("foundations.chart.value"), "param": t("foundations.gd.param"),
             "x": t("foundations.chart.year_norm"), "y": t("foundations.chart.price_norm"),
             "target": t("foundations.chart.target"),
             "prediction": t("foundations.chart.prediction"),
             "example": t("foundations.chart.example")}
    left, right = st.columns(2)
    with left:
        if snap.problem == "m1":
            line_x, line_y = lab.line()
            st.altair_chart(charts.fit_chart(snap.x, snap.y, line_x, line_y, names),
                            width="stretch")
        else:
            st.altair_chart(charts.prediction_chart(snap.y, snap.prediction, names),
                            width="stretch")
    with right:
        if len(snap.loss_history):
            st.altair_chart(charts.loss_chart(snap.loss_history, names), width="stretch")
        else:
            st.info(t("foundations.gd.no_steps"))
    if len(snap.loss_history):
        st.altair_chart(charts.params_chart(snap.param_history, snap.target, names),
                        width="stretch")


def gd_tab() -> None:
    """Train M1 or M2 step by step or continuously; parameters, loss and fit move."""
    st.caption(t("foundations.gd.help"))
    problems = problem_names()
    problem = st.radio(t("foundations.gd.problem"), problems, horizontal=True,
                       format_func=labels("foundations.problem"),
                       key="foundations.gd.problem")
    spec = PROBLEMS[problem]
    cols = st.columns(3)
    optimizer = cols[0].selectbox(t("foundations.gd.optimizer"),
                                  list(OPTIMIZERS),
                                  format_func=labels("foundations.optimizer"),
                                  key=f"foundations.gd.optimizer.{problem}")
    lr = cols[1].select_slider(t("foundations.gd.lr"), LR_CHOICES, value=spec.learning_rate,
                               key=f"foundations.gd.lr.{problem}")
    steps = cols[2].number_input(t("foundations.gd.steps"), 1,
                                 MAX_STEPS_PER_CALL, spec.steps, step=100,
                                 key=f"foundations.gd.steps.{problem}")
    with guarded():
        lab = _lab(problem, optimizer, float(lr))
        b1, b2, b3 = st.columns(3)
        if b1.button(t("foundations.gd.run", n=int(steps)), key="foundations.gd.run"):
            lab.run(int(steps))
        if b2.button(t("foundations.gd.reset"), key="foundations.gd.reset"):
            lab.reset()
        continuous = b3.toggle(t("foundations.gd.continuous", n=CONTINUOUS_CHUNK),
                               key="foundations.gd.continuous")
        with st.expander(t("foundations.gd.code")):
            st.code(spec.code, language="python")

        @st.fragment(run_every=1.0 if continuous else None)
        def live() -> None:
            if continuous:
                lab.run(CONTINUOUS_CHUNK)
            _render_lab(lab)

        live()
