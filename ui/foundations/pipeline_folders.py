"""The tf.data page's section on image files in class folders (scenario T6).

The person picks the built-in digits sample (written on demand to
``workspace/samples/digits_folders``) or an image-folder upload, sets the map, shuffle,
batch and prefetch options and runs the pipeline; the page shows the code the engine
generated for those options, the first batch's shape, dtype and labels, and its images.
"""

from __future__ import annotations

import streamlit as st

from tfcore.labs import SIZES, FolderBatch, FolderSpec, first_folder_batch, folder_sources
from ui.common import guarded, t, workspace
from ui.foundations.widgets import labels

RESULT_KEY = "fpf.result"
BUFFERS = (1, 8, 64, 256, 1024)
BATCHES = (4, 8, 16, 32)
SHOWN = 8


def folder_section() -> None:
    """Pick the folders and options, run the pipeline, show its code and first batch."""
    st.subheader(t("foundations.folders.title"))
    st.caption(t("foundations.folders.intro"))
    sources = folder_sources(workspace())
    with st.container(border=True):
        source = st.selectbox(t("foundations.folders.source"), sources, key="fpf.source",
                              format_func=labels("foundations.folders.source"))
        if len(sources) == 1:
            st.caption(t("foundations.folders.no_uploads"))
        c1, c2, c3 = st.columns(3)
        size = c1.select_slider(t("foundations.folders.size"), SIZES, 28, key="fpf.size")
        channels = c1.radio(t("foundations.folders.channels"), (1, 3), horizontal=True,
                            key="fpf.channels", format_func=labels("foundations.folders.ch"))
        buffer = c2.select_slider(t("foundations.pipeline.buffer"), BUFFERS, 64,
                                  key="fpf.buffer")
        seed = c2.number_input(t("foundations.pipeline.seed"), 0, 10_000, 0, key="fpf.seed")
        batch = c3.select_slider(t("foundations.pipeline.batch"), BATCHES, 8, key="fpf.batch")
        prefetch = c3.checkbox(t("foundations.pipeline.prefetch"), True, key="fpf.prefetch")
    spec = FolderSpec(source=str(source), image_size=int(size), channels=int(channels),
                         shuffle_buffer=int(buffer), batch_size=int(batch), seed=int(seed),
                         prefetch=bool(prefetch))
    if st.button(t("foundations.folders.run"), key="fpf.run", type="primary"):
        st.session_state.pop(RESULT_KEY, None)
        with guarded(), st.spinner(t("foundations.folders.running")):
            st.session_state[RESULT_KEY] = (spec, first_folder_batch(spec, workspace()))
    kept = st.session_state.get(RESULT_KEY)
    if kept is None:
        return
    if kept[0] != spec:
        st.caption(t("foundations.folders.stale"))
        return
    _show(kept[1])


def _show(result: FolderBatch) -> None:
    st.code(result.code, language="python")
    scan = result.scan
    st.markdown(t("foundations.folders.found", files=scan.total, classes=len(scan.classes),
                  names=", ".join(scan.classes[:20]) + (" …" if len(scan.classes) > 20 else "")))
    c1, c2, c3 = st.columns(3)
    c1.metric(t("foundations.folders.shape"), str(list(result.shape)))
    c2.metric(t("foundations.folders.dtype"), result.dtype)
    c3.metric(t("foundations.folders.batch_classes"), len(set(result.labels.tolist())))
    st.markdown(t("foundations.folders.labels", labels=result.labels.tolist(),
                  names=", ".join(result.label_names)))
    images = [img[..., 0] if img.shape[-1] == 1 else img for img in result.images[:SHOWN]]
    st.image(images, width=64, clamp=True,
             caption=[f"{int(i)}: {n}" for i, n in zip(result.labels[:SHOWN],
                                                       result.label_names[:SHOWN])])
