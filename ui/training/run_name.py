"""The name a run is called by (the Train picker, the Runs table, TensorBoard): the name
typed before Start, else the model's; the job manager makes it unique (``lesson_net 2``)."""

from __future__ import annotations

import streamlit as st

from ui.common import kept, t


def run_name_input(model_name: str) -> str:
    """A text field for the run's name (empty: the model's name, shown as its placeholder)."""
    typed = kept(st.text_input, t("train.run_name"), key="train.run_name",
                 placeholder=model_name, help=t("train.run_name_help"), max_chars=100)
    return " ".join(str(typed or "").split()) or model_name
