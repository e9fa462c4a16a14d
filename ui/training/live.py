"""The live panel of a run: state, progress, curves, Stop/Resume, end-of-run results.

Redraws about once a second with ``st.fragment(run_every=1.0)`` while the run is active,
from the server's one shared copy of the run's series (ui/training/live_data.py), with
charts converted once per content for all sessions (ui/common/chart_cache.py).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import streamlit as st

from tfcore.rundir import (
    ACTIVE_STATES,
    FINISHED,
    INTERRUPTED,
    QUEUED,
    RUNNING,
    STOPPED,
    RunRecord,
)
from tfcore.training import checkpoint_steps, read_analysis, resume_run, stop_run
from ui.common import (
    cached_chart,
    catalog,
    current_lang,
    guarded,
    kept,
    metric_label,
    presenter_mode,
    recall,
    run_store,
    t,
    workspace,
)
from ui.insight import insight_panel
from ui.training.charts import (
    NORMAL,
    PRESENTER,
    SeriesBuffer,
    boundary_chart,
    confusion_chart,
    epoch_frame,
    line_chart,
    series_colors,
    step_frame,
)
from ui.training.live_data import live_series
from ui.training.url import forget_ignored

WAIT_KEY = "train.live.wait"     # (run id, step) when Train/Resume was pressed
TRAINING_PHASE = "training"


def _buffer(run_id: str, state: str | None = None) -> SeriesBuffer:
    """The run's records so far: the server's shared snapshot (ui/training/live_data.py);
    complete once the run's ``state`` is no longer active."""
    return live_series(run_id, ended=state is not None and state not in ACTIVE_STATES)


def _eta(seconds: float | None) -> str:
    """``h:mm:ss``, or a dash while the worker has no steady speed to estimate from
    (``tfcore.training.callbacks.SteadyRate``)."""
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
    cols[4].metric(t("train.eta"), _eta(extra.get("eta_seconds") if active else None),
                   help=t("train.eta_help"))
    if total:
        st.progress(min(1.0, status.step / total),
                    text=t("train.progress", pct=100 * status.step / total, step=status.step,
                           total=total))
    if status.state == QUEUED and extra.get("queue_position"):
        st.caption(t("train.queue_position", position=extra["queue_position"]))
    _phase(record)
    replicas = extra.get("replicas")
    if replicas and not presenter_mode():
        st.caption(t("train.replicas", replicas=replicas, batch=extra.get("batch_size", "-"),
                     per_replica=extra.get("per_replica_batch", "-")))
    from ui.training.cluster_form import cluster_panel; cluster_panel(record)  # noqa: E702


def phase_text(record: RunRecord, waiting: bool) -> str | None:
    """What the worker is doing before its first new step, or None once it trains.

    Uses the ``phase`` the worker writes into status.json (starting, loading_data,
    building, restoring with ``phase_checkpoint``, training, evaluating, saving); a worker
    that writes none shows "starting" while ``waiting`` (no new step since Train or Resume
    was pressed).
    """
    status, extra = record.status, record.status.extra
    if status.state != RUNNING:
        return None
    phase = extra.get("phase")
    if phase == TRAINING_PHASE or (phase is None and not waiting):
        return None
    key = f"train.phase.{phase}"
    if phase is None or key not in catalog(current_lang()):
        key = "train.phase.starting"
    steps = checkpoint_steps(record.paths) if phase == "restoring" else []
    ckpt = extra.get("phase_checkpoint") or (steps[-1] if steps else None)
    if ckpt is not None and str(ckpt).isdigit():      # named as its files are (T3)
        from tfcore.runs import checkpoint_name, run_ckpt_prefix
        ckpt = checkpoint_name(int(ckpt), run_ckpt_prefix(record.request))
    return t(key, ckpt=ckpt if ckpt is not None else "?")


