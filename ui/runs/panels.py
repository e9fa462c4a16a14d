"""Runs page, list side: filters, overlaid curves and seed groups (the table: table.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import pandas as pd
import streamlit as st

from tfcore.runs import X_AXES, RunSummary, group_curves, metric_names, run_curves
from ui.common import (cached_chart, choose_placeholder, current_lang, frame_digest,
                       metric_label, t)
from ui.runs import charts

COMPARE = "runs.compare"
SPLITS = ("train", "val")
# A run still writing its metrics is charted from a snapshot at most this old, so every
# session drawing it reuses one converted chart per interval (ui/common/chart_cache.py).
SNAPSHOT_S = 2.0


def run_label(summary: RunSummary) -> str:
    """Display name of a run: its name and the end of its id (names may repeat)."""
    return f"{summary.name} ({summary.run_id[-4:]})"


def filters(summaries: Sequence[RunSummary]) -> list[RunSummary]:
    """Text, state, dataset and tag filters; returns the runs that pass."""
    cols = st.columns(4)
    text = cols[0].text_input(t("runs.filter.text"), key="runs.filter.text").strip().lower()
    offered = (sorted({s.state for s in summaries}), sorted({s.dataset for s in summaries}),
               sorted({tag for s in summaries for tag in s.tags}))
    states = cols[1].multiselect(t("runs.filter.state"), offered[0],
                                 format_func=lambda s: t(f"state.{s}"), key="runs.filter.state",
                                 placeholder=choose_placeholder(offered[0], many=True),
                                 disabled=not offered[0])
    datasets = cols[2].multiselect(t("runs.filter.dataset"), offered[1],
                                   key="runs.filter.dataset", disabled=not offered[1],
                                   placeholder=choose_placeholder(offered[1], many=True))
    tags = cols[3].multiselect(t("runs.filter.tag"), offered[2],
                               key="runs.filter.tag", disabled=not offered[2],
                               placeholder=choose_placeholder(offered[2], many=True))
    return [s for s in summaries
            if (not text or text in f"{s.name} {s.run_id} {s.model}".lower())
            and (not states or s.state in states)
            and (not datasets or s.dataset in datasets)
            and (not tags or set(tags) & set(s.tags))]


def compare_panel(root: Path, shown: Sequence[RunSummary]) -> list[str]:
    """Choose runs, metric, splits, smoothing and x-axis; draw their curves overlaid."""
    st.subheader(t("runs.compare.title"))
    ids = [s.run_id for s in shown]
    labels = {s.run_id: run_label(s) for s in shown}
    if COMPARE in st.session_state:
        st.session_state[COMPARE] = [i for i in st.session_state[COMPARE] if i in ids]
        chosen = st.multiselect(t("runs.compare.runs"), ids, format_func=labels.get,
                                key=COMPARE, placeholder=choose_placeholder(ids, many=True))
    else:
        chosen = st.multiselect(t("runs.compare.runs"), ids, default=ids[:2],
                                format_func=labels.get, key=COMPARE,
                                placeholder=choose_placeholder(ids, many=True))
    if not chosen:
        st.info(t("runs.compare.pick"))
        return []
    names = metric_names(root, chosen) or ["loss"]
    cols = st.columns([4, 5, 4, 4])       # the splits picker holds two chips at 1280 px
    metric = cols[0].selectbox(t("runs.compare.metric"), names, key="runs.compare.metric",
                               format_func={n: metric_label(n) for n in names}.get)
    splits = cols[1].multiselect(t("runs.compare.splits"), list(SPLITS), default=list(SPLITS),
                                 format_func=lambda s: t(f"runs.split.{s}"),
                                 key="runs.compare.splits",
                                 placeholder=choose_placeholder(SPLITS, many=True))
    smoothing = cols[2].slider(t("runs.compare.smoothing"), 0.0, 0.99, 0.0, 0.01,
                               key="runs.compare.smoothing")
    axis = cols[3].radio(t("runs.compare.x"), X_AXES, format_func=lambda a: t(f"runs.x.{a}"),
                         horizontal=True, key="runs.compare.x")
    curves = run_curves(root, chosen, metric, splits or SPLITS, smoothing, max_age=SNAPSHOT_S)
    if curves.empty:
        st.info(t("runs.compare.empty", metric=metric_label(metric)))
        return chosen
    curves["label"] = curves["run"].map(labels)
    cached_chart(("runs.compare", frame_digest(curves), axis, metric, current_lang()),
                 lambda: charts.compare_chart(curves, axis, metric))
    _groups(shown, chosen, curves, metric)
    return chosen


def _groups(shown: Sequence[RunSummary], chosen: Sequence[str], curves: pd.DataFrame,
            metric: str) -> None:
    by_id = {s.run_id: s for s in shown}
    members: dict[str, list[str]] = {}
    for run_id in chosen:
        members.setdefault(by_id[run_id].group, []).append(run_id)
    groups = {g: ids for g, ids in members.items() if len(ids) > 1}
    if not groups:
        st.caption(t("runs.groups.none"))
        return
    if not st.toggle(t("runs.groups.toggle", count=len(groups)), key="runs.groups.show"):
        return
    mapping = {run_id: g for g, ids in groups.items() for run_id in ids}
    labels = {g: t("runs.groups.label", name=by_id[ids[0]].model, count=len(ids),
                   seeds=", ".join(str(by_id[i].seed) for i in ids))
              for g, ids in groups.items()}
    stats = group_curves(curves[curves["run"].isin(mapping)], mapping)
    cached_chart(("runs.groups", frame_digest(stats), tuple(sorted(labels.items())), metric,
                  current_lang()), lambda: charts.group_chart(stats, labels, metric))
