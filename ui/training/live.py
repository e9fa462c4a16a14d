"""The live panel of a run: state, progress, curves, Stop/Resume, end-of-run results.

Redraws about once a second with ``st.fragment(run_every=1.0)`` while the run is active,
reading only what is new in ``metrics.jsonl`` (offsets kept in ``st.session_state``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import streamlit as st

from tfcore.rundir import ACTIVE_STATES, FINISHED, INTERRUPTED, QUEUED, STOPPED, RunRecord
from tfcore.training import jobs, read_analysis
from ui.common import catalog, current_lang, guarded, run_store, t, workspace
from ui.training.charts import (
    SeriesBuffer,
    boundary_chart,
    confusion_chart,
    epoch_frame,
    line_chart,
    step_frame,
)

BUFFER_KEY = "train.live.buffer"
RUN_KEY = "train.run_id"


def _buffer(run_id: str) -> SeriesBuffer:
    """This session's records of ``run_id``, extended with what is new on disk."""
    buffer = st.session_state.get(BUFFER_KEY)
    if not isinstance(buffer, SeriesBuffer) or buffer.run_id != run_id:
        buffer = SeriesBuffer(run_id)
        st.session_state[BUFFER_KEY] = buffer
    chunk = run_store().metrics(run_id, buffer.offset)
    buffer.add(chunk.records)
    buffer.offset = chunk.offset
    return buffer


