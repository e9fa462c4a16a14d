"""The Train form's fit check: the engine's rules (``tfcore.training.fit_problems`` on the
spec's shapes, the worker's refusal; ``choose_for_spec``: the loss the last layer's output
needs) with the page's own wording, which names the form's remedies."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import streamlit as st

from tfcore.model import ModelSpec
from tfcore.training import FitProblem, choose_for_spec, spec_shapes
from tfcore.training import fit_problems as engine_problems
from ui.common import t

# engine key -> the page's message (same params)
PAGE_KEYS = {"train.err.input_shape": "train.shape_mismatch",
             "train.err.classes": "train.classes_mismatch"}


def fit_problems(spec: ModelSpec, info: Any, loss: str | None = None) -> list[FitProblem]:
    """Every reason ``spec`` cannot train on a dataset described by ``info`` with ``loss``,
    keyed for the page."""
    loss = choose_for_spec(spec, loss, info.num_classes).loss     # the loss the run will use
    return [FitProblem(PAGE_KEYS.get(p.key, p.key), p.params)
            for p in engine_problems(spec_shapes(spec), info, loss)]


# ------------------------------------------------ the last layer's output and the loss
FIXES_KEY = "train.activation_fixes"        # "model/layer" -> the activation set here


def _fix_key(spec: ModelSpec, layer: str) -> str:
    return f"{spec.name}/{layer}"


def apply_fixes(spec: ModelSpec | None) -> ModelSpec | None:
    """``spec`` with the activations a person set with a refusal's fix button (this page's
    copy only; the saved model is unchanged), each said in a caption."""
    fixes = st.session_state.get(FIXES_KEY) or {}
    if spec is None or not fixes:
        return spec
    layers = list(spec.layers)
    for index, layer in enumerate(layers):
        fix = fixes.get(_fix_key(spec, layer.name))
        if fix is None:
            continue
        layers[index] = replace(layer, type="Activation", config={"activation": fix}) \
            if layer.type in ("Softmax", "Activation") \
            else replace(layer, config={**dict(layer.config), "activation": fix})
        st.caption(t("train.output_fixed", layer=layer.name, fix=fix))
    return replace(spec, layers=tuple(layers))


def _set_fix(key: str, activation: str) -> None:
    st.session_state[FIXES_KEY] = {**(st.session_state.get(FIXES_KEY) or {}), key: activation}


def loss_choice(spec: ModelSpec, loss: str | None, classes: int | None) -> str | None:
    """The engine's rule for the form's loss: None, with a one-line note when the run will
    use the matching loss (``start_run`` switches it and records why in run.json), or the
    refusal's text, with a button that applies the fix."""
    choice = choose_for_spec(spec, loss, classes)
    p = choice.params
    if choice.verdict == "refuse":
        text = t(choice.key, layer=p["layer"], output=t(f"train.output.{p['output']}"),
                 units=p["units"], asked=p["asked"], fix=choice.fix)
        st.button(t("train.output_fix", layer=p["layer"], fix=choice.fix),
                  key="train.output_fix", icon=":material/build:", on_click=_set_fix,
                  args=(_fix_key(spec, p["layer"]), choice.fix))
        return text
    if choice.verdict == "switch":
        st.info(t(choice.key, layer=p["layer"], output=t(f"train.output.{p['output']}"),
                  loss=choice.loss), icon=":material/auto_fix_high:")
    return None
