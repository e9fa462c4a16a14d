"""Show what a loaded dataset holds: sizes, class counts, and images, a table or points."""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd
import streamlit as st

from tfcore.data import DatasetBundle
from ui.common import pick, plain, t

GRID_IMAGES = 24
TABLE_ROWS = 50
SCATTER_POINTS = 2000


def show_preview(bundle: DatasetBundle) -> None:
    """Summary line, class counts chart and a kind-specific look at the training split."""
    info = bundle.info
    st.subheader(t("data.preview.title", title=plain(pick(info.title))))
    cols = st.columns(4)
    cols[0].metric(t("data.preview.train"), info.n_train)
    cols[1].metric(t("data.preview.val"), info.n_val)
    cols[2].metric(t("data.preview.test"), info.n_test)
    cols[3].metric(t("data.preview.shape"), " x ".join(map(str, info.input_shape)))
    task = t(f"data.task.{info.task}")
    if info.task == "classification":
        st.caption(t("data.preview.classes", task=task, count=info.num_classes,
                     names=", ".join(info.class_names[:20])))
    else:
        st.caption(t("data.preview.regression", task=task))
    if "validation and test reuse" in " ".join(info.notes):
        st.caption(t("data.split.fixed"))
    if info.kind == "image":
        _images(bundle)
    elif info.kind == "points":
        _points(bundle)
    else:
        _table(bundle)
    if info.task == "classification":
        _class_counts(bundle)


def class_counts_frame(bundle: DatasetBundle) -> pd.DataFrame:
    """Long table: class, split, count (splits that reuse train are still shown)."""
    rows = []
    for split in ("train", "val", "test"):
        for name, count in bundle.class_counts(split).items():
            rows.append({"class": name, "split": t(f"data.preview.{split}"), "count": count})
    return pd.DataFrame(rows)


def _class_counts(bundle: DatasetBundle) -> None:
    st.caption(t("data.preview.counts"))
    frame = class_counts_frame(bundle)
    chart = alt.Chart(frame).mark_bar().encode(
        x=alt.X("class:N", sort=list(bundle.info.class_names), title=None),
        y=alt.Y("count:Q", title=None),
        color=alt.Color("split:N", title=None),
        xOffset="split:N",
        tooltip=["class", "split", "count"])
    st.altair_chart(chart.properties(height=220), width="stretch")


def _images(bundle: DatasetBundle) -> None:
    st.caption(t("data.preview.grid", count=min(GRID_IMAGES, bundle.info.n_train)))
    x, y = bundle.x_train[:GRID_IMAGES], bundle.y_train[:GRID_IMAGES]
    pictures = [img[..., 0] if img.shape[-1] == 1 else img for img in x]
    captions = [bundle.info.class_names[int(label)] if bundle.info.class_names else
                f"{float(np.ravel(label)[0]):.3g}" for label in y]
    per_row = 8
    for start in range(0, len(pictures), per_row):
        cols = st.columns(per_row)
        for col, img, cap in zip(cols, pictures[start:start + per_row],
                                 captions[start:start + per_row]):
            col.image(np.clip(img, 0.0, 1.0), caption=cap, width="stretch", clamp=True)


def table_frame(bundle: DatasetBundle, rows: int = TABLE_ROWS) -> pd.DataFrame:
    """First training rows with feature names and the target (class name or value)."""
    x = bundle.x_train[:rows].reshape(min(rows, bundle.info.n_train), -1)
    names = list(bundle.info.feature_names) or [f"x{i}" for i in range(x.shape[1])]
    frame = pd.DataFrame(x, columns=names[: x.shape[1]])
    y = bundle.y_train[:rows]
    if bundle.info.task == "classification":
        frame[t("data.preview.target")] = [bundle.info.class_names[int(v)] for v in y]
    else:
        frame[t("data.preview.target")] = np.asarray(y, dtype=float).reshape(len(y), -1)[:, 0]
    return frame


def _table(bundle: DatasetBundle) -> None:
    st.caption(t("data.preview.table", count=min(TABLE_ROWS, bundle.info.n_train)))
    st.dataframe(table_frame(bundle), width="stretch", hide_index=True)


def points_frame(bundle: DatasetBundle) -> pd.DataFrame:
    x, y = bundle.x_train[:SCATTER_POINTS], bundle.y_train[:SCATTER_POINTS]
    names = list(bundle.info.feature_names) or ["x1", "x2"]
    frame = pd.DataFrame({"x1": x[:, 0], "x2": x[:, 1]})
    if bundle.info.task == "classification":
        frame["class"] = [bundle.info.class_names[int(v)] for v in y]
    else:
        frame["class"] = np.asarray(y, dtype=float).reshape(len(y), -1)[:, 0]
    frame.attrs["axis_names"] = names
    return frame


def _points(bundle: DatasetBundle) -> None:
    st.caption(t("data.preview.points", count=min(SCATTER_POINTS, bundle.info.n_train)))
    frame = points_frame(bundle)
    names = frame.attrs["axis_names"]
    kind = "N" if bundle.info.task == "classification" else "Q"
    chart = alt.Chart(frame).mark_circle(size=30, opacity=0.8).encode(
        x=alt.X("x1:Q", title=names[0]), y=alt.Y("x2:Q", title=names[1]),
        color=alt.Color(f"class:{kind}", title=t("data.preview.target"),
                        scale=alt.Scale(scheme="tableau10" if kind == "N" else "viridis")),
        tooltip=["x1", "x2", "class"])
    st.altair_chart(chart.properties(height=360), width="stretch")