def _phase(record: RunRecord) -> None:
    wait = st.session_state.get(WAIT_KEY)
    waiting = bool(wait and wait[0] == record.run_id and record.status.step <= wait[1])
    text = phase_text(record, waiting)
    if text:
        st.info(text, icon=":material/hourglass_top:")


def mark_started(run_id: str, step: int = 0) -> None:
    """Remember that ``run_id`` was (re)started at ``step``: the panel says "starting"
    until a later step arrives (for workers that write no phase)."""
    st.session_state[WAIT_KEY] = (run_id, int(step))
    forget_ignored()


def _buttons(record: RunRecord) -> None:
    root = workspace().runs
    state = record.status.state
    left, right, _ = st.columns([1, 1, 4])
    can_stop = state in ACTIVE_STATES and not record.paths.stop_request.exists()
    with guarded():
        if left.button(t("train.stop"), key="train.stop", icon=":material/stop:",
                       disabled=not can_stop):
            stop_run(root, record.run_id)
            st.rerun(scope="fragment")
        if right.button(t("train.resume"), key="train.resume", icon=":material/play_arrow:",
                        disabled=state not in (STOPPED, INTERRUPTED)):
            resume_run(root, record.run_id)
            mark_started(record.run_id, record.status.step)
            st.rerun()


def _empty_chart(caption_key: str) -> None:
    """Empty loss axes: where the first point will draw. Drawing the chart before there is
    data also loads the browser's chart code, so the first point shows without that wait."""
    presenting = presenter_mode()
    lang = current_lang()

    def build():
        labels = _labels()
        frame = step_frame(SeriesBuffer(""), "loss", 0.0, labels)
        return line_chart(frame, "step", "loss", False, t("train.step"),
                          PRESENTER if presenting else NORMAL, series_colors(labels, 0.0))

    cached_chart(("train.live.empty", presenting, lang), build)
    st.caption(t(caption_key))


def _labels() -> dict[str, str]:
    return {"train": t("train.series.train"), "smoothed": t("train.series.smoothed"),
            "val": t("train.series.val")}


def empty_panel() -> None:
    """The live panel before any run: empty state, progress and loss axes (the axes first
    in presenter mode, as a run's chart is)."""
    presenting = presenter_mode()
    if presenting:
        _empty_chart("train.empty_chart")
    cols = st.columns(5)
    for col, key in zip(cols, ("train.state", "train.step", "train.epoch", "train.speed",
                               "train.eta")):
        col.metric(t(key), "-")
    st.progress(0.0, text=t("train.no_runs"))
    if not presenting:
        _empty_chart("train.empty_chart")


def _charts(buffer: SeriesBuffer) -> None:
    if not buffer.size("train") and not buffer.size("val"):
        _empty_chart("train.no_points")
        return
    presenting = presenter_mode()
    if presenting:        # secondary controls hidden; their last values still apply
        smoothing = recall("train.smoothing", 0.6)
        log_scale, per_epoch = recall("train.log_scale", False), recall("train.per_epoch", False)
    else:
        c1, c2, c3 = st.columns([2, 1, 1])
        smoothing = kept(c1.slider, t("train.smoothing"), 0.0, 0.99, value=0.6, step=0.01,
                         key="train.smoothing", help=t("train.smoothing_help"))
        log_scale = kept(c2.toggle, t("train.log_scale"), key="train.log_scale")
        per_epoch = kept(c3.toggle, t("train.per_epoch"), key="train.per_epoch")
    labels = _labels()
    colors = series_colors(labels, 0.0 if per_epoch else smoothing)
    style = PRESENTER if presenting else NORMAL
    names = buffer.names()
    columns = st.columns(1 if presenting else min(2, len(names)) or 1)
    content = (buffer.run_id, buffer.offset, buffer.size("train"), buffer.size("val"))
    lang = current_lang()
    for index, name in enumerate(names):
        log = log_scale and name == "loss"

        def build(name: str = name, log: bool = log):
            if per_epoch:
                return line_chart(epoch_frame(buffer, name, labels), "epoch", name, log,
                                  t("train.epoch"), style, colors)
            return line_chart(step_frame(buffer, name, smoothing, labels), "step", name,
                              log, t("train.step"), style, colors,
                              behind=labels["train"] if smoothing > 0 else None)

        with columns[index % len(columns)]:
            cached_chart(("train.live", content, name, smoothing, log, per_epoch, presenting,
                          lang), build)
    if not presenting:
        st.caption(t("train.points", n=buffer.size("train")))


