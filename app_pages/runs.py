"""Runs & checkpoints: compare runs, look inside checkpoints, restore, evaluate, export."""

import streamlit as st

from tfcore.runs import list_runs
from ui.common import guarded, linked, linked_tabs, located_text, plain, t, url_keeps, workspace
from ui.insight import insight_panel
from ui.runs import (
    checkpoints_tab,
    code_panel,
    compare_panel,
    config_tab,
    curves_tab,
    deleted_notice,
    diff_tab,
    export_tab,
    filters,
    filters_tab,
    foreign_panel,
    listing_for,
    manage_tab,
    restore_tab,
    run_label,
    runs_table,
    variables_tab,
)

st.title(t("runs.title"))
st.caption(t("runs.intro"))
deleted_notice()

root = workspace().runs
summaries = list_runs(root)                  # newest first; damaged runs included
damaged = [s for s in summaries if s.problems]
if damaged:
    lines = [t("runs.damaged", count=len(damaged)), ""] + [
        f"- {plain(run_label(s))}: {located_text(s.problems[0])}" for s in damaged[:20]]
    if len(damaged) > 20:
        lines.append(f"- {t('runs.damaged.more', count=len(damaged) - 20)}")
    st.warning("\n".join(lines), icon=":material/warning:")
if not summaries:
    st.info(t("runs.none"))
else:
    shown = filters(summaries)
    runs_table(shown)
    if not shown:
        st.info(t("runs.filter.empty"))
    else:
        with guarded():
            compare_panel(root, shown)

        st.subheader(t("runs.detail.title"))
        by_id = {s.run_id: s for s in shown}
        labels = {s.run_id: run_label(s) for s in shown}
        run_link = linked("runs", "run", by_id)      # ?run=<id>: a shared link, a lesson step
        if run_link is not None:
            st.session_state["runs.detail.run"] = run_link
        elif st.session_state.get("runs.detail.run") not in by_id:
            # set, not dropped: a dropped key leaves the browser showing the old choice
            st.session_state["runs.detail.run"] = next(iter(by_id))
        run_id = st.selectbox(t("runs.detail.run"), list(by_id), format_func=labels.get,
                              key="runs.detail.run")
        url_keeps("runs", "run", run_id)            # a reload opens this run again
        summary = by_id[run_id]
        run_dir = root / run_id
        for problem in summary.problems:
            st.warning(t("runs.detail.problem", problem=located_text(problem)))
        with guarded():
            code_panel(run_dir)       # the run's own code vs the workspace's
        listing = listing_for(run_dir)
        names = ("config", "curves", "inside", "ckpts", "vars", "diff", "filters", "restore",
                 "export", "manage")      # tfcore.lessons.PAGES's; ?tab=inside opens one
        tabs = dict(zip(names, linked_tabs("runs", {n: t(f"runs.tab.{n}") for n in names})))
        with tabs["config"], guarded():
            config_tab(run_dir, summary)
        with tabs["curves"], guarded():
            curves_tab(root, run_id, listing)
        with tabs["inside"], guarded():
            insight_panel(run_dir, "insight.runs")    # its insides over time, replayed
        with tabs["manage"], guarded():
            manage_tab(root, summary)
        if listing is None:
            for name in ("ckpts", "vars", "diff", "filters", "restore", "export"):
                tabs[name].info(t("runs.ckpt.none"))
        else:
            with tabs["ckpts"], guarded():
                checkpoints_tab(listing)
            with tabs["vars"], guarded():
                variables_tab(listing, run_dir)
            with tabs["diff"], guarded():
                diff_tab(listing, run_dir)
            with tabs["filters"], guarded():
                filters_tab(listing, run_dir)      # a CNN's filters at any checkpoint
            with tabs["restore"], guarded():
                restore_tab(root, summary, listing)
            with tabs["export"], guarded():
                export_tab(root, summary, listing)

foreign_panel()
