"""Runs page, one run: config, curves with the checkpoint timeline, checkpoints,
variable browser and the two-checkpoint diff."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pandas as pd
import streamlit as st

from tfcore.rundir import RunPaths, RunStore, file_stamp
from tfcore.runs import (
    CheckpointList,
    RunSummary,
    checkpoint_names,
    diff_checkpoints,
    list_checkpoints,
    list_variables,
    metric_names,
    run_curves,
    variable_stats,
)
from ui.common import (
    cached_chart,
    choose_placeholder,
    current_lang,
    frame_digest,
    guarded,
    metric_label,
    owned,
    pick,
    plain,
    t,
)
from ui.runs import charts
from ui.runs.panels import SNAPSHOT_S


def _when(epoch: float | None) -> str:
    if not epoch:
        return ""
    return datetime.fromtimestamp(epoch, tz=timezone.utc).strftime("%Y-%m-%d %H:%M:%S")


def checkpoint_label(listing: CheckpointList):
    """format_func for checkpoint numbers: ``ckpt-12 (step 12, latest)``, with the file
    name the run wrote (``model.ckpt-12`` for the tutorial's prefix, T3)."""
    latest = listing.latest.number if listing.latest else None
    names = checkpoint_names(listing.entries)

    def label(number: int) -> str:
        key = "runs.ckpt.option_latest" if number == latest else "runs.ckpt.option"
        return t(key, name=names.get(number, f"ckpt-{number}"), number=number)
    # Translated now, in the page's language: a widget may call its format_func later,
    # outside this script run (AppTest does), where the language is not known.
    labels = {e.number: label(e.number) for e in listing.entries if e.number is not None}
    return lambda number: labels.get(number) or label(number)


def checkpoint_choices(listing: CheckpointList, key: str) -> list[int]:
    """The numbered checkpoints of ``listing`` for the choice widget ``key``, set up before
    it is drawn: another folder (another run) opens at its own latest checkpoint (the one
    its ``checkpoint`` state file names, else the highest number), not at the number picked
    before; a change of which one is latest relabels the choice. Empty: none to pick."""
    numbers = [e.number for e in listing.entries if e.number is not None]
    if numbers:
        latest = listing.latest.number if listing.latest else None
        owned(key, numbers, latest if latest in numbers else numbers[-1],
              owner=str(listing.directory), labels=str(latest))
    return numbers


def pick_checkpoint(listing: CheckpointList, key: str) -> int | None:
    """A selectbox over the checkpoints that have a number (:func:`checkpoint_choices`)."""
    numbers = checkpoint_choices(listing, key)
    if not numbers:
        st.info(t("runs.ckpt.none"))
        return None
    return st.selectbox(t("runs.ckpt.pick"), numbers, key=key,
                        format_func=checkpoint_label(listing))


def config_tab(run_dir: Path, summary: RunSummary) -> None:
    """What was asked (run.json) and where the run stands (status.json)."""
    record = RunStore(run_dir.parent).get(run_dir.name)     # checked files, cached
    request = record.request
    cols = st.columns(4)
    cols[0].metric(t("runs.col.state"), t(f"state.{summary.state}"))
    cols[1].metric(t("runs.col.steps"), summary.steps)
    cols[2].metric(t("runs.col.duration"),
                   f"{summary.duration:.1f} s" if summary.duration else "-")
    cols[3].metric(t("runs.col.device"), summary.device)
    if record.status.message:
        st.warning(t("runs.detail.message", message=plain(record.status.message)))
    left, right = st.columns(2)
    with left:
        st.caption(t("runs.detail.training"))
        st.json(request.get("training") or {}, expanded=True)
        st.caption(t("runs.detail.dataset"))
        st.json(request.get("dataset") or {}, expanded=False)
    with right:
        st.caption(t("runs.detail.spec"))
        st.json(request.get("spec") or {}, expanded=False)
        st.caption(t("runs.detail.device"))
        st.json(request.get("device") or {}, expanded=False)
    from ui.runs.tensorboard_button import open_button  # T4: the real TensorBoard
    open_button(run_dir.parent, run_dir, "runs.detail")


def curves_tab(root: Path, run_id: str, listing: CheckpointList | None) -> None:
    """The run's curves with a rule at each checkpoint; its final test metrics."""
    names = metric_names(root, [run_id]) or ["loss"]
    metric = st.selectbox(t("runs.compare.metric"), names, key="runs.detail.metric",
                          format_func={n: metric_label(n) for n in names}.get)
    curves = run_curves(root, [run_id], metric, ("train", "val"), max_age=SNAPSHOT_S)
    ckpts = checkpoint_names(listing.entries if listing else ())   # model.ckpt-N (T3)
    if curves.empty:
        st.info(t("runs.compare.empty", metric=metric_label(metric)))
    else:
        cached_chart(("runs.timeline", frame_digest(curves), tuple(ckpts.items()), metric,
                      current_lang()),
                     lambda: charts.run_chart(curves, list(ckpts), metric, list(ckpts.values())))
    test = run_curves(root, [run_id], metric, ("test",), max_age=SNAPSHOT_S)
    if not test.empty:
        st.caption(t("runs.detail.test", metric=metric_label(metric), value=float(test["value"].iloc[-1])))


def checkpoints_tab(listing: CheckpointList) -> None:
    """Each checkpoint: number, time, size, files, latest, what is wrong."""
    for problem in listing.problems:
        st.warning(t("runs.ckpt.problem", problem=problem))
    if not listing.entries:
        st.info(t("runs.ckpt.none"))
        return
    rows = [{t("runs.ckpt.col.name"): e.name, t("runs.ckpt.col.number"): e.number,
             t("runs.ckpt.col.time"): _when(e.time),
             t("runs.ckpt.col.size"): f"{e.size / 1024:.1f} KiB",
             t("runs.ckpt.col.files"): ", ".join(e.files),
             t("runs.ckpt.col.latest"): e.latest,
             t("runs.ckpt.col.problems"): "; ".join(pick(p) for p in e.problems)}
            for e in listing.entries]
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    st.caption(t("runs.ckpt.count", count=len(listing.entries), folder=str(listing.directory)))


@st.cache_data(max_entries=64, show_spinner=False)
def _run_labels(run_dir: str, ckpt_stamp: object) -> dict[str, str]:
    from tfcore.runs import variable_labels

    return variable_labels(Path(run_dir))


# Reading a checkpoint's tensors (listing, statistics, differences) is done once per
# change of the run's checkpoint folder for the whole server, not on every rerun of every
# session; the results are read-only.
def _ckpt_stamp(run_dir: Path) -> object:
    return (str(run_dir), file_stamp(RunPaths(Path(run_dir)).ckpt_dir))


@st.cache_resource(max_entries=64, show_spinner=False)
def _variables(prefix: str, stamp: object):
    return list_variables(prefix, labels=run_labels(Path(stamp[0])))


@st.cache_resource(max_entries=256, show_spinner=False)
def _stats(prefix: str, key: str, stamp: object):
    return variable_stats(prefix, key)


@st.cache_resource(max_entries=64, show_spinner=False)
def _diff(prefix_a: str, prefix_b: str, stamp: object):
    return diff_checkpoints(prefix_a, prefix_b, labels=run_labels(Path(stamp[0])))


def run_labels(run_dir: Path) -> dict[str, str]:
    """Readable variable names of a run's checkpoints: the run's model is rebuilt once per
    change of its checkpoint folder for the whole server, not once per session."""
    return _run_labels(str(run_dir), file_stamp(RunPaths(Path(run_dir)).ckpt_dir))


def variables_tab(listing: CheckpointList, run_dir: Path, key: str = "runs.vars") -> None:
    """The variables of one checkpoint and, for a chosen one, statistics and histogram."""
    number = pick_checkpoint(listing, f"{key}.ckpt")
    if number is None:
        return
    with guarded():
        variables = _variables(str(listing.get(number).prefix), _ckpt_stamp(run_dir))
        variable_browser(variables, key)


def variable_browser(variables, key: str) -> None:
    """Table of a VariableList, a variable picker, its stats and histogram."""
    for problem in variables.problems:
        st.warning(t("runs.ckpt.problem", problem=problem))
    if not variables.variables:
        return
    st.dataframe(pd.DataFrame([{t("runs.vars.col.label"): v.label,
                                t("runs.vars.col.key"): v.key,
                                t("runs.vars.col.shape"): str(list(v.shape)),
                                t("runs.vars.col.dtype"): v.dtype,
                                t("runs.vars.col.size"): v.size}
                               for v in variables.variables]),
                 hide_index=True, width="stretch")
    numeric = [v for v in variables.variables if v.dtype != "string"]
    labels = {v.key: f"{v.label}  {list(v.shape)}" for v in numeric}
    default = next((i for i, v in enumerate(numeric) if v.size > 1), 0)
    chosen = st.selectbox(t("runs.vars.pick"), [v.key for v in numeric], index=default,
                          format_func=labels.get, key=f"{key}.var", disabled=not numeric,
                          placeholder=choose_placeholder(numeric, many=False))
    with guarded():
        stats = _stats(str(variables.prefix), chosen, file_stamp(Path(variables.prefix)
                                                                 .parent))
        cols = st.columns(6)
        for col, (name, value) in zip(cols, [("mean", stats.mean), ("std", stats.std),
                                             ("min", stats.min), ("max", stats.max),
                                             ("norm", stats.norm),
                                             ("zeros", stats.zeros_fraction)]):
            col.metric(t(f"runs.vars.{name}"), f"{value:.4g}")
        if stats.count > 1:
            title = t("runs.vars.hist", name=labels[chosen])
            cached_chart(("runs.hist", str(variables.prefix), chosen,
                          file_stamp(Path(variables.prefix).parent), title),
                         lambda: charts.histogram_chart(stats.hist_counts, stats.hist_edges,
                                                        title))


def diff_tab(listing: CheckpointList, run_dir: Path) -> None:
    """Per-variable change between two checkpoints of the run."""
    numbers = [e.number for e in listing.entries if e.number is not None]
    if len(numbers) < 1:
        st.info(t("runs.ckpt.none"))
        return
    label = checkpoint_label(listing)
    cols = st.columns(2)
    a = cols[0].selectbox(t("runs.diff.a"), numbers, index=0, format_func=label,
                          key="runs.diff.a")
    b = cols[1].selectbox(t("runs.diff.b"), numbers, index=len(numbers) - 1,
                          format_func=label, key="runs.diff.b")
    with guarded():
        diff = _diff(str(listing.get(a).prefix), str(listing.get(b).prefix),
                     _ckpt_stamp(run_dir))
        for problem in diff.problems:
            st.warning(t("runs.ckpt.problem", problem=problem))
        rows = pd.DataFrame([{"label": r.label, "key": r.key, "shape": str(list(r.shape)),
                              "status": t(f"runs.diff.status.{r.status}"),
                              "norm": r.norm_change, "max_abs": r.max_abs_change,
                              "relative": r.relative_change} for r in diff.rows])
        if rows.empty:
            return
        changed = int((rows["norm"].fillna(0) > 0).sum())
        st.caption(t("runs.diff.summary", changed=changed, total=len(rows)))
        shown = rows.rename(columns={"label": t("runs.vars.col.label"),
                                     "shape": t("runs.vars.col.shape"),
                                     "status": t("runs.diff.col.status"),
                                     "norm": t("runs.diff.col.norm"),
                                     "max_abs": t("runs.diff.col.max_abs"),
                                     "relative": t("runs.diff.col.relative")})
        st.dataframe(shown.drop(columns=["key"]), hide_index=True, width="stretch")
        model_rows = rows[rows["relative"].notna() & (rows["shape"] != "[]")]
        if not model_rows.empty:      # keyed on what the rows come from: no hashing per run
            cached_chart(("runs.diff", str(listing.get(a).prefix), str(listing.get(b).prefix),
                          _ckpt_stamp(run_dir), current_lang()),
                         lambda: charts.diff_chart(model_rows))


def listing_for(run_dir: Path) -> CheckpointList | None:
    """The run's checkpoints, or None when it has no ckpt folder yet.

    Verifying reads every tensor, so the listing is kept for the whole server until a
    file in the checkpoint folder changes (name, size or modification time).
    """
    folder = run_dir / "ckpt"
    if not folder.is_dir():
        return None
    try:
        stamp = tuple(sorted((p.name, p.stat().st_size, p.stat().st_mtime_ns)
                             for p in folder.iterdir() if p.is_file()))
    except OSError:  # the worker replaced a file while we looked: list afresh
        return list_checkpoints(run_dir)
    return _listing(str(run_dir), stamp)


@st.cache_resource(max_entries=64, show_spinner=False)
def _listing(run_dir: str, stamp: tuple) -> CheckpointList:
    return list_checkpoints(Path(run_dir))