def _checkpoints(record: RunRecord) -> None:
    steps = checkpoint_steps(record.paths)
    if steps:
        from tfcore.runs import checkpoint_name, run_ckpt_prefix   # model.ckpt-N (T3)

        prefix = run_ckpt_prefix(record.request)
        st.caption(t("train.checkpoints",
                     steps=", ".join(checkpoint_name(s, prefix) for s in steps)))


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
    style = PRESENTER if presenter_mode() else NORMAL
    st.subheader(t("train.results"))
    test = record.status.extra.get("test_metrics") or {}
    cols = st.columns(max(1, len(test)))
    for col, (name, value) in zip(cols, test.items()):
        col.metric(t("train.test_metric", name=metric_label(name)), f"{value:.4f}")
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
            st.altair_chart(confusion_chart(
                analysis.confusion, names, {"true": t("train.true"), "pred": t("train.pred"),
                                            "count": t("train.count")}, style),
                width="stretch")
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
                                               analysis.point_labels, names,
                                               t("train.class"), style), width="stretch")


def _body(run_id: str, read_only: bool = False) -> None:
    try:
        record = run_store().get(run_id)
    except Exception:  # noqa: BLE001 - the run was deleted meanwhile
        st.caption(t("train.no_run"))
        return
    if presenter_mode():             # the chart first: in view at 1280x800 on a projector
        _failure(record)
        _charts(_buffer(run_id, record.status.state))
        _status_line(record)
        if not read_only:
            _buttons(record)
    else:
        _status_line(record)
        if not read_only:
            _buttons(record)
        _failure(record)
        _charts(_buffer(run_id, record.status.state))
    with guarded():                  # its insides, read incrementally (issue 25)
        insight_panel(record.paths.root, "insight.train",
                      live=record.status.state in ACTIVE_STATES)
    _checkpoints(record)
    if record.status.state == FINISHED:
        _results(record)
    if not presenter_mode() and not read_only:
        st.caption(t("train.tensorboard"))
        st.code(f"tensorboard --logdir {Path(record.paths.tb_dir)}", language="bash")
        from ui.runs import open_tensorboard_button  # T4: the real TensorBoard, linked
        open_tensorboard_button(record.paths.root.parent, record.paths.root, "train.live")


# While an active run has no point yet the panel polls fast, so the first point shows
# about as soon as the worker writes it; then once a second (cheap for a classroom).
FIRST_POINT_POLL_S = 0.25
POLL_S = 1.0


def _has_points(run_id: str) -> bool:
    buffer = _buffer(run_id)
    return bool(buffer.size("train") or buffer.size("val"))


def live_panel(run_id: str, read_only: bool = False) -> None:
    """Draw a run's panel; while it is active, redraw it every second (faster until its
    first point arrives). ``read_only``: without Stop / Resume and the TensorBoard launcher
    (a student following the teacher's run)."""
    record = run_store().get(run_id)
    active = record.status.state in ACTIVE_STATES
    waiting = active and not _has_points(run_id)

    # When the run's state changes, ui/training/run_picker.py's watch reruns the page
    # (its labels show the state), and this panel stops polling once the run has ended.
    @st.fragment(run_every=(FIRST_POINT_POLL_S if waiting else POLL_S) if active else None)
    def panel() -> None:
        _body(run_id, read_only)
        if waiting and _has_points(run_id):
            st.rerun()                      # the first point is drawn: poll once a second

    panel()
