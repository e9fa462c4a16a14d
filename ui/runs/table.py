"""Runs page: the runs table, sized for a projector.

At 1280 px the table shows the columns a class reads (name, state, model, dataset, steps,
final training loss and validation accuracy) in widths that fit without a sideways scroll;
the others (start, run id, device, duration, tags, problems, every final metric) are hidden
columns that the table's column menu shows on demand. A name longer than its column keeps its
start and end around an ellipsis (the grid cannot wrap a cell's text reliably: it flattens
line breaks, and its own wrapping misjudges Latin text in a table that also holds Chinese);
the compare picker and the run detail show it whole.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Sequence

import pandas as pd
import streamlit as st

from tfcore.runs import RunSummary
from ui.common import NO_VALUE, fits, located_text, shorten, t
from ui.runs.panels import COMPARE

# Shown columns: catalog key -> width in px, each wide enough for its header and values in
# both languages ("interrupted", "mlp_functional", "house_prices"). With the row-selection
# column they leave a scrollbar's width spare of the table's 820 px at 1280x800; wider
# screens spread the rest over them. The start time is a hidden column: the rows are
# newest first, and a line for it would cut every name short.
SHOWN = {"name": 230, "state": 85, "model": 120, "dataset": 95, "steps": 60, "loss": 75,
         "accuracy": 92}
HIDDEN = ("start", "run", "device", "duration", "tags", "problems")
ACCURACIES = ("accuracy", "sparse_categorical_accuracy", "categorical_accuracy",
              "binary_accuracy")
SHORTENED = ("name", "model", "dataset")     # long texts shortened to their line
def _started(epoch: float | None) -> datetime | None:
    return datetime.fromtimestamp(epoch, tz=timezone.utc) if epoch else None


def _accuracy(final: dict[str, float]) -> str:
    """The final validation accuracy, whichever accuracy metric the run logged, as text with
    four decimals (a rate in [0, 1], so the column still sorts by value), or a dash."""
    value = next((final[f"val/{m}"] for m in ACCURACIES
                  if f"val/{m}" in final and final[f"val/{m}"] == final[f"val/{m}"]), None)
    return NO_VALUE if value is None else f"{value:.4f}"


def _row(s: RunSummary) -> dict:
    return {"name": s.name, "state": t(f"state.{s.state}"), "model": s.model,
            "dataset": s.dataset, "steps": s.steps,
            "loss": round(s.final["train/loss"], 4) if "train/loss" in s.final else None,
            "accuracy": _accuracy(dict(s.final)), "start": _started(s.started),
            "run": s.run_id, "device": s.device,
            "duration": round(s.duration, 1) if s.duration else None,
            "tags": ", ".join(s.tags),
            "problems": "; ".join(located_text(p, markdown=False) for p in s.problems)}


def table_rows(shown: Sequence[RunSummary]) -> pd.DataFrame:
    """One row per run, labelled in the current language: the shown columns first (long
    names and models shortened to their column's line), then the hidden ones and every
    final metric (``split/metric``)."""
    rows = []
    for s in shown:
        row = _row(s)
        row.update({k: shorten(row[k], fits(SHOWN[k])) for k in SHORTENED})
        rows.append({t(f"runs.col.{k}"): v for k, v in row.items()}
                    | {k: round(v, 4) for k, v in sorted(s.final.items())})
    columns = [t(f"runs.col.{k}") for k in (*SHOWN, *HIDDEN)]
    return pd.DataFrame(rows, columns=None if rows else columns)


def _column_config(frame: pd.DataFrame) -> dict:
    config = {t(f"runs.col.{k}"): {"width": width} for k, width in SHOWN.items()}
    config[t("runs.col.loss")]["help"] = t("runs.col.loss_help")
    config[t("runs.col.accuracy")].update(help=t("runs.col.accuracy_help"), alignment="right")
    shown = set(config)
    config.update({c: None for c in frame.columns if c not in shown})   # in the column menu
    return config


def runs_table(shown: Sequence[RunSummary]) -> None:
    """The runs table; selecting rows picks the runs to compare."""
    frame = table_rows(shown)
    event = st.dataframe(frame, hide_index=True, width="stretch",
                         column_config=_column_config(frame),
                         on_select="rerun", selection_mode="multi-row", key="runs.table")
    st.caption(t("runs.table.more"))
    picked = [shown[i].run_id for i in _selected_rows(event) if i < len(shown)]
    if picked and picked != st.session_state.get("runs.table.last"):
        st.session_state[COMPARE] = picked      # before the multiselect is drawn
    st.session_state["runs.table.last"] = picked


def _selected_rows(event) -> list[int]:
    try:
        return list(event.selection.rows)
    except AttributeError:
        return []
