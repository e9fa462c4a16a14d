"""Runs page, actions on one run: restore & evaluate, predict, continue training, open in
the weights lab, export, rename/tag/delete; and reading a foreign checkpoint folder."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import streamlit as st

from tfcore.runs import CheckpointList, RunSummary, list_checkpoints, list_variables
from ui.common import PAGES, guarded, plain, show_error, t, teacher_login
from ui.runs.detail import pick_checkpoint, variable_browser

EVAL = "runs.eval.result"
EXPORT = "runs.export.result"
FLASH = "runs.flash"
DELETED = "deleted"            # FLASH area: shown above the list, not in a tab
FRESH = "runs.fresh.result"
FRESH_COUNT = 4


def deleted_notice() -> None:
    """Above the list, once: which run was just deleted (its Manage tab is gone with it,
    and the filter that found it may now find none)."""
    found = st.session_state.get(FLASH)
    if found and found[0] == DELETED:
        st.session_state.pop(FLASH, None)
        st.success(found[1], icon=":material/delete:")


def _flash(area: str) -> None:
    found = st.session_state.get(FLASH)
    if found and found[0] == area:
        st.success(found[1])


def restore_tab(root: Path, summary: RunSummary, listing: CheckpointList) -> None:
    """Pick a checkpoint, restore it into the run's model, evaluate on the test split."""
    from tfcore.runs import evaluate_run

    number = pick_checkpoint(listing, "runs.restore.ckpt")
    if number is None:
        return
    run_dir = root / summary.run_id
    with_optimizer = st.checkbox(t("runs.restore.optimizer"), key="runs.restore.optimizer")
    if st.button(t("runs.restore.btn"), type="primary", key="runs.restore.btn"):
        with st.spinner(t("runs.restore.working")):
            with guarded():
                result = evaluate_run(run_dir, number).to_dict()
                if with_optimizer:
                    result["optimizer"] = _optimizer_state(run_dir, number)
                st.session_state[EVAL] = result
    result = st.session_state.get(EVAL)
    if result and result["run"] == summary.run_id:
        _show_eval(result)
        if result.get("optimizer"):
            st.caption(t("runs.restore.optimizer_done", **result["optimizer"]))
        _fresh_copy(run_dir, result)
        _predictions(run_dir, result)
        _handoffs(root, summary, result)


def _fresh_copy(run_dir: Path, result: dict) -> None:
    """T5: the checkpoint's weights through a file into a fresh model; both outputs side
    by side for the same test examples, and whether they are equal."""
    from tfcore.runs import fresh_copy_outputs

    if not result["complete"]:
        return
    st.subheader(t("freshcopy.title"))
    st.caption(t("freshcopy.help", count=FRESH_COUNT))
    key = (str(run_dir), result["checkpoint"])
    if st.button(t("freshcopy.btn"), key="runs.fresh.btn"):
        with st.spinner(t("freshcopy.working")), guarded():
            number = int(result["checkpoint"].rsplit("-", 1)[-1])
            st.session_state[FRESH] = (key, fresh_copy_outputs(run_dir, number, FRESH_COUNT))
    found = st.session_state.get(FRESH)
    if not found or found[0] != key:
        return
    copy = found[1]
    rows = [{t("freshcopy.col.example"): i, t("freshcopy.col.output"): j,
             t("freshcopy.col.restored"): float(copy.restored[i, j]),
             t("freshcopy.col.fresh"): float(copy.fresh[i, j]),
             t("freshcopy.col.before"): float(copy.fresh_before[i, j])}
            for i in range(copy.restored.shape[0]) for j in range(copy.restored.shape[1])]
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    diff = f"{copy.max_abs_diff:.3g}"
    if copy.equal:
        st.success(t("freshcopy.equal", diff=diff))
    else:
        st.error(t("freshcopy.not_equal", diff=diff))


def _optimizer_state(run_dir: Path, number: int) -> dict:
    """Restore model and optimizer together; how many optimizer values came back."""
    from tfcore.runs import restore_run

    restored = restore_run(run_dir, number, with_optimizer=True)
    paths = {getattr(v, "path", None) for v in restored.optimizer.variables}
    count = sum(1 for _, path in restored.report.matched if path in paths)
    return {"count": count, "iterations": int(restored.optimizer.iterations.numpy())}


def _show_eval(result: dict) -> None:
    st.subheader(t("runs.restore.result", ckpt=result["checkpoint"], step=result["step"]))
    if not result["complete"]:
        st.error(t("runs.restore.incomplete", ckpt=result["checkpoint"]))
        st.markdown("\n".join(f"- {plain(line)}" for line in result["problems"]))
        return
    reported = result.get("reported") or {}
    cols = st.columns(max(1, len(result["metrics"])))
    for col, (name, value) in zip(cols, result["metrics"].items()):
        col.metric(name, f"{value:.4f}")
    rows = [{t("runs.eval.col.metric"): name, t("runs.eval.col.restored"): value,
             t("runs.eval.col.reported"): reported.get(name),
             t("runs.eval.col.delta"): (abs(value - reported[name]) if name in reported
                                        else None)}
            for name, value in result["metrics"].items()]
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    st.caption(t("runs.eval.examples", count=result["examples"]))
    if not reported:
        st.caption(t("runs.eval.no_reported"))


