"""Home: what TF Lab is, a card per page, versions, devices, workspace and recent runs."""

import pandas as pd
import streamlit as st

from ui.common import (
    available_pages,
    devices_now,
    recent_table,
    run_store,
    t,
    versions_report,
    workspace,
)

st.title(t("home.title"))
st.markdown(t("home.intro"))

st.subheader(t("home.pages"))
cards = [page for page in available_pages() if page.path != "app_pages/home.py"]
columns = st.columns(3)
for index, page in enumerate(cards):
    with columns[index % 3].container(border=True):
        st.page_link(page.path, label=t(page.key), icon=page.icon)
        st.caption(t(f"{page.key}.desc"))

versions, report = versions_report(), devices_now()   # devices: None while TF loads
left, right = st.columns(2)
with left:
    st.subheader(t("home.versions"))
    st.dataframe(
        pd.DataFrame(
            [
                (t("home.versions.tensorflow"), versions.tensorflow),
                (t("home.versions.keras"), versions.keras),
                (t("home.versions.python"), versions.python),
                (t("home.versions.cuda"), versions.cuda or t("home.versions.none")),
                (t("home.versions.cudnn"), versions.cudnn or t("home.versions.none")),
            ],
            columns=[t("home.versions.component"), t("home.versions.version")],
        ),
        hide_index=True,
        width="stretch",
    )
with right:
    st.subheader(t("home.devices"))
    if report is None:
        st.caption(t("home.tf_loading"))
    else:
        rows = [
            {
                t("home.devices.name"): dev.name,
                t("home.devices.type"): dev.device_type,
                t("home.devices.kind"): t(f"home.devices.kind.{dev.kind}"),
                t("home.devices.details"): ", ".join(f"{k}={v}"
                                                     for k, v in dev.details.items()),
            }
            for dev in report.physical + report.logical
        ]
        st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
        if report.gpu_count == 0:
            st.caption(t("home.devices.no_gpu"))

st.subheader(t("home.workspace"))
ws = workspace()
usage = ws.disk_usage()
st.caption(t("home.workspace.where", path=str(ws.runs), free=usage.free / 2**30,
             total=usage.total / 2**30))

st.subheader(t("home.recent"))
runs = run_store().list()[:10]           # newest first; damaged runs say what is wrong
if not runs:
    st.info(t("home.recent.none"))
else:
    recent_table(runs)