def _eta(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    seconds = int(seconds)
    return f"{seconds // 3600}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"


def _status_line(record: RunRecord) -> None:
    status, extra = record.status, record.status.extra
    total = int(extra.get("total_steps") or 0)
    cols = st.columns(5)
    cols[0].metric(t("train.state"), t(f"state.{status.state}"))
    cols[1].metric(t("train.step"), f"{status.step:,}")
    cols[2].metric(t("train.epoch"), f"{status.epoch} / {extra.get('epochs') or '-'}")
    cols[3].metric(t("train.speed"), f"{float(extra.get('samples_per_sec') or 0):,.0f}")
    active = status.state in ACTIVE_STATES
    cols[4].metric(t("train.eta"), _eta(extra.get("eta_seconds") if active else None))
    if total:
        st.progress(min(1.0, status.step / total),
                    text=t("train.progress", pct=100 * status.step / total, step=status.step,
                           total=total))
    if status.state == QUEUED and extra.get("queue_position"):
        st.caption(t("train.queue_position", position=extra["queue_position"]))
    replicas = extra.get("replicas")
    if replicas:
        st.caption(t("train.replicas", replicas=replicas, batch=extra.get("batch_size", "-"),
                     per_replica=extra.get("per_replica_batch", "-")))


def _buttons(record: RunRecord) -> None:
    root = workspace().runs
    state = record.status.state
    left, right, _ = st.columns([1, 1, 4])
    can_stop = state in ACTIVE_STATES and not record.paths.stop_request.exists()
    with guarded():
        if left.button(t("train.stop"), key="train.stop", icon=":material/stop:",
                       disabled=not can_stop):
            jobs.stop_run(root, record.run_id)
            st.rerun(scope="fragment")
        if right.button(t("train.resume"), key="train.resume", icon=":material/play_arrow:",
                        disabled=state not in (STOPPED, INTERRUPTED)):
            jobs.resume_run(root, record.run_id)
            st.session_state.pop(BUFFER_KEY, None)
            st.rerun()


def _charts(buffer: SeriesBuffer) -> None:
    if not buffer.size("train") and not buffer.size("val"):
        st.caption(t("train.no_points"))
        return
    c1, c2, c3 = st.columns([2, 1, 1])
    smoothing = c1.slider(t("train.smoothing"), 0.0, 0.99, 0.6, 0.01, key="train.smoothing")
    log_scale = c2.toggle(t("train.log_scale"), key="train.log_scale")
    per_epoch = c3.toggle(t("train.per_epoch"), key="train.per_epoch")
    labels = {"train": t("train.series.train"), "smoothed": t("train.series.smoothed"),
              "val": t("train.series.val")}
    names = buffer.names()
    columns = st.columns(min(2, len(names)) or 1)
    for index, name in enumerate(names):
        with columns[index % len(columns)]:
            if per_epoch:
                frame = epoch_frame(buffer, name, labels)
                chart = line_chart(frame, "epoch", name, log_scale and name == "loss",
                                   t("train.epoch"))
            else:
                frame = step_frame(buffer, name, smoothing, labels)
                chart = line_chart(frame, "step", name, log_scale and name == "loss",
                                   t("train.step"))
            st.altair_chart(chart, width="stretch")
    st.caption(t("train.points", n=buffer.size("train")))


def _checkpoints(record: RunRecord) -> None:
    steps = jobs.checkpoint_steps(record.paths)
    if steps:
        st.caption(t("train.checkpoints", steps=", ".join(f"ckpt-{s}" for s in steps)))


def _failure(record: RunRecord) -> None:
    status = record.status
    key = status.extra.get("error_key")
    text = status.message or ""
    if key and key in catalog(current_lang()):
        try:
            text = t(key, **(status.extra.get("error_params") or {}))
        except (KeyError, IndexError, ValueError):
            pass
    if status.state == INTERRUPTED and not status.message:
        text = t("train.err.interrupted")
    if text:
        st.error(text, icon=":material/error:")
    if status.traceback:
        with st.expander(t("errors.traceback")):
            st.code(status.traceback, language="text")


def _results(record: RunRecord) -> None:
    """Test metrics, confusion matrix, misclassified images, decision boundary."""
    st.subheader(t("train.results"))
    test = record.status.extra.get("test_metrics") or {}
    cols = st.columns(max(1, len(test)))
    for col, (name, value) in zip(cols, test.items()):
        col.metric(t("train.test_metric", name=name), f"{value:.4f}")
    params = record.status.extra.get("parameters")
    if params:
        st.caption(t("train.parameters", values=", ".join(
            f"{k} = {', '.join(f'{v:.4f}' for v in vals)}" for k, vals in params.items())))
    analysis = read_analysis(record.paths)
    if analysis is not None and analysis.confusion.size:
        names = list(analysis.class_names) or [str(i) for i in range(len(analysis.confusion))]
        names += [str(i) for i in range(len(names), len(analysis.confusion))]
        left, right = st.columns(2)
        with left:
            st.caption(t("train.confusion"))
            st.altair_chart(confusion_chart(analysis.confusion, names, t("train.true"),
                                            t("train.pred")), width="stretch")
        with right:
            if analysis.mis_images.size:
                st.caption(t("train.misclassified", n=len(analysis.mis_images)))
                images = [np.clip(img.squeeze(), 0, 1) for img in analysis.mis_images]
                captions = [t("train.mis_caption", true=names[a], pred=names[b])
                            for a, b in zip(analysis.mis_true, analysis.mis_pred)]
                st.image(images[:24], caption=captions[:24], width=72)
            if analysis.grid_class.size:
                st.caption(t("train.boundary"))
                st.altair_chart(boundary_chart(analysis.grid_x, analysis.grid_y,
                                               analysis.grid_class, analysis.points,
                                               analysis.point_labels), width="stretch")


def _body(run_id: str) -> None:
    try:
        record = run_store().get(run_id)
    except Exception:  # noqa: BLE001 - the run was deleted meanwhile
        st.caption(t("train.no_run"))
        return
    _status_line(record)
    _buttons(record)
    _failure(record)
    _charts(_buffer(run_id))
    _checkpoints(record)
    if record.status.state == FINISHED:
        _results(record)
    st.caption(t("train.tensorboard"))
    st.code(f"tensorboard --logdir {Path(record.paths.tb_dir)}", language="bash")


def live_panel(run_id: str) -> None:
    """Draw a run's panel; while it is active, redraw it every second."""
    record = run_store().get(run_id)
    active = record.status.state in ACTIVE_STATES
    st.session_state["train.live.active"] = active

    @st.fragment(run_every=1.0 if active else None)
    def panel() -> None:
        _body(run_id)
        still = run_store().get(run_id).status.state in ACTIVE_STATES
        if st.session_state.get("train.live.active") and not still:
            st.session_state["train.live.active"] = False
            st.rerun()                      # the run ended: redraw the page without polling

    panel()