def _predictions(run_dir: Path, result: dict) -> None:
    from tfcore.runs import predict_run

    if not result["complete"] or not st.toggle(t("runs.predict.toggle"),
                                               key="runs.predict.show"):
        return
    with guarded():
        number = int(result["checkpoint"].rsplit("-", 1)[-1])
        out = predict_run(run_dir, number, count=8)
        names = out.class_names
        if out.x.ndim == 4:
            cols = st.columns(len(out.x))
            for col, image, truth, pred in zip(cols, out.x, out.y_true, out.y_pred):
                col.image(np.clip(image, 0, 1), width=64, clamp=True,
                          caption=t("runs.predict.caption", truth=_name(names, truth),
                                    pred=_name(names, pred)))
        st.dataframe(pd.DataFrame({
            t("runs.predict.col.truth"): [_name(names, v) for v in out.y_true],
            t("runs.predict.col.pred"): [_name(names, v) for v in out.y_pred],
            t("runs.predict.col.conf"): out.confidence}), hide_index=True, width="stretch")


def _name(names: tuple[str, ...], value) -> str:
    if names and float(value).is_integer() and 0 <= int(value) < len(names):
        return names[int(value)]
    return f"{float(value):.4g}"


def _handoffs(root: Path, summary: RunSummary, result: dict) -> None:
    """Continue training (new run / resume) or open the weights in the weights lab."""
    from tfcore.runs import continue_training, export_checkpoint
    from tfcore.training import resume_run
    from ui.common import workspace

    if not result["complete"]:
        return
    number = int(result["checkpoint"].rsplit("-", 1)[-1])
    st.subheader(t("runs.next.title"))
    cols = st.columns(3)
    if cols[0].button(t("runs.next.continue"), key="runs.next.continue"):
        with guarded():
            new_id = continue_training(root, summary.run_id, workspace().root, number)
            st.session_state[FLASH] = ("next", t("runs.next.started", run=new_id))
    if summary.state in ("stopped", "interrupted") and cols[1].button(
            t("runs.next.resume"), key="runs.next.resume"):
        with guarded():
            resume_run(root, summary.run_id)
            st.session_state[FLASH] = ("next", t("runs.next.resumed", run=summary.run_id))
    if cols[2].button(t("runs.next.weights"), key="runs.next.weights"):
        with guarded():
            from tfcore.model import from_dict
            from tfcore.runs import run_request
            from tfcore.weights import safe_file_stem

            exported = export_checkpoint(root / summary.run_id, workspace().exports,
                                         "weights_h5", number)
            stem = safe_file_stem(f"{summary.run_id}-ckpt-{number}")
            target = workspace().exports / f"{stem}.weights.h5"   # where the lab looks
            shutil.copyfile(exported.path, target)
            relative = str(target.relative_to(workspace().root))
            spec = from_dict(run_request(root / summary.run_id)["spec"])
            st.session_state["builder.spec"] = spec          # the weights lab's model
            st.session_state["train.spec"] = spec            # the train page's handoff
            st.session_state["train.initial_weights"] = relative
            st.session_state["weights.file.name"] = stem
            st.session_state[FLASH] = ("next", t("runs.next.weights_done", path=relative))
    _flash("next")
    if st.session_state.get("train.initial_weights", "").startswith(f"exports/{summary.run_id}"):
        for path in ("app_pages/weights.py", "app_pages/train.py"):
            page = next(p for p in PAGES if p.path == path)
            if page.exists:
                st.page_link(page.path, label=t(page.key), icon=page.icon)


def export_tab(root: Path, summary: RunSummary, listing: CheckpointList) -> None:
    """Write a checkpoint as .keras / SavedModel / .weights.h5, or the run as zip; download."""
    from tfcore.runs import EXPORTERS, export_checkpoint, export_run_zip
    from ui.common import workspace

    formats = list(EXPORTERS) + ["zip"]
    cols = st.columns(2)
    fmt = cols[0].radio(t("runs.export.format"), formats, horizontal=True,
                        format_func=lambda f: t(f"runs.export.fmt.{f}"), key="runs.export.fmt")
    with cols[1]:
        number = None if fmt == "zip" else pick_checkpoint(listing, "runs.export.ckpt")
    if st.button(t("runs.export.btn"), key="runs.export.btn"):
        with st.spinner(t("runs.export.working")):
            with guarded():
                run_dir = root / summary.run_id
                out = (export_run_zip(run_dir, workspace().exports) if fmt == "zip"
                       else export_checkpoint(run_dir, workspace().exports, fmt, number))
                st.session_state[EXPORT] = (summary.run_id, str(out.path), out.mime, out.size)
    found = st.session_state.get(EXPORT)
    if found and found[0] == summary.run_id and Path(found[1]).is_file():
        path = Path(found[1])
        st.caption(t("runs.export.ready", name=path.name, size=found[3] / 1024))
        st.download_button(t("runs.export.download", name=path.name), data=path.read_bytes(),
                           file_name=path.name, mime=found[2], key="runs.export.download")


def manage_tab(root: Path, summary: RunSummary) -> None:
    """Rename, tag, delete old checkpoints, delete the whole run (after a confirmation)."""
    from tfcore.runs import delete_old_checkpoints, delete_run, rename_run, set_tags

    allowed = teacher_login("runs.manage.teacher")   # a shared server: teacher only
    cols = st.columns(2)
    name = cols[0].text_input(t("runs.manage.name"), value=summary.name,
                              key=f"runs.manage.name.{summary.run_id}")
    tags = cols[1].text_input(t("runs.manage.tags"), value=", ".join(summary.tags),
                              key=f"runs.manage.tags.{summary.run_id}")
    if st.button(t("runs.manage.save"), key="runs.manage.save", disabled=not allowed):
        with guarded():
            rename_run(root, summary.run_id, name)
            set_tags(root, summary.run_id, tags.split(","))
            st.session_state[FLASH] = ("manage", t("runs.manage.saved"))
            st.rerun()
    st.divider()
    cols = st.columns(2)
    keep = cols[0].number_input(t("runs.manage.keep"), min_value=1, max_value=100, value=1,
                                key="runs.manage.keep")
    if cols[1].button(t("runs.manage.prune"), key="runs.manage.prune", disabled=not allowed):
        with guarded():
            out = delete_old_checkpoints(root, summary.run_id, int(keep))
            st.session_state[FLASH] = ("manage", t("runs.manage.pruned",
                                                   count=len(out.removed),
                                                   size=out.freed_bytes / 1024))
    confirm = st.checkbox(t("runs.manage.confirm", name=plain(summary.name)),
                          key=f"runs.manage.confirm.{summary.run_id}")
    if st.button(t("runs.manage.delete"), disabled=not (confirm and allowed), type="primary",
                 key="runs.manage.delete"):
        with guarded():
            delete_run(root, summary.run_id)
            st.session_state[FLASH] = (DELETED, t("runs.manage.deleted",
                                                  name=plain(summary.name)))
            st.rerun()
    _flash("manage")


def foreign_panel() -> None:
    """Read a checkpoint folder written by another script; restore it into a chosen model."""
    from tfcore.runs import restore_spec
    from ui.common import pick_model, workspace

    with st.expander(t("runs.foreign.title")):
        st.caption(t("runs.foreign.help", root=str(workspace().root)))
        text = st.text_input(t("runs.foreign.path"), key="runs.foreign.path")
        if not text.strip():
            return
        try:
            folder = workspace().confine(text)
            listing = list_checkpoints(folder)
        except Exception as exc:  # noqa: BLE001 - shown as a translated message
            show_error(exc)
            return
        from ui.runs.detail import checkpoints_tab

        checkpoints_tab(listing)
        number = pick_checkpoint(listing, "runs.foreign.ckpt")
        if number is None:
            return
        prefix = listing.get(number).prefix
        variable_browser(list_variables(prefix), "runs.foreign.vars")
        st.caption(t("runs.foreign.restore_help"))
        spec = pick_model("runs.foreign")
        by_order = st.checkbox(t("runs.foreign.by_order"), value=True,
                               key="runs.foreign.by_order")
        if spec is not None and st.button(t("runs.foreign.restore"), key="runs.foreign.restore"):
            with guarded():
                report = restore_spec(prefix, spec, by_order=by_order).report
                _show_report(report)


def _show_report(report) -> None:
    if report.complete:
        st.success(t("runs.match.complete", count=len(report.matched) + len(report.by_order)))
    else:
        st.warning(t("runs.match.partial", missing=len(report.missing),
                     mismatch=len(report.shape_mismatch)))
    rows = ([{"key": k, "variable": v, "how": t("runs.match.by_key")} for k, v in report.matched]
            + [{"key": k, "variable": v, "how": t("runs.match.by_order")}
               for k, v in report.by_order]
            + [{"key": k, "variable": v, "how": t("runs.match.mismatch", a=str(list(a)),
                                                     b=str(list(b)))}
               for k, v, a, b in report.shape_mismatch]
            + [{"key": "", "variable": v, "how": t("runs.match.missing")} for v in report.missing]
            + [{"key": k, "variable": "", "how": t("runs.match.unused")} for k in report.unused])
    frame = pd.DataFrame(rows, columns=["key", "variable", "how"]).rename(columns={
        "key": t("runs.vars.col.key"), "variable": t("runs.match.col.variable"),
        "how": t("runs.match.col.how")})
    st.dataframe(frame, hide_index=True, width="stretch")
    for problem in report.problems:
        st.warning(t("runs.ckpt.problem", problem=plain(problem)))
